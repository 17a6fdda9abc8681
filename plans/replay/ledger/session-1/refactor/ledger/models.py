"""Accounts, postings and journal entries.

Money is always a `Decimal` with exactly two places: floats are refused because
0.1 + 0.2 != 0.3. A posting's amount is positive for a debit and negative for a
credit, so a balanced entry is one whose amounts sum to zero.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from enum import Enum

CENT = Decimal("0.01")
ZERO = Decimal("0.00")


class LedgerError(ValueError):
    """Input that cannot go into the ledger."""


class UnbalancedEntryError(LedgerError):
    """An entry whose debits and credits do not cancel out."""


class AccountKind(Enum):
    ASSET = "asset"
    LIABILITY = "liability"
    EQUITY = "equity"
    INCOME = "income"
    EXPENSE = "expense"


@dataclass(frozen=True)
class Account:
    name: str
    kind: AccountKind

    def __post_init__(self) -> None:
        _require(bool(self.name.strip()), "account name is required")


def to_money(value: str | int | Decimal) -> Decimal:
    """Parse `value` as an amount of money with two decimal places."""
    if isinstance(value, float):
        raise TypeError("use str or Decimal for money, not float")
    try:
        amount = Decimal(value)
    except InvalidOperation:
        raise LedgerError(f"not an amount: {value!r}") from None
    _require(amount == amount.quantize(CENT), f"amount has fractions of a cent: {value!r}")
    return amount.quantize(CENT)


def total(amounts: Iterable[Decimal]) -> Decimal:
    """Sum of `amounts`, `0.00` when there are none."""
    return sum(amounts, ZERO)


@dataclass(frozen=True)
class Posting:
    """One line of an entry: `amount` (+debit / -credit) moved on `account`."""

    account: str
    amount: Decimal

    def __post_init__(self) -> None:
        amount = to_money(self.amount)
        _require(amount != 0, f"posting to {self.account} has a zero amount")
        object.__setattr__(self, "amount", amount)


@dataclass(frozen=True)
class Entry:
    """A dated journal entry; refuses to exist unless it balances."""

    date: date
    description: str
    postings: tuple[Posting, ...]

    def __post_init__(self) -> None:
        postings = tuple(self.postings)
        _require(len(postings) >= 2, f"entry {self.description!r} needs at least two postings")
        off_by = total(p.amount for p in postings)
        if off_by != 0:
            raise UnbalancedEntryError(f"entry {self.description!r} is off by {off_by}")
        object.__setattr__(self, "postings", postings)

    @property
    def accounts(self) -> tuple[str, ...]:
        """The accounts this entry touches, in posting order."""
        return tuple(p.account for p in self.postings)


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise LedgerError(message)
