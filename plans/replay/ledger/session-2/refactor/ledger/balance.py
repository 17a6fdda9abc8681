"""Balances computed from journal entries.

Raw balances keep the posting sign (+debit / -credit). `normal_balance` turns a raw
balance into the number people expect to read: liabilities, equity and income are
credit-normal, so their credit balances are shown as positive amounts.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date
from decimal import Decimal

from ledger.models import ZERO, Account, AccountKind, Entry, Posting, total

CREDIT_NORMAL = frozenset({AccountKind.LIABILITY, AccountKind.EQUITY, AccountKind.INCOME})


def postings(entries: Iterable[Entry], *, as_of: date | None = None) -> Iterator[Posting]:
    """Every posting of `entries` dated on or before `as_of` (all when None)."""
    for entry in entries:
        if as_of is None or entry.date <= as_of:
            yield from entry.postings


def balances(entries: Iterable[Entry], *, as_of: date | None = None) -> dict[str, Decimal]:
    """Raw balance of every account that has postings, in first-seen order."""
    result: dict[str, Decimal] = {}
    for posting in postings(entries, as_of=as_of):
        result[posting.account] = result.get(posting.account, ZERO) + posting.amount
    return result


def balance_of(entries: Iterable[Entry], account: str, *, as_of: date | None = None) -> Decimal:
    """Raw balance of one account (`0.00` when it has no postings)."""
    return total(p.amount for p in postings(entries, as_of=as_of) if p.account == account)


def trial_balance(entries: Iterable[Entry]) -> Decimal:
    """Sum of all raw balances: zero whenever every entry balanced."""
    return total(balances(entries).values())


def normal_balance(account: Account, amount: Decimal) -> Decimal:
    """`amount` signed the way `account`'s kind is normally read."""
    return -amount if account.kind in CREDIT_NORMAL else amount
