from ledger.balance import balances, normal_balance, trial_balance
from ledger.models import LedgerError


def format_amount(amount):
    return f"{amount:,.2f}"


def balance_report(accounts, entries, as_of=None):
    raw = balances(entries, as_of=as_of)
    names = [a.name for a in accounts]
    for name in raw:
        if name not in names:
            raise LedgerError(f"postings to unknown account {name!r}")
    if as_of is None:
        title = "Balance report (all entries)"
    else:
        title = f"Balance report as of {as_of.isoformat()}"
    rows = [("Account", "Kind", "Balance")]
    for account in accounts:
        amount = normal_balance(account, raw.get(account.name, 0))
        rows.append((account.name, account.kind.value, format_amount(amount)))
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    w2 = max(len(r[2]) for r in rows)
    lines = [title]
    lines.append(f"{rows[0][0]:<{w0}}  {rows[0][1]:<{w1}}  {rows[0][2]:>{w2}}")
    lines.append("-" * (w0 + w1 + w2 + 4))
    for r in rows[1:]:
        lines.append(f"{r[0]:<{w0}}  {r[1]:<{w1}}  {r[2]:>{w2}}")
    lines.append("-" * (w0 + w1 + w2 + 4))
    lines.append(f"Trial balance: {format_amount(trial_balance(entries))}")
    return "\n".join(lines) + "\n"
