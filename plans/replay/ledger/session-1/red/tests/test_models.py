"""Session 1 (RED): accounts, money and balanced journal entries."""

from datetime import date
from decimal import Decimal

import pytest

from ledger.models import (
    Account,
    AccountKind,
    Entry,
    LedgerError,
    Posting,
    UnbalancedEntryError,
    to_money,
)


def test_account_has_name_and_kind():
    account = Account("Cash", AccountKind.ASSET)
    assert account.name == "Cash"
    assert account.kind is AccountKind.ASSET


def test_account_name_is_required():
    with pytest.raises(LedgerError):
        Account("   ", AccountKind.EXPENSE)


def test_account_kind_from_text():
    assert AccountKind("liability") is AccountKind.LIABILITY


def test_to_money_parses_strings_and_ints():
    assert to_money("12.5") == Decimal("12.50")
    assert to_money(3) == Decimal("3.00")
    assert str(to_money("7")) == "7.00"


def test_to_money_rejects_floats():
    with pytest.raises(TypeError):
        to_money(0.1)


def test_to_money_rejects_fractions_of_a_cent():
    with pytest.raises(LedgerError):
        to_money("1.005")


def test_to_money_rejects_text_that_is_not_a_number():
    with pytest.raises(LedgerError):
        to_money("ten")


def test_posting_amount_becomes_money():
    posting = Posting("Cash", "100")
    assert posting.amount == Decimal("100.00")


def test_posting_amount_cannot_be_zero():
    with pytest.raises(LedgerError):
        Posting("Cash", "0.00")


def test_balanced_entry_is_accepted():
    entry = Entry(
        date(2024, 1, 1),
        "Owner investment",
        [Posting("Cash", "1000.00"), Posting("Owner Equity", "-1000.00")],
    )
    assert entry.postings == (
        Posting("Cash", Decimal("1000.00")),
        Posting("Owner Equity", Decimal("-1000.00")),
    )
    assert entry.accounts == ("Cash", "Owner Equity")


def test_unbalanced_entry_is_rejected():
    with pytest.raises(UnbalancedEntryError, match="off by 0.01"):
        Entry(
            date(2024, 1, 2),
            "Typo",
            [Posting("Cash", "10.00"), Posting("Sales", "-9.99")],
        )


def test_entry_needs_at_least_two_postings():
    with pytest.raises(LedgerError):
        Entry(date(2024, 1, 3), "Lonely", [Posting("Cash", "5.00")])
