"""End to end: real git repos, real pytest runs, the replay agent as a subprocess.

The workflow's every edge is tested in-process (tests/engine/test_workflow.py); these
prove the real thing: the installed CLI, real pytest runs and a real agent process.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git, run_cli
from tests.engine.helpers import (
    commits,
    make_project,
    records,
    replay_cmd,
    session_state,
)

pytestmark = pytest.mark.slow


def test_phase_completes_one_commit_per_session(git_repo: Path) -> None:
    plan = make_project(git_repo)
    proc = run_cli(
        "execute-phase",
        "1",
        "--plan",
        str(plan),
        "--yes",
        "--agent-command",
        replay_cmd(),
        cwd=git_repo,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    log = commits(git_repo)
    assert log[:2] == ["feat(ledger): Balances", "feat(ledger): Ledger Models"]
    assert len(log) == 4  # initial, plan, two sessions
    body = git(git_repo, "log", "-1", "--format=%B", "HEAD~1")
    assert "Session 1 complete." in body
    assert "Agent-Step: session-1" in body and "Agent-Run: " in body
    s1 = session_state(plan, 1)
    assert s1["step"] == "done"
    assert s1["commit_hash"] == git(git_repo, "rev-parse", "HEAD~1").strip()
    assert s1["tests_passing"] == s1["tests_written"] and s1["tests_passing"] >= 3
    assert s1["red"]["files"] == ["tests/test_models.py"]
    assert "3" not in records(plan)  # not started: no record
    # the executor's own files never dirty the tree nor enter a commit
    assert git(git_repo, "status", "--porcelain") == ""
    assert ".agent-state.json" not in git(git_repo, "log", "--name-only", "--format=")
    status = run_cli("status", "--plan", str(plan), "--json", cwd=git_repo)
    data = json.loads(status.stdout)
    assert [s["status"] for s in data["phases"][0]["sessions"]] == ["completed", "completed"]
