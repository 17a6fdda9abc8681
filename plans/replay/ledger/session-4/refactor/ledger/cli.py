"""`python -m ledger.cli {balance,check} JOURNAL`: the ledger from the command line.

A journal is a JSON file:
`{"accounts": [{"name", "kind"}], "entries": [{"date", "description", "postings":
[{"account", "amount"}]}]}` with amounts as strings ("12.50") so no float ever
touches the money.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from ledger.models import Account, AccountKind, Entry, LedgerError, Posting
from ledger.report import balance_report


def load_journal(path: str | Path) -> tuple[list[Account], list[Entry]]:
    """Read and validate a journal; errors name the entry (1-based) at fault."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    accounts = [Account(item["name"], AccountKind(item["kind"])) for item in data["accounts"]]
    known = {a.name for a in accounts}
    entries = [
        _parse_entry(number, item, known) for number, item in enumerate(data["entries"], start=1)
    ]
    return accounts, entries


def _parse_entry(number: int, item: dict[str, Any], known: set[str]) -> Entry:
    try:
        postings = [_parse_posting(p, known) for p in item["postings"]]
        return Entry(date.fromisoformat(item["date"]), item["description"], postings)
    except LedgerError as e:
        raise LedgerError(f"entry {number}: {e}") from None


def _parse_posting(item: dict[str, Any], known: set[str]) -> Posting:
    if item["account"] not in known:
        raise LedgerError(f"unknown account {item['account']!r}")
    return Posting(item["account"], item["amount"])


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ledger", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    balance = sub.add_parser("balance", help="print the balance report")
    balance.add_argument("journal")
    balance.add_argument("--as-of", type=date.fromisoformat, help="YYYY-MM-DD")
    check = sub.add_parser("check", help="validate the journal")
    check.add_argument("journal")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; 0 on success, 1 (message on stderr) for a bad journal."""
    args = _parser().parse_args(argv)
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
