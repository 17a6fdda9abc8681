"""Integration of parallel sessions that does not go through: a conflict, and a session
that passes alone and fails once integrated. Either is a checkpoint, the session is
blocked (never completed), and its work stays on its branch."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import git, run_cli
from tests.parallel.helpers import (
    PLAN,
    agent,
    branches,
    make_project,
    make_solutions,
    simple,
    state,
    subjects,
    worktrees,
)

pytestmark = pytest.mark.slow


def _status(repo: Path) -> dict[str, object]:
    proc = run_cli("status", "--plan", PLAN, "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    data: dict[str, object] = json.loads(proc.stdout)
    return data


def test_a_session_whose_integration_conflicts_is_blocked_then_resolved(
    git_repo: Path, tmp_path: Path
) -> None:
    one, two = simple(1, "alpha"), simple(2, "beta")
    one.extra = {"shared.py": "VALUE = 1\n"}  # both change a file neither lists
    two.extra = {"shared.py": "VALUE = 2\n"}
    make_project(git_repo, [one, two], setup={"shared.py": "VALUE = 0\n"})
    command = agent(make_solutions(tmp_path, [one, two]))
    run = ["execute-plan", "--plan", PLAN, "--parallel", "2", "--yes", "--agent-command", command]
    proc = run_cli(*run, cwd=git_repo)
    assert proc.returncode == 22, proc.stdout + proc.stderr
    assert "session 2: its commit conflicts with main" in proc.stderr
    assert "shared.py" in proc.stderr
    # main holds session 1 only; session 2 is blocked, never completed
    assert subjects(git_repo)[0] == "feat(tools): Alpha"
    assert (git_repo / "shared.py").read_text() == "VALUE = 1\n"
    data = _status(git_repo)
    rows = data["phases"][0]["sessions"]  # type: ignore[index]
    assert [r["status"] for r in rows] == ["completed", "blocked"]
    (lane,) = data["parallel"]["lanes"]  # type: ignore[index]
    assert lane["session"] == 2 and lane["status"] == "blocked"
    assert lane["conflicts"] == ["shared.py"]
    # its work stays on its branch; the worktree shows the conflict on main's tip
    assert "executor/session-2" in branches(git_repo)
    assert "Agent-Step: session-2" in git(
        git_repo, "log", "-1", "--format=%B", "executor/session-2"
    )
    conflicted = Path(lane["worktree"]) / "shared.py"
    assert "<<<<<<<" in conflicted.read_text()
    # a person resolves it there; the same command checks again and integrates it
    conflicted.write_text("VALUE = 12\n", encoding="utf-8")
    again = run_cli(*run, cwd=git_repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert subjects(git_repo)[:2] == ["feat(tools): Beta", "feat(tools): Alpha"]
    assert (git_repo / "shared.py").read_text() == "VALUE = 12\n"
    assert (git_repo / "beta.py").exists()
    assert worktrees(git_repo) == [str(git_repo)]
    assert branches(git_repo) == ["main"]
    assert state(git_repo / PLAN)["status"] == "completed"


def test_a_session_that_passes_alone_and_fails_integrated_is_a_checkpoint(
    git_repo: Path, tmp_path: Path
) -> None:
    one, two = simple(1, "alpha"), simple(2, "beta")
    one.files = ["alpha.py", "tests/test_alpha.py", "util.py"]
    one.extra = {"util.py": "def double(x: int) -> int:\n    return 3 * x\n"}  # breaks beta
    two.test += "\n\ndef test_double() -> None:\n    from util import double\n\n"
    two.test += "    assert double(2) == 4\n"
    make_project(
        git_repo, [one, two], setup={"util.py": "def double(x: int) -> int:\n    return 2 * x\n"}
    )
    command = agent(make_solutions(tmp_path, [one, two]))
    run = ["execute-plan", "--plan", PLAN, "--parallel", "2", "--checkpoints", "none",
           "--agent-command", command]  # fmt: skip
    proc = run_cli(*run, cwd=git_repo)
    # nobody at a terminal: the question goes to the bridge, in session 2's folder
    assert proc.returncode == 42, proc.stdout + proc.stderr
    assert "the whole suite fails on main with its commit" in proc.stdout
    shown = json.loads(run_cli("bridge", "show", "--all", "--dir", PLAN, "--json",
                               cwd=git_repo).stdout)  # fmt: skip
    (ask,) = shown["pending"]
    assert ask["kind"] == "human" and ask["context"]["session"] == 2
    assert [o["value"] for o in ask["context"]["options"]] == [
        "continue",
        "rerun",
        "abort",
        "pause",
    ]
    assert ".executor-worktrees/session-2/" in ask["request_file"]
    assert subjects(git_repo)[0] == "feat(tools): Alpha"
    rows = _status(git_repo)["phases"][0]["sessions"]  # type: ignore[index]
    assert [r["status"] for r in rows] == ["completed", "blocked"]
    # the person aborts it: backed up, removed, not started
    answer = run_cli("bridge", "respond", "--dir", ask["dir"], "--response", "abort", "--resume",
                     cwd=git_repo)  # fmt: skip
    assert answer.returncode == 1, answer.stdout + answer.stderr
    backup = re.search(r"refs/executor/backup/session-2-branch[\w-]+", answer.stderr)
    assert backup is not None, answer.stderr
    assert "Agent-Step: session-2" in git(git_repo, "log", "-1", "--format=%B", backup.group())
    assert subjects(git_repo)[0] == "feat(tools): Alpha"
    assert worktrees(git_repo) == [str(git_repo)]
    assert branches(git_repo) == ["main"]
    rows = _status(git_repo)["phases"][0]["sessions"]  # type: ignore[index]
    assert [r["status"] for r in rows] == ["completed", "not_started"]
