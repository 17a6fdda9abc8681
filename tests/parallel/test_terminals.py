"""Two terminals, as seed 004 shows: `execute-session 1` in one and `execute-session 2` in
another work side by side (one writer at a time for the shared state, a lock per session,
a worktree each); a session whose dependency runs elsewhere waits for it, not started."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import git, run_cli
from tests.parallel.helpers import (
    PLAN,
    agent,
    branches,
    make_project,
    make_solutions,
    records,
    simple,
    start,
    state,
    subjects,
    worktrees,
)

pytestmark = pytest.mark.slow


def test_two_terminals_run_two_independent_sessions_side_by_side(
    git_repo: Path, tmp_path: Path
) -> None:
    specs = [simple(1, "alpha"), simple(2, "beta"), simple(3, "gamma", deps=[1])]
    # the project runs sessions in worktrees by default: plain execute-session does
    make_project(git_repo, specs, setup={".executor.toml": "parallel = 2\n"})
    log, hold = tmp_path / "calls.jsonl", tmp_path / "go"
    command = agent(make_solutions(tmp_path, specs), record=log, barrier=tmp_path / "b",
                    expect=2, hold=hold)  # fmt: skip
    flags = ["--plan", PLAN, "--yes", "--agent-command", command]
    one = start("execute-session", "1", *flags, cwd=git_repo)
    two = start("execute-session", "2", *flags, cwd=git_repo)
    deadline = time.monotonic() + 120
    # both got past the barrier only if both sessions' agents ran at the same time
    while {c["session"] for c in records(log) if c["step"] == "red"} != {1, 2}:
        assert time.monotonic() < deadline, "the two sessions did not both start"
        assert one.poll() is None and two.poll() is None, (one.poll(), two.poll())
        time.sleep(0.1)
    # a third terminal: session 3 needs session 1, which runs in the first one
    waits = run_cli("execute-session", "3", *flags, cwd=git_repo)
    assert waits.returncode == 22, waits.stdout + waits.stderr
    assert "session 3: waiting for session(s) 1 to complete" in waits.stderr
    assert ".executor-worktrees/session-1" in waits.stderr
    hold.touch()
    for proc in (one, two):
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, out + err
    assert set(subjects(git_repo)[:2]) == {"feat(tools): Alpha", "feat(tools): Beta"}
    assert git(git_repo, "rev-list", "--merges", "HEAD").strip() == ""
    workers = {c["session"]: c["worker"] for c in records(log) if c["step"] == "red"}
    assert workers[1] != workers[2]
    # now its dependency is integrated, session 3 runs
    three = run_cli("execute-session", "3", *flags, cwd=git_repo)
    assert three.returncode == 0, three.stdout + three.stderr
    assert subjects(git_repo)[0] == "feat(tools): Gamma"
    assert worktrees(git_repo) == [str(git_repo)]
    assert branches(git_repo) == ["main"]
    assert state(git_repo / PLAN)["status"] == "completed"
