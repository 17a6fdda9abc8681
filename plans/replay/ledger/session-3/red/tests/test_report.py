"""Session 3 (RED): a plain-text balance report."""

from datetime import date
from decimal import Decimal

import pytest

from ledger.models import Account, AccountKind, Entry, LedgerError, Posting
from ledger.report import balance_report, format_amount

ACCOUNTS = [
    Account("Cash", AccountKind.ASSET),
    Account("Owner Equity", AccountKind.EQUITY),
    Account("Sales", AccountKind.INCOME),
    Account("Rent", AccountKind.EXPENSE),
    Account("Travel", AccountKind.EXPENSE),
]

JOURNAL = [
    Entry(date(2024, 1, 1), "Owner investment",
          [Posting("Cash", "1000.00"), Posting("Owner Equity", "-1000.00")]),
    Entry(date(2024, 1, 5), "Office rent", [Posting("Rent", "400.00"), Posting("Cash", "-400.00")]),
    Entry(date(2024, 2, 1), "Big contract",
          [Posting("Cash", "1250000.00"), Posting("Sales", "-1250000.00")]),
]


def test_format_amount_uses_thousands_separators():
    assert format_amount(Decimal("1234567.5")) == "1,234,567.50"


def test_format_amount_keeps_the_sign_and_two_places():
    assert format_amount(Decimal("-42")) == "-42.00"
    assert format_amount(Decimal("0")) == "0.00"


def test_report_title_says_which_entries_it_covers():
    assert balance_report(ACCOUNTS, JOURNAL).splitlines()[0] == "Balance report (all entries)"
    dated = balance_report(ACCOUNTS, JOURNAL, as_of=date(2024, 1, 31))
    assert dated.splitlines()[0] == "Balance report as of 2024-01-31"


def test_report_lists_every_account_with_its_normal_balance():
    lines = balance_report(ACCOUNTS, JOURNAL).splitlines()
    rows = {line.split()[0]: line for line in lines[3:8]}
    assert rows["Cash"].endswith("1,250,600.00")
    assert rows["Owner"].endswith("1,000.00")
    assert "-" not in rows["Owner"]
    assert rows["Sales"].endswith("1,250,000.00")
    assert rows["Travel"].endswith("0.00")


def test_report_columns_are_aligned():
    lines = balance_report(ACCOUNTS, JOURNAL).splitlines()
    table = lines[1:9]
    assert len({len(line) for line in table}) == 1
    assert lines[1].split() == ["Account", "Kind", "Balance"]


def test_report_ends_with_the_trial_balance():
    assert balance_report(ACCOUNTS, JOURNAL).splitlines()[-1] == "Trial balance: 0.00"


def test_report_refuses_postings_to_unknown_accounts():
    with pytest.raises(LedgerError, match="Sales"):
        balance_report(ACCOUNTS[:2] + ACCOUNTS[3:], JOURNAL)
