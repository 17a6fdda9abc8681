"""End to end: real git repos, real pytest runs, the replay agent as a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git, run_cli
from tests.engine.helpers import (
    commits,
    host_loop,
    make_project,
    replay_cmd,
    session_state,
    solutions_copy,
    state,
)


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
    assert "3" not in state(plan)["sessions"]  # not started: no record
    # the executor's own files never dirty the tree nor enter a commit
    assert git(git_repo, "status", "--porcelain") == ""
    assert ".agent-state.json" not in git(git_repo, "log", "--name-only", "--format=")
    status = run_cli("status", "--plan", str(plan), "--json", cwd=git_repo)
    data = json.loads(status.stdout)
    assert [s["status"] for s in data["phases"][0]["sessions"]] == ["completed", "completed"]


def test_wrong_implementation_is_retried_with_output_then_escalated(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    sol = solutions_copy(tmp_path)
    models = sol / "session-1" / "green" / "ledger" / "models.py"
    models.write_text(
        models.read_text("utf-8") + "\nraise RuntimeError('broken build')\n", encoding="utf-8"
    )
    proc = run_cli(
        "execute-session",
        "1",
        "--plan",
        str(plan),
        "--yes",
        "--max-retries",
        "1",
        "--agent-command",
        replay_cmd(sol),
        cwd=git_repo,
    )
    assert proc.returncode == 16, proc.stdout + proc.stderr
    assert "could not be verified after 1 automatic retries" in proc.stderr
    briefs = sorted((plan / ".agent-briefs").glob("s1.green.a2*.md"))
    assert briefs, "the retry got its own brief"
    assert "Why the previous attempt was rejected" in briefs[0].read_text("utf-8")
    assert len(commits(git_repo)) == 2
    assert session_state(plan, 1)["step"] == "green_escalated"


def test_agent_claiming_success_without_work_gets_no_commit(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    sol = solutions_copy(tmp_path)
    for f in (sol / "session-1" / "green").rglob("*"):
        if f.is_file():
            f.unlink()
    proc = run_cli(
        "execute-session",
        "1",
        "--plan",
        str(plan),
        "--yes",
        "--max-retries",
        "0",
        "--agent-command",
        replay_cmd(sol),
        cwd=git_repo,
    )
    assert proc.returncode == 16, proc.stdout + proc.stderr
    assert len(commits(git_repo)) == 2
    s1 = session_state(plan, 1)
    assert s1["step"] == "green_escalated" and s1["commit_hash"] is None


def test_red_that_already_passes_is_caught(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    sol = solutions_copy(tmp_path)
    import shutil

    shutil.copytree(sol / "session-1" / "green", sol / "session-1" / "red", dirs_exist_ok=True)
    proc = run_cli(
        "execute-session",
        "1",
        "--plan",
        str(plan),
        "--yes",
        "--agent-command",
        replay_cmd(sol),
        cwd=git_repo,
    )
    assert proc.returncode == 16, proc.stdout + proc.stderr
    assert "not RED" in proc.stderr
    assert session_state(plan, 1)["step"] == "red_escalated"
    assert len(commits(git_repo)) == 2


def test_bridge_mode_with_human_checkpoints(git_repo: Path) -> None:
    plan = make_project(git_repo)
    first = run_cli("execute-session", "1", "--plan", str(plan), cwd=git_repo)
    assert first.returncode == 42, first.stderr
    assert str(plan / ".agent-request.json") in first.stderr
    req = json.loads((plan / ".agent-request.json").read_text("utf-8"))
    assert req["agent_name"] == "human"
    assert req["context"]["checkpoint"] == "before_start"
    asked: list[str] = []

    def answer(r: dict[str, object]) -> str:
        ctx = r["context"]
        assert isinstance(ctx, dict)
        asked.append(str(ctx["checkpoint"]))
        if ctx["checkpoint"] == "after_red" and asked.count("after_red") == 1:
            return json.dumps({"decision": "request_changes", "feedback": "name tests clearly"})
        return "approve"

    proc = host_loop(
        ["execute-session", "1", "--plan", str(plan)],
        repo=git_repo,
        plan=plan,
        answer=answer,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert asked[0] == "before_start"
    assert asked.count("after_red") == 2 and "after_refactor" in asked
    briefs = list((plan / ".agent-briefs").glob("s1.red.a2*.md"))
    assert briefs and "name tests clearly" in briefs[0].read_text("utf-8")
    assert commits(git_repo)[0] == "feat(ledger): Ledger Models"
    assert not (plan / ".agent-request.json").exists()
    assert not (plan / ".agent-response.json").exists()
