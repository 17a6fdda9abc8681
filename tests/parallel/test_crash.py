"""A parallel run killed mid-wave (SIGKILL: nothing of it runs its exit code) or stopped
with Ctrl+C: every session stops where it is, saved, and the next run takes each one up
again and finishes the plan with one commit per session."""

from __future__ import annotations

import json
import os
import signal
import subprocess
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


def _until(check: object, what: str, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _lane_lock(repo: Path, number: int) -> Path:
    return repo / ".executor-worktrees" / f"session-{number}" / PLAN / ".agent-state.lock"


def _held(lock: Path) -> bool:
    """A run holds it (it writes `pid@host` there while it does)."""
    return lock.exists() and bool(lock.read_text("utf-8").strip())


def _wave(git_repo: Path, tmp_path: Path) -> tuple[list[str], Path, Path]:
    specs = [simple(1, "alpha"), simple(2, "beta")]
    make_project(git_repo, specs)
    log, hold = tmp_path / "calls.jsonl", tmp_path / "go"
    command = agent(make_solutions(tmp_path, specs), record=log, hold=hold)
    run = ["execute-plan", "--plan", PLAN, "--parallel", "2", "--yes", "--agent-command", command]
    return run, log, hold


def _both_working(log: Path) -> bool:
    return {c["session"] for c in records(log) if c["step"] == "red"} == {1, 2}


def _finishes(git_repo: Path, run: list[str], log: Path) -> None:
    again = run_cli(*run, cwd=git_repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert subjects(git_repo)[:3] == ["feat(tools): Beta", "feat(tools): Alpha", "add plan"]
    assert git(git_repo, "rev-list", "--merges", "HEAD").strip() == ""
    # each RED was asked again after the stop (the first answer never came), nothing more
    reds = [c["session"] for c in records(log) if c["step"] == "red"]
    assert sorted(reds) == [1, 1, 2, 2]
    assert worktrees(git_repo) == [str(git_repo)]
    assert branches(git_repo) == ["main"]
    assert state(git_repo / PLAN)["status"] == "completed"


def test_kill_9_during_a_wave_then_resume(git_repo: Path, tmp_path: Path) -> None:
    run, log, hold = _wave(git_repo, tmp_path)
    proc = start(*run, cwd=git_repo)
    _until(lambda: _both_working(log), "both sessions' agents to start")
    assert _held(_lane_lock(git_repo, 1)) and _held(_lane_lock(git_repo, 2))
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    # with the run that drove them gone, each session's run saves and stops by itself
    _until(lambda: not _held(_lane_lock(git_repo, 1)) and not _held(_lane_lock(git_repo, 2)),
           "the sessions' own runs to stop")  # fmt: skip
    lanes = state(git_repo / PLAN)["run"]["lanes"]
    assert {n: lane["status"] for n, lane in lanes.items()} == {"1": "running", "2": "running"}
    hold.touch()
    _finishes(git_repo, run, log)


def test_ctrl_c_stops_every_session_and_saves_each(git_repo: Path, tmp_path: Path) -> None:
    run, log, hold = _wave(git_repo, tmp_path)
    proc = start(*run, cwd=git_repo)
    _until(lambda: _both_working(log), "both sessions' agents to start")
    agents = [c["pid"] for c in records(log)]
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, out + err
    assert "Interrupted: the run so far is saved in" in err
    assert not _held(_lane_lock(git_repo, 1)) and not _held(_lane_lock(git_repo, 2))
    for pid in agents:  # the agents were stopped with their sessions
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    for n in (1, 2):  # each session's own run saved where it stopped: its RED step
        lane = state(git_repo / ".executor-worktrees" / f"session-{n}" / PLAN)
        assert lane["run"]["sessions"][str(n)]["step"] == "red_agent"
    hold.touch()
    _finishes(git_repo, run, log)


def test_a_dirty_worktree_is_kept_and_listed_with_its_cleanup(
    git_repo: Path, tmp_path: Path
) -> None:
    specs = [simple(1, "alpha")]
    plan = make_project(git_repo, specs)
    run = ["execute-plan", "--plan", PLAN, "--parallel", "2", "--yes",
           "--agent-command", agent(make_solutions(tmp_path, specs))]  # fmt: skip
    # the run dies once session 1 is committed in its worktree, before it is integrated
    killed = run_cli(*run, cwd=git_repo, env={"EXECUTOR_FAULT": "lane.finished:kill"})
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    worktree = git_repo / ".executor-worktrees" / "session-1"
    (worktree / "notes.txt").write_text("my notes\n", encoding="utf-8")  # a person's file
    again = run_cli(*run, cwd=git_repo)
    assert again.returncode == 0, again.stdout + again.stderr
    # the commit is integrated; the worktree is not clean, so it stays, and its branch
    assert subjects(git_repo)[0] == "feat(tools): Alpha"
    assert not (git_repo / "notes.txt").exists()
    assert (worktree / "notes.txt").read_text() == "my notes\n"
    assert str(worktree) in worktrees(git_repo)
    assert "executor/session-1" in branches(git_repo)
    status = run_cli("status", "--plan", PLAN, cwd=git_repo)
    assert "session 1: integrated; its worktree" in status.stdout
    assert "notes.txt not clean" in status.stdout
    data = json.loads(run_cli("status", "--plan", PLAN, "--json", cwd=git_repo).stdout)
    (lane,) = data["parallel"]["lanes"]
    assert lane["status"] == "integrated" and lane["kept"] == ["notes.txt"]
    assert data["phases"][0]["sessions"][0]["status"] == "completed"
    # the command it gives removes both; the next run forgets the lane
    cleanup = subprocess.run(lane["cleanup"], shell=True, cwd=git_repo, capture_output=True,
                             text=True)  # fmt: skip
    assert cleanup.returncode == 0, cleanup.stderr
    assert run_cli(*run, cwd=git_repo).returncode == 0
    assert "lanes" not in state(plan)["run"]
    assert worktrees(git_repo) == [str(git_repo)] and branches(git_repo) == ["main"]
