"""Parallel runs of real plans: sessions side by side in worktrees, integrated one at a time
in plan order (real git, real pytest, the stand-in agent as a subprocess)."""

from __future__ import annotations

import json
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
    state,
    subjects,
    worktrees,
)

pytestmark = pytest.mark.slow


def test_a_wave_of_independent_sessions_runs_side_by_side(git_repo: Path, tmp_path: Path) -> None:
    specs = [simple(1, "alpha"), simple(2, "beta"), simple(3, "gamma")]
    plan = make_project(git_repo, specs)
    log = tmp_path / "calls.jsonl"
    # each RED call waits at a barrier until all three sessions reached it: a run that
    # does not run them at once never gets past it
    command = agent(make_solutions(tmp_path, specs), record=log, barrier=tmp_path / "b", expect=3)
    proc = run_cli(
        "execute-plan", "--plan", PLAN, "--parallel", "3", "--force-parallel", "--yes",
        "--agent-command", command, cwd=git_repo,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # one commit per session on main, in plan order, linear
    assert subjects(git_repo)[:3] == [
        "feat(tools): Gamma",
        "feat(tools): Beta",
        "feat(tools): Alpha",
    ]
    assert git(git_repo, "rev-list", "--merges", "HEAD").strip() == ""
    for n in (1, 2, 3):
        body = git(git_repo, "log", "-1", "--format=%B", f"HEAD~{3 - n}")
        assert f"Agent-Step: session-{n}" in body
    # each session ran in its own worktree, as its own worker with its own ports
    calls = records(log)
    where = {c["session"]: c for c in calls if c["step"] == "red"}
    assert {where[n]["worker"] for n in (1, 2, 3)} == {"0", "1", "2"}
    assert len({where[n]["port_base"] for n in (1, 2, 3)}) == 3
    assert {Path(where[n]["cwd"]).name for n in (1, 2, 3)} == {
        "session-1",
        "session-2",
        "session-3",
    }
    assert all(".executor-worktrees" in where[n]["cwd"] for n in (1, 2, 3))
    # clean and integrated: worktrees and branches are gone, the checkout is clean
    assert worktrees(git_repo) == [str(git_repo)]
    assert branches(git_repo) == ["main"]
    assert git(git_repo, "status", "--porcelain") == ""
    data = state(plan)
    assert data["status"] == "completed"
    assert "lanes" not in data["run"]
    assert [e["commit_hash"] for e in data["phases"][0]["sessions"]] == [
        git(git_repo, "rev-parse", f"HEAD~{3 - n}").strip() for n in (1, 2, 3)
    ]
    # each session's transcript and record came back to the plan folder
    assert (plan / ".agent-logs" / "s2.red.a1.f0.log").exists()
    assert json.loads((plan / ".agent-sessions" / "session-3.json").read_text())["commit_hash"] == (
        git(git_repo, "rev-parse", "HEAD").strip()
    )


def test_a_dependency_chain_crosses_waves(git_repo: Path, tmp_path: Path) -> None:
    chained = simple(3, "gamma", deps=[1])
    chained.test = (
        "from alpha import alpha\nfrom gamma import gamma\n\n\ndef test_gamma() -> None:\n"
    )
    chained.test += "    assert gamma() == alpha().replace('alpha', 'gamma')\n"
    specs = [simple(1, "alpha"), simple(2, "beta"), chained]
    plan = make_project(git_repo, specs)
    log = tmp_path / "calls.jsonl"
    proc = run_cli(
        "execute-plan", "--plan", PLAN, "--parallel", "2", "--yes",
        "--agent-command", agent(make_solutions(tmp_path, specs), record=log), cwd=git_repo,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert subjects(git_repo)[:3] == [
        "feat(tools): Gamma",
        "feat(tools): Beta",
        "feat(tools): Alpha",
    ]
    # session 3 started only once session 1 was integrated, from a tip that holds it
    order = [(c["session"], c["step"]) for c in records(log)]
    assert order.index((3, "red")) > order.index((1, "green"))
    s3 = json.loads((plan / ".agent-sessions" / "session-3.json").read_text())
    alpha = git(git_repo, "rev-parse", "HEAD~2").strip()
    assert git(git_repo, "merge-base", "--is-ancestor", alpha, s3["base_commit"]) == ""
    assert "integrated into main" in proc.stdout
    status = json.loads(run_cli("status", "--plan", PLAN, "--json", cwd=git_repo).stdout)
    assert status["status"] == "completed"
    assert status["parallel"]["width"] == 2 and status["parallel"]["lanes"] == []
