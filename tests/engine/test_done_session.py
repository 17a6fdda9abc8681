"""`execute-session S` on a session already done, through the real CLI: one line says
it is done and by which commit and how to run it again, nothing runs, and the exit is 0
(what was asked for is complete); `--redo` runs it again."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, run_cli
from tests.engine.helpers import make_project, replay_cmd


def test_a_done_session_asked_again_says_so_with_its_commit(git_repo: Path) -> None:
    plan = make_project(git_repo)
    args = ["execute-session", "1", "--plan", str(plan), "--yes",
            "--agent-command", replay_cmd()]  # fmt: skip
    first = run_cli(*args, cwd=git_repo)
    assert first.returncode == 0, first.stdout + first.stderr
    head = git(git_repo, "rev-parse", "HEAD").strip()
    again = run_cli(*args, cwd=git_repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"session 1 is done (committed as {head[:12]}); nothing ran" in again.stdout
    assert "execute-session 1 --redo" in again.stdout
    assert "asking" not in again.stdout  # no agent was called
    assert git(git_repo, "rev-parse", "HEAD").strip() == head


def test_redo_undoes_the_last_sessions_commit_and_runs_it_again(git_repo: Path) -> None:
    plan = make_project(git_repo)
    args = ["--plan", str(plan), "--yes", "--agent-command", replay_cmd()]
    assert run_cli("execute-session", "1", *args, cwd=git_repo).returncode == 0
    assert run_cli("execute-session", "2", *args, cwd=git_repo).returncode == 0
    first, second = git(git_repo, "rev-parse", "HEAD~1", "HEAD").split()
    # only the last commit's session: what came after session 1 may build on it
    refused = run_cli("execute-session", "1", "--redo", *args, cwd=git_repo)
    assert refused.returncode == 64, refused.stdout + refused.stderr
    assert f"session 1's commit {first[:12]} is not the last commit" in refused.stderr
    assert git(git_repo, "rev-parse", "HEAD").strip() == second
    again = run_cli("execute-session", "2", "--redo", *args, cwd=git_repo)
    out = again.stdout + again.stderr
    assert again.returncode == 0, out
    assert f"its commit {second[:12]} is undone by" in out and "RED: asking" in out
    log = git(git_repo, "log", "--format=%s", "-3").splitlines()
    assert log[0] == "feat(ledger): Balances"
    assert log[1].startswith('Undo "feat(ledger): Balances" to redo session 2')
    assert log[2] == "feat(ledger): Balances"  # the earlier commit stays in history
    assert git(git_repo, "status", "--porcelain").strip() == ""
