from decimal import Decimal

from ledger.models import AccountKind


def balances(entries, as_of=None):
    result = {}
    for entry in entries:
        if as_of is not None and entry.date > as_of:
            continue
        for posting in entry.postings:
            result[posting.account] = result.get(posting.account, Decimal("0.00")) + posting.amount
    return result


def balance_of(entries, account, as_of=None):
    result = Decimal("0.00")
    for entry in entries:
        if as_of is not None and entry.date > as_of:
            continue
        for posting in entry.postings:
            if posting.account == account:
                result += posting.amount
    return result


def trial_balance(entries):
    return sum(balances(entries).values(), Decimal("0.00"))


def normal_balance(account, amount):
    if account.kind in (AccountKind.LIABILITY, AccountKind.EQUITY, AccountKind.INCOME):
        return -amount
    return amount
