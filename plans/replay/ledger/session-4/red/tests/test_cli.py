"""Session 4 (RED): the `python -m ledger.cli` command line."""

import json

import pytest

from ledger.cli import load_journal, main
from ledger.models import AccountKind, LedgerError

JOURNAL = {
    "accounts": [
        {"name": "Cash", "kind": "asset"},
        {"name": "Owner Equity", "kind": "equity"},
        {"name": "Rent", "kind": "expense"},
    ],
    "entries": [
        {"date": "2024-01-01", "description": "Owner investment",
         "postings": [{"account": "Cash", "amount": "1000.00"},
                      {"account": "Owner Equity", "amount": "-1000.00"}]},
        {"date": "2024-02-01", "description": "Office rent",
         "postings": [{"account": "Rent", "amount": "400.00"},
                      {"account": "Cash", "amount": "-400.00"}]},
    ],
}


@pytest.fixture
def journal_file(tmp_path):
    path = tmp_path / "journal.json"
    path.write_text(json.dumps(JOURNAL), encoding="utf-8")
    return path


def test_load_journal_reads_accounts_and_entries(journal_file):
    accounts, entries = load_journal(journal_file)
    assert [a.name for a in accounts] == ["Cash", "Owner Equity", "Rent"]
    assert accounts[2].kind is AccountKind.EXPENSE
    assert [e.description for e in entries] == ["Owner investment", "Office rent"]


def test_balance_command_prints_the_report(journal_file, capsys):
    assert main(["balance", str(journal_file)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "Balance report (all entries)"
    assert "600.00" in out


def test_balance_command_as_of_a_date(journal_file, capsys):
    assert main(["balance", str(journal_file), "--as-of", "2024-01-31"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "Balance report as of 2024-01-31"
    assert "1,000.00" in out


def test_check_command_confirms_a_valid_journal(journal_file, capsys):
    assert main(["check", str(journal_file)]) == 0
    assert capsys.readouterr().out == "ok: 3 accounts, 2 entries, all balanced\n"


def test_missing_file_is_an_error_not_a_traceback(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nope.json")]) == 1
    assert "nope.json" in capsys.readouterr().err


def test_unbalanced_entry_names_the_entry(journal_file, capsys):
    data = json.loads(journal_file.read_text(encoding="utf-8"))
    data["entries"][1]["postings"][1]["amount"] = "-399.00"
    journal_file.write_text(json.dumps(data), encoding="utf-8")
    assert main(["check", str(journal_file)]) == 1
    err = capsys.readouterr().err
    assert "entry 2" in err
    assert "off by 1.00" in err


def test_unknown_account_is_refused(journal_file):
    data = json.loads(journal_file.read_text(encoding="utf-8"))
    data["entries"][0]["postings"][0]["account"] = "Csah"
    journal_file.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LedgerError, match="Csah"):
        load_journal(journal_file)
