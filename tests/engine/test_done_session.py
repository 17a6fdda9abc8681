"""`execute-session S` on a session already done, through the real CLI: one line says
it is done and by which commit, nothing runs, and the exit is 0 (what was asked for is
complete)."""

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
    assert "asking" not in again.stdout  # no agent was called
    assert git(git_repo, "rev-parse", "HEAD").strip() == head
