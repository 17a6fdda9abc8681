"""`executor status` through the real CLI: what a person sees when there is little to see."""

from __future__ import annotations

from pathlib import Path

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


def test_outside_a_git_repository_the_run_asks_for_git_init_and_status_says_so(
    tmp_path: Path,
) -> None:
    from tests.engine.helpers import PLAN_SRC

    plan = tmp_path / "project" / "plan"
    plan.mkdir(parents=True)
    for md in PLAN_SRC.glob("*.md"):
        (plan / md.name).write_bytes(md.read_bytes())
    run = run_cli("execute-plan", "--yes", "--plan", str(plan), cwd=tmp_path)
    assert run.returncode == 64, run.stderr  # something to set up first, not a missing path
    assert "is not inside a git repository (run `git init` there, or pass --repo)" in run.stderr
    status = run_cli("status", "--plan", str(plan), cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    assert "next: the plan is not inside a git repository: run git init" in status.stdout
    assert not (plan / ".agent-state.json").exists()
