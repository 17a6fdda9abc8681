import argparse
import json
import sys
from datetime import date

from ledger.models import Account, AccountKind, Entry, LedgerError, Posting
from ledger.report import balance_report


def load_journal(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    accounts = []
    for item in data["accounts"]:
        accounts.append(Account(item["name"], AccountKind(item["kind"])))
    names = [a.name for a in accounts]
    entries = []
    for number, item in enumerate(data["entries"], start=1):
        postings = []
        for p in item["postings"]:
            if p["account"] not in names:
                raise LedgerError(f"entry {number}: unknown account {p['account']!r}")
            postings.append(Posting(p["account"], p["amount"]))
        try:
            entries.append(Entry(date.fromisoformat(item["date"]), item["description"], postings))
        except LedgerError as e:
            raise LedgerError(f"entry {number}: {e}") from None
    return accounts, entries


def main(argv=None):
    parser = argparse.ArgumentParser(prog="ledger")
    sub = parser.add_subparsers(dest="command", required=True)
    balance = sub.add_parser("balance")
    balance.add_argument("journal")
    balance.add_argument("--as-of", type=date.fromisoformat)
    check = sub.add_parser("check")
    check.add_argument("journal")
    args = parser.parse_args(argv)
    try:
        accounts, entries = load_journal(args.journal)
    except (OSError, ValueError, KeyError) as e:
        print(f"error: {args.journal}: {e}", file=sys.stderr)
        return 1
    if args.command == "balance":
        print(balance_report(accounts, entries, as_of=args.as_of), end="")
    else:
        print(f"ok: {len(accounts)} accounts, {len(entries)} entries, all balanced")
    return 0


if __name__ == "__main__":
    sys.exit(main())
