"""A plain-text balance report: one aligned row per account, then the trial balance."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from decimal import Decimal

from ledger.balance import balances, normal_balance, trial_balance
from ledger.models import ZERO, Account, Entry, LedgerError

HEADER = ("Account", "Kind", "Balance")


def format_amount(amount: Decimal) -> str:
    """`1234.5` -> `1,234.50`: thousands separators, sign kept, two places."""
    return f"{amount:,.2f}"


def balance_report(
    accounts: Sequence[Account], entries: Iterable[Entry], *, as_of: date | None = None
) -> str:
    """The report for `accounts` (in the order given) over `entries` up to `as_of`.

    Raises LedgerError when an entry posts to an account not in `accounts`, so a
    misspelt account can never silently vanish from the report.
    """
    entries = list(entries)
    raw = balances(entries, as_of=as_of)
    _check_known(accounts, raw)
    rows = [
        (a.name, a.kind.value, format_amount(normal_balance(a, raw.get(a.name, ZERO))))
        for a in accounts
    ]
    title = f"Balance report as of {as_of.isoformat()}" if as_of else "Balance report (all entries)"
    footer = f"Trial balance: {format_amount(trial_balance(entries))}"
    return "\n".join([title, *_table(HEADER, rows), footer]) + "\n"


def _check_known(accounts: Sequence[Account], raw: dict[str, Decimal]) -> None:
    known = {a.name for a in accounts}
    unknown = [name for name in raw if name not in known]
    if unknown:
        raise LedgerError(f"postings to unknown account(s): {', '.join(unknown)}")


def _table(header: tuple[str, str, str], rows: list[tuple[str, str, str]]) -> list[str]:
    """Header, rule, rows, rule; text columns left-aligned, the amount right-aligned."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]

    def line(row: tuple[str, str, str]) -> str:
        return f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:>{widths[2]}}"

    rule = "-" * (sum(widths) + 4)
    return [line(header), rule, *(line(row) for row in rows), rule]
