from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from enum import Enum


class LedgerError(ValueError):
    pass


class UnbalancedEntryError(LedgerError):
    pass


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

    def __post_init__(self):
        if not self.name.strip():
            raise LedgerError("account name is required")


def to_money(value):
    if isinstance(value, float):
        raise TypeError("use str or Decimal for money, not float")
    try:
        amount = Decimal(value)
    except InvalidOperation:
        raise LedgerError(f"not an amount: {value!r}") from None
    if amount != amount.quantize(Decimal("0.01")):
        raise LedgerError(f"amount has fractions of a cent: {value!r}")
    return amount.quantize(Decimal("0.01"))


@dataclass(frozen=True)
class Posting:
    account: str
    amount: Decimal

    def __post_init__(self):
        amount = to_money(self.amount)
        if amount == 0:
            raise LedgerError(f"posting to {self.account} has a zero amount")
        object.__setattr__(self, "amount", amount)


@dataclass(frozen=True)
class Entry:
    date: date
    description: str
    postings: tuple

    def __post_init__(self):
        postings = tuple(self.postings)
        if len(postings) < 2:
            raise LedgerError(f"entry {self.description!r} needs at least two postings")
        total = sum((p.amount for p in postings), Decimal("0.00"))
        if total != 0:
            raise UnbalancedEntryError(f"entry {self.description!r} is off by {total}")
        object.__setattr__(self, "postings", postings)

    @property
    def accounts(self):
        return tuple(p.account for p in self.postings)
