"""A repository with a real git submodule runs a plan in parallel (issue 29): each
session's worktree gets the submodule checked out as the main checkout has it (a session
there uses its code), and each commit keeps the submodule's entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, run_cli
from tests.engine.test_checkout import add_submodule, greeter
from tests.parallel.helpers import (
    PLAN,
    agent,
    branches,
    make_project,
    make_solutions,
    simple,
    subjects,
    worktrees,
)

pytestmark = pytest.mark.slow


def test_a_repository_with_a_submodule_runs_sessions_side_by_side(
    git_repo: Path, tmp_path: Path
) -> None:
    add_submodule(git_repo, tmp_path)
    before = git(git_repo, "ls-tree", "HEAD", "vendor/greeting")
    specs = [greeter(1), simple(2, "beta")]
    make_project(git_repo, specs)
    proc = run_cli("execute-plan", "--plan", PLAN, "--parallel", "2", "--yes", "--agent-command",
                   agent(make_solutions(tmp_path, specs)), cwd=git_repo)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert subjects(git_repo)[:2] == ["feat(tools): Beta", "feat(tools): Greet"]
    for commit in ("HEAD", "HEAD~1"):
        assert git(git_repo, "ls-tree", commit, "vendor/greeting") == before
    assert worktrees(git_repo) == [str(git_repo)] and branches(git_repo) == ["main"]
    assert git(git_repo, "status", "--porcelain") == ""
