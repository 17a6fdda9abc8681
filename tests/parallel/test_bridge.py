"""Bridge mode with sessions side by side: one request pending per session, each in that
session's folder, all listed by `bridge show --all`; one `--resume` applies every answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, run_cli
from tests.engine.helpers import run_replay
from tests.parallel.helpers import (
    PLAN,
    branches,
    make_project,
    make_solutions,
    simple,
    state,
    subjects,
    worktrees,
)

pytestmark = pytest.mark.slow


def _pending(repo: Path) -> list[dict[str, Any]]:
    shown = run_cli("bridge", "show", "--all", "--dir", PLAN, "--json", cwd=repo)
    assert shown.returncode == 0, shown.stderr
    found: list[dict[str, Any]] = json.loads(shown.stdout)["pending"]
    return found


def _answer(repo: Path, solutions: Path, request: dict[str, Any]) -> None:
    """What a host does for one request, without continuing the run."""
    where = ["--request", request["request_file"], "--repo", request["context"]["repo"]]
    work = run_replay("--solutions", str(solutions), *where, cwd=repo)
    assert work.returncode == 0, work.stderr
    done = run_cli("bridge", "respond", "--dir", request["dir"], "--response", work.stdout.strip(),
                   cwd=repo)  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_bridge_mode_with_two_pending_requests(git_repo: Path, tmp_path: Path) -> None:
    specs = [simple(1, "alpha"), simple(2, "beta")]
    make_project(git_repo, specs)
    solutions = make_solutions(tmp_path, specs)
    run = ["execute-plan", "--plan", PLAN, "--parallel", "2", "--checkpoints", "none"]
    proc = run_cli(*run, cwd=git_repo)
    assert proc.returncode == 42, proc.stdout + proc.stderr
    assert "2 requests are waiting, one per session" in proc.stderr
    assert proc.stderr.count("NEED_AGENT: run agent 'backend-builder'") == 2
    first = _pending(git_repo)
    assert [(p["context"]["session"], p["context"]["tdd_step"]) for p in first] == [
        (1, "red"),
        (2, "red"),
    ]
    folders = [Path(p["dir"]) for p in first]
    assert folders == [git_repo / ".executor-worktrees" / f"session-{n}" / PLAN for n in (1, 2)]
    # every request names the command that continues the whole run, not its session
    assert all(p["context"]["resume"][:2] == ["execute-plan", "--plan"] for p in first)
    assert all("--resume" in p["context"]["resume"] for p in first)
    for request in first:
        _answer(git_repo, solutions, request)
    # one --resume applies both answers: both sessions moved on to their next request
    proc = run_cli(*run, "--resume", cwd=git_repo)
    assert proc.returncode == 42, proc.stdout + proc.stderr
    second = _pending(git_repo)
    assert [(p["context"]["session"], p["context"]["tdd_step"]) for p in second] == [
        (1, "green"),
        (2, "green"),
    ]
    assert not {p["request_id"] for p in first} & {p["request_id"] for p in second}
    for _ in range(10):
        for request in _pending(git_repo):
            _answer(git_repo, solutions, request)
        proc = run_cli(*run, "--resume", cwd=git_repo)
        if proc.returncode != 42:
            break
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert subjects(git_repo)[:2] == ["feat(tools): Beta", "feat(tools): Alpha"]
    assert git(git_repo, "rev-list", "--merges", "HEAD").strip() == ""
    assert worktrees(git_repo) == [str(git_repo)]
    assert branches(git_repo) == ["main"]
    assert state(git_repo / PLAN)["status"] == "completed"
    assert _pending(git_repo) == []


def test_a_host_that_answers_one_request_a_round_still_finishes(
    git_repo: Path, tmp_path: Path
) -> None:
    """A host written for one request at a time answers the last NEED_AGENT line's and
    continues with `bridge respond --resume`: the run asks the rest again, no emission
    cap is spent on requests nobody was asked to answer yet."""
    specs = [simple(1, "alpha"), simple(2, "beta")]
    make_project(git_repo, specs)
    solutions = make_solutions(tmp_path, specs)
    proc = run_cli("execute-plan", "--plan", PLAN, "--parallel", "2", "--checkpoints", "none",
                   cwd=git_repo)  # fmt: skip
    for _ in range(20):
        if proc.returncode != 42:
            break
        last = [ln for ln in proc.stderr.splitlines() if ln.startswith("NEED_AGENT")][-1]
        request_file = last.split(" in ", 1)[1].split(" ", 1)[0]
        request = json.loads(Path(request_file).read_text("utf-8"))
        work = run_replay("--solutions", str(solutions), "--request", request_file,
                       "--repo", request["context"]["repo"], cwd=git_repo)  # fmt: skip
        proc = run_cli("bridge", "respond", "--dir", str(Path(request_file).parent), "--response",
                       work.stdout.strip(), "--resume", cwd=git_repo)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert subjects(git_repo)[:2] == ["feat(tools): Beta", "feat(tools): Alpha"]


def _paid(repo: Path, solutions: Path, request: dict[str, Any], usd: float) -> None:
    """A host's answer that reports what the agent cost (in the response's metadata)."""
    where = ["--request", request["request_file"], "--repo", request["context"]["repo"]]
    work = run_replay("--solutions", str(solutions), *where, cwd=repo)
    assert work.returncode == 0, work.stderr
    answer = {"request_id": request["request_id"], "version": "1.0", "status": "success",
              "response": work.stdout.strip(), "metadata": {"cost_usd": usd}}  # fmt: skip
    Path(request["response_file"]).write_text(json.dumps(answer), encoding="utf-8")


def test_budgets_count_every_session_running_side_by_side(git_repo: Path, tmp_path: Path) -> None:
    specs = [simple(1, "alpha"), simple(2, "beta")]
    make_project(git_repo, specs)
    solutions = make_solutions(tmp_path, specs)
    run = ["execute-plan", "--plan", PLAN, "--parallel", "2", "--checkpoints", "none",
           "--budget-usd", "1"]  # fmt: skip
    assert run_cli(*run, cwd=git_repo).returncode == 42
    _one, two = _pending(git_repo)
    _paid(git_repo, solutions, two, 0.6)  # session 2's RED costs $0.60
    assert run_cli(*run, "--resume", cwd=git_repo).returncode == 42
    (one, two) = _pending(git_repo)
    _paid(git_repo, solutions, two, 0.0)  # its GREEN: nothing; it is integrated
    assert run_cli(*run, "--resume", cwd=git_repo).returncode == 42
    assert subjects(git_repo)[0] == "feat(tools): Beta"
    (one,) = _pending(git_repo)
    _paid(git_repo, solutions, one, 0.5)  # session 1's RED: $0.50
    proc = run_cli(*run, "--resume", cwd=git_repo)
    # session 1 alone spent $0.50 of $1; with session 2's $0.60 the budget is spent
    assert proc.returncode == 23, proc.stdout + proc.stderr
    assert "session 1 stopped: Budget spent before session 1's next agent call" in proc.stderr
    assert "$1.10 of the $1.00 budget" in proc.stderr
    assert "--budget-usd 2.00" in proc.stderr
    proc = run_cli(*run[:-1], "2", cwd=git_repo)
    for _ in range(5):
        if proc.returncode != 42:
            break
        for request in _pending(git_repo):
            _answer(git_repo, solutions, request)
        proc = run_cli(*run[:-1], "2", "--resume", cwd=git_repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert state(git_repo / PLAN)["run"]["spent"]["usd"] == 1.1
