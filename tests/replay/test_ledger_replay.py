"""The shipped ledger replay really goes RED -> GREEN -> REFACTOR, session by session.

A real git repository in tmp_path gets the demo plan, then for sessions 1..4 the real
`executor replay-agent` subprocess applies each step and a real pytest run checks it:
RED fails (with failing or uncollectable tests, never an empty run), GREEN passes the
whole suite with >= 3 tests in the session's file, REFACTOR changes code and still passes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from executor.resources import data_path
from tests.conftest import git, run_cli

SOLUTIONS = data_path("plans", "replay", "ledger")
PLAN = data_path("plans", "examples", "ledger")
SESSION_TESTS = {
    1: "tests/test_models.py",
    2: "tests/test_balance.py",
    3: "tests/test_report.py",
    4: "tests/test_cli.py",
}

pytestmark = pytest.mark.slow


@dataclass
class Run:
    returncode: int
    tests: int
    failed: int
    per_file: dict[str, int]
    output: str


def _pytest(repo: Path, junit: Path, *args: str) -> Run:
    """A real pytest run from the repository root, as the engine runs it."""
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={junit}",
            *args,
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    root = ET.parse(junit).getroot()
    cases = list(root.iter("testcase"))
    failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
    per_file: dict[str, int] = {}
    for case in cases:
        if case.find("error") is None:
            name = case.get("classname", "").replace(".", "/") + ".py"
            per_file[name] = per_file.get(name, 0) + 1
    return Run(proc.returncode, len(cases), failed, per_file, proc.stdout + proc.stderr)


def _agent(repo: Path, session: int, step: str) -> str:
    proc = run_cli(
        "replay-agent",
        cwd=repo,
        env={"EXECUTOR_SESSION": str(session), "EXECUTOR_TDD_STEP": step, "EXECUTOR_ATTEMPT": "1"},
        input=f"prompt for session {session} {step}\n",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"replay-agent (not an AI): session {session} {step}: wrote ")
    return proc.stdout


def _changed(repo: Path) -> list[str]:
    lines = git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    return sorted(line[3:] for line in lines)


def test_shipped_replay_goes_red_green_refactor_for_every_session(
    git_repo: Path, tmp_path: Path
) -> None:
    shutil.copytree(PLAN, git_repo / "project-plans" / "ledger")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "plan")
    junit = tmp_path / "junit.xml"
    suite_size = 0

    for session, test_file in SESSION_TESTS.items():
        _agent(git_repo, session, "red")
        assert _changed(git_repo) == [test_file], f"RED of session {session} wrote more than tests"
        red = _pytest(git_repo, junit, test_file)
        assert red.returncode in (1, 2), f"session {session} RED did not fail:\n{red.output}"
        assert red.failed >= 1, red.output  # failing tests or a collection error, never empty
        assert "ModuleNotFoundError" in red.output or red.per_file.get(test_file, 0) >= 3

        _agent(git_repo, session, "green")
        green = _pytest(git_repo, junit)
        assert green.returncode == 0, f"session {session} GREEN failed:\n{green.output}"
        assert green.failed == 0
        assert green.per_file[test_file] >= 3
        assert green.tests > suite_size
        suite_size = green.tests
        git(git_repo, "add", "-A")
        git(git_repo, "commit", "-q", "-m", f"session {session} green")

        _agent(git_repo, session, "refactor")
        modified = _changed(git_repo)
        assert modified, f"session {session} REFACTOR changed nothing"
        assert not any(path.startswith("tests/") for path in modified), modified
        refactor = _pytest(git_repo, junit)
        assert refactor.returncode == 0, f"session {session} REFACTOR broke:\n{refactor.output}"
        assert refactor.tests == suite_size
        git(git_repo, "add", "-A")
        git(git_repo, "commit", "-q", "-m", f"session {session} refactor")

    assert suite_size >= 4 * 3
    cli = subprocess.run(
        [sys.executable, "-m", "ledger.cli", "check", "missing.json"],
        cwd=git_repo,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 1
    assert "missing.json" in cli.stderr


@pytest.mark.parametrize("session", sorted(SESSION_TESTS))
def test_every_session_has_red_green_and_refactor_prepared(session: int) -> None:
    folder = SOLUTIONS / f"session-{session}"
    red = sorted(
        p.relative_to(folder / "red").as_posix() for p in (folder / "red").rglob("*") if p.is_file()
    )
    assert red == [SESSION_TESTS[session]]
    for step in ("green", "refactor"):
        files = [p for p in (folder / step).rglob("*") if p.is_file()]
        assert files, f"session {session} has no {step} files"
        assert all(
            p.suffix == ".py" and p.relative_to(folder / step).parts[0] == "ledger" for p in files
        )
