"""`executor status` through the real CLI: what a person sees when there is little to see."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import git, run_cli


def test_status_of_a_plan_without_sessions_says_so(git_repo: Path) -> None:
    plan = git_repo / "plan"
    plan.mkdir()
    (plan / "PHASE_1_NOTHING.md").write_text("# Phase 1: Nothing\n\nJust prose.\n", "utf-8")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "a plan with no sessions")
    proc = run_cli("status", "--plan", str(plan), cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    assert "the plan has no sessions to run" in proc.stdout
    assert f"executor plan validate {plan}" in proc.stdout


def test_shell_completion_completes_commands_and_their_options(tmp_path: Path) -> None:
    bash = {"_EXECUTOR_COMPLETE": "complete_bash"}
    commands = run_cli(cwd=tmp_path, env={**bash, "COMP_WORDS": "executor exe", "COMP_CWORD": "1"})
    assert commands.stdout.split() == ["execute-phase", "execute-session", "execute-plan"]
    words = {"COMP_WORDS": "executor execute-session 1 --check", "COMP_CWORD": "3"}
    options = run_cli(cwd=tmp_path, env={**bash, **words})
    assert options.stdout.split() == ["--checkpoints"]
    assert "--install-completion" in run_cli("--help", cwd=tmp_path).stdout


def test_status_speaks_the_seeds_words_and_counts_tests_red_could_not_collect(
    git_repo: Path,
) -> None:
    from tests.engine.helpers import make_project, replay_cmd, respond

    plan = make_project(git_repo)
    args = ["execute-session", "1", "--plan", str(plan), "--agent-command", replay_cmd()]
    assert run_cli(*args, cwd=git_repo).returncode == 42  # before_start
    respond(plan, git_repo, "approve")
    assert run_cli(*args, "--resume", cwd=git_repo).returncode == 42  # after_red
    shown = run_cli("status", "--plan", str(plan), cwd=git_repo)
    assert shown.returncode == 0, shown.stderr
    row = next(line for line in shown.stdout.splitlines() if "Ledger Models" in line)
    assert "awaiting_approval (after_red)" in row
    # RED failed at collection: its 12 test functions counted from the file, said so
    assert "0/12 (not collected)" in row
    assert "red_verify" not in shown.stdout and "_agent" not in row


def test_a_paused_plan_run_is_continued_by_one_command_and_timed_by_one_clock(
    git_repo: Path,
) -> None:
    """The pause, status and its JSON name the command that continues what was running
    (a plan run, not only its session 1), and the session's time at its checkpoint and in
    status is the same, in the same words."""
    import json

    from tests.engine.helpers import host_loop, make_project, replay_cmd

    plan = make_project(git_repo)
    seen: dict[str, str] = {}

    def answer(req: dict[str, Any]) -> str:
        if req["context"].get("checkpoint") != "session_complete":
            return "approve"
        seen["detail"] = req["context"]["detail"]
        return "pause"

    args = ["execute-plan", "--plan", str(plan), "--agent-command", replay_cmd(),
            "--checkpoints", "session"]  # fmt: skip
    paused = host_loop(args, repo=git_repo, plan=plan, answer=answer)
    assert paused.returncode == 20, paused.stderr
    go_on = f"executor execute-plan --plan {plan}"
    assert paused.stderr.rstrip().endswith(f"Continue with: {go_on}")
    shown = run_cli("status", "--plan", str(plan), cwd=git_repo)
    assert f"next: {go_on}  (with its saved options;" in shown.stdout
    data = json.loads(run_cli("status", "--plan", str(plan), "--json", cwd=git_repo).stdout)
    assert data["next"]["words"] == ["execute-plan"]
    [first] = [s for p in data["phases"] for s in p["sessions"] if s["number"] == 1]
    from executor.workflows.tdd.counts import duration

    took = duration(first["duration_seconds"])
    assert f"the session took {took} from its start to its commit." in seen["detail"]
    row = next(line for line in shown.stdout.splitlines() if "Ledger Models" in line)
    assert f" {took} " in row
    tests = f"{first['tests_passing']}/{first['tests_written']}"
    assert (
        f" {tests} " in row and f"Tests: {tests.replace('/', ' passing of ')};" in (seen["detail"])
    )
