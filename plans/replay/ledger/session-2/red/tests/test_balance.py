"""Session 2 (RED): account balances computed from journal entries."""

from datetime import date
from decimal import Decimal

from ledger.balance import balance_of, balances, normal_balance, trial_balance
from ledger.models import Account, AccountKind, Entry, Posting


def _entry(day, description, *postings):
    return Entry(date(2024, 1, day), description, [Posting(a, amt) for a, amt in postings])


JOURNAL = [
    _entry(1, "Owner investment", ("Cash", "1000.00"), ("Owner Equity", "-1000.00")),
    _entry(5, "Office rent", ("Rent", "400.00"), ("Cash", "-400.00")),
    _entry(20, "Consulting invoice", ("Cash", "250.50"), ("Sales", "-250.50")),
]


def test_no_entries_means_no_balances():
    assert balances([]) == {}


def test_balances_sum_postings_per_account():
    assert balances(JOURNAL) == {
        "Cash": Decimal("850.50"),
        "Owner Equity": Decimal("-1000.00"),
        "Rent": Decimal("400.00"),
        "Sales": Decimal("-250.50"),
    }


def test_balances_as_of_a_date_ignore_later_entries():
    assert balances(JOURNAL, as_of=date(2024, 1, 5)) == {
        "Cash": Decimal("600.00"),
        "Owner Equity": Decimal("-1000.00"),
        "Rent": Decimal("400.00"),
    }


def test_balance_of_one_account():
    assert balance_of(JOURNAL, "Cash") == Decimal("850.50")
    assert balance_of(JOURNAL, "Cash", as_of=date(2024, 1, 1)) == Decimal("1000.00")


def test_balance_of_an_untouched_account_is_zero():
    assert balance_of(JOURNAL, "Travel") == Decimal("0.00")


def test_trial_balance_of_balanced_entries_is_zero():
    assert trial_balance(JOURNAL) == Decimal("0.00")


def test_normal_balance_shows_credit_accounts_as_positive():
    assert normal_balance(Account("Cash", AccountKind.ASSET), Decimal("850.50")) == Decimal("850.50")
    assert normal_balance(Account("Rent", AccountKind.EXPENSE), Decimal("400.00")) == Decimal("400.00")
    assert normal_balance(Account("Loan", AccountKind.LIABILITY), Decimal("-75.00")) == Decimal("75.00")
    assert normal_balance(Account("Sales", AccountKind.INCOME), Decimal("-250.50")) == Decimal("250.50")
