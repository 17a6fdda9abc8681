"""Reading a Bash command line for git commands that commit, push or move history."""

from __future__ import annotations

import pytest

from executor.claude.gitguard import forbidden_git


@pytest.mark.parametrize(
    ("command", "found"),
    [
        ("git commit -m wip", ["git commit"]),
        ("git add -A && git commit -qm 'a; b'", ["git commit"]),
        ("git -C sub -c user.name=x commit --amend", ["git commit"]),
        ("GIT_AUTHOR_NAME=x git commit -m y", ["git commit"]),
        ("timeout 30 git push origin main", ["git push"]),
        ("env -i nice -n 5 /usr/bin/git push", ["git push"]),
        ("pytest -q; git stash && git reset --hard HEAD~1", ["git stash", "git reset"]),
        ("sh -c 'cd src && git commit -m x'", ["git commit"]),
        ('bash -lc "git rebase -i main"', ["git rebase"]),
        ("echo $(git commit -m sneaky)", ["git commit"]),
        ("echo `git push`", ["git push"]),
        ("git checkout -b other", ["git checkout"]),
        ("git --no-pager log --oneline -3", []),
        ("git status && git diff --stat && git add -A", []),
        ("git branch --show-current", []),
        ("pytest -q tests/test_models.py", []),
        ("echo 'git commit is something I do not run'", []),
        ("git commit", ["git commit"]),
        ("", []),
    ],
)
def test_forbidden_git(command: str, found: list[str]) -> None:
    assert forbidden_git(command) == found
