"""Issue 29, finding 16: what an agent or a test run wrote reaches the person's terminal
with its control characters escaped, through the real CLI: a run's lines, its errors,
`executor logs`, `status`, `bridge show`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.engine.helpers import make_project
from tests.engine.test_sealed import hostile

pytestmark = pytest.mark.slow

#: clear screen, an OSC 52 clipboard write, a carriage return that rewrites the line
#: with a fake executor line, the same clear screen as one C1 character, a bell
NASTY = "\x1b[2J\x1b]52;c;cHduZWQ=\x07\r[session 1] committed 0000: all good \x9b2J\x07"
#: a test module line that fails its collection with NASTY as the reason
RAISE = f"raise ImportError({NASTY!r})\n"
#: RED's agent: its answer carries the sequences, and so does the error its test module
#: raises (the test run's output, quoted in the run's lines, its stop and its question)
RED = (
    f"print({NASTY!r})\n"
    "p = pathlib.Path('tests/test_models.py')\n"
    f"p.write_text({RAISE!r} + p.read_text())\n"
)
#: what a terminal would act on: C0 but newline and tab, DEL, C1, a lone CR
RAW = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")


def _clean(text: str, where: str) -> None:
    found = RAW.search(text)
    if found is not None:
        around = text[max(0, found.start() - 80) : found.end() + 80]
        pytest.fail(f"{where}: raw {found.group()!r} in {around!r}")


def test_29_16_agent_and_test_text_reach_the_terminal_escaped(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    agent = hostile(tmp_path, "red", RED)
    run = run_cli("execute-session", "1", "--plan", str(plan), "--yes", "--max-retries", "0",
                  "--agent-command", agent, cwd=git_repo, timeout=300)  # fmt: skip
    assert run.returncode == 16, run.stdout + run.stderr
    for name, text in (("stdout", run.stdout), ("stderr", run.stderr)):
        _clean(text, f"the run's {name}")
    assert "\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07\\x0d[session 1] committed" in run.stdout
    assert "\\x9b2J" in run.stdout + run.stderr
    # The transcripts and test output hold the raw bytes; `executor logs` shows them
    # escaped, newlines and tabs kept.
    logs = run_cli("logs", "1", "--plan", str(plan), "-n", "0", cwd=git_repo)
    assert logs.returncode == 0, logs.stderr
    _clean(logs.stdout, "executor logs")
    assert "\\x1b]52;c;cHduZWQ=\\x07" in logs.stdout and "\n" in logs.stdout
    raw = "".join(p.read_text("utf-8", "replace") for p in (plan / ".agent-logs").glob("*"))
    assert "\x1b]52;" in raw  # kept as written, for whoever reads the file itself
    for args in (["status"], ["status", "--json"]):
        status = run_cli(*args, "--plan", str(plan), cwd=git_repo)
        assert status.returncode == 0, status.stderr
        _clean(status.stdout, " ".join(args))
    if "--json" in args:
        json.loads(status.stdout)


def test_29_16_a_checkpoint_shows_a_test_runs_text_escaped(git_repo: Path, tmp_path: Path) -> None:
    """The run's lines while it waits for the person, and the question (`bridge show`,
    what a host puts to them, and its JSON) show the agent's and the test run's
    sequences escaped."""
    plan = make_project(git_repo)
    agent = hostile(tmp_path, "red", RED)
    first = run_cli("execute-session", "1", "--plan", str(plan), "--agent-command", agent,
                    "--checkpoints", "all", cwd=git_repo, timeout=300)  # fmt: skip
    assert first.returncode == 42, first.stderr
    approve = run_cli("bridge", "respond", "--dir", str(plan), "--response", "approve",
                      "--resume", cwd=git_repo, timeout=300)  # fmt: skip
    assert approve.returncode == 42, approve.stdout + approve.stderr
    _clean(approve.stdout + approve.stderr, "the run")
    for args in (["bridge", "show"], ["bridge", "show", "--json"]):
        shown = run_cli(*args, "--dir", str(plan), cwd=git_repo)
        assert shown.returncode == 0, shown.stderr
        _clean(shown.stdout, " ".join(args))
        assert "52;c;cHduZWQ=" in shown.stdout  # the text is there, escaped


@pytest.mark.parametrize(
    ("text", "seen"),
    [
        ("plain text, a tab\tand lines\nkept\r\n", "plain text, a tab\tand lines\nkept\r\n"),
        ("\x1b[2J", "\\x1b[2J"),
        ("\x1b]52;c;cHduZWQ=\x07", "\\x1b]52;c;cHduZWQ=\\x07"),
        ("ok\rFAILED", "ok\\x0dFAILED"),
        ("\x9b2J \x9d0;title\x9c", "\\x9b2J \\x9d0;title\\x9c"),
        ("abc\u202edcba", "abc\\u202edcba"),
        ("\x00\x7f\x08", "\\x00\\x7f\\x08"),
        ("ünïcode — ✓", "ünïcode — ✓"),
    ],
)
def test_29_16_shown_escapes_what_a_terminal_acts_on(text: str, seen: str) -> None:
    from executor.console import shown

    assert shown(text) == seen
