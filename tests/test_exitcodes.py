"""The exit-code table is one contract: distinct codes, documented, never 0/42 on failure."""

from __future__ import annotations

from pathlib import Path

from executor.errors import ExecutorError, NeedAgent, UserError
from executor.exitcodes import DESCRIPTIONS, ExitCode, table_markdown

REPO = Path(__file__).resolve().parents[1]


def test_doc_contains_the_generated_table_exactly() -> None:
    doc = (REPO / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    assert table_markdown() in doc, "regenerate docs/exit-codes.md from table_markdown()"


def test_every_code_described_and_distinct() -> None:
    assert set(DESCRIPTIONS) == set(ExitCode)
    assert len({c.value for c in ExitCode}) == len(ExitCode)


def test_issue_codes_are_stable() -> None:
    expected = {
        "SUCCESS": 0,
        "USER_CANCELLED": 1,
        "PATH_NOT_FOUND": 2,
        "ANALYSIS_FAILED": 3,
        "GENERATION_FAILED": 4,
        "VALIDATION_FAILED": 5,
        "SAVE_FAILED": 6,
        "NEED_AGENT": 42,
        "INTERRUPTED": 130,
    }
    assert {name: ExitCode[name].value for name in expected} == expected


def _subclasses(cls: type[ExecutorError]) -> set[type[ExecutorError]]:
    out: set[type[ExecutorError]] = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _subclasses(sub)
    return out


def test_no_error_maps_to_success_or_need_agent() -> None:
    for cls in _subclasses(UserError) | {ExecutorError}:
        assert cls.exit_code not in (ExitCode.SUCCESS, ExitCode.NEED_AGENT), cls
    assert NeedAgent.exit_code == ExitCode.NEED_AGENT


def test_help_points_to_the_exit_codes_command_not_a_file_of_the_checkout(
    tmp_path: Path,
) -> None:
    """A pip-installed user has no docs/ folder: `--help` names the command that prints
    the table, and that command prints every code."""
    from tests.conftest import run_cli

    shown = run_cli("--help", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())  # help wraps its epilog
    assert "`executor exit-codes` prints what each means" in text
    assert "docs/exit-codes.md" not in text
    table = run_cli("exit-codes", cwd=tmp_path)
    assert all(f"{c.value:>4}  {c.name}" in table.stdout for c in ExitCode)
