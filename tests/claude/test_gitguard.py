"""Reading a Bash command line for git commands that commit, push or move history."""

from __future__ import annotations

import pytest

from executor.claude.gitguard import forbidden_git


@pytest.mark.parametrize(
    ("command", "found"),
    [
        ("git commit -m wip", ["git commit"]),
        ("git add -A && git commit -qm 'a; b'", ["git commit"]),
        ("git -C sub commit --amend", ["git commit"]),
        ("git -C sub -c user.name=x commit --amend", ["git -c (an option that runs a program)"]),
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


@pytest.mark.parametrize(
    ("command", "found"),
    [
        # issue 29, finding 9: what the list of forbidden subcommands let through
        ("if git diff --quiet; then git push; fi", ["git push"]),
        ("for b in a c; do git push origin $b; done", ["git push"]),
        ("{ git commit -qm wip; }", ["git commit"]),
        ("find . -name x -exec git push \\;", ["git push"]),
        ("git $(echo commit) -qm x", ["git $ (a subcommand it cannot read)"]),
        ("git filter-branch --tree-filter 'rm -f x' HEAD", ["git filter-branch"]),
        ("git branch -f executor/session-2 HEAD", ["git branch -f"]),
        ("git worktree remove --force .executor-worktrees/session-2", ["git worktree remove"]),
        # and more of the same kind
        ("f() { git push; }; f", ["git push"]),
        ("! git push", ["git push"]),
        ("xargs -n1 git push < remotes", ["git push"]),
        ('echo "$(git push)"', ["git push"]),
        ('cd "$(git rev-parse --show-toplevel || echo .)"', []),
        ('git pull origin "$(git branch --show-current)"', ["git pull"]),
        ("bash <<< 'git push'", ["git push"]),
        ("echo 'git push' | sh", ["git push"]),
        ('eval "git push"', ["git push"]),
        ("sudo -u me sh -c 'git push'", ["git push"]),
        ("G=git; $G push", ["$G (a program named by an expansion: it cannot tell which)"]),
        ("$(which git) push", ["$(...) (a program named by an expansion: it cannot tell which)"]),
        ("g''it commit", ["git commit"]),
        ("\\git commit", ["git commit"]),
        ("GIT push", ["git push"]),
        ("/usr/lib/git-core/git-push origin", ["git push"]),
        ("git log#; git push", ["git log#", "git push"]),
        ("git st", ["git st"]),
        ("git tag v1", ["git tag v1 (it makes or moves a ref)"]),
        ("git branch new-branch", ["git branch new-branch (it makes or moves a ref)"]),
        ("git branch -D old", ["git branch -D"]),
        ("git stash", ["git stash"]),
        ("git config core.hooksPath x", ["git config (other than reading it)"]),
        ("git reflog expire --all", ["git reflog expire"]),
        ("git update-ref -d refs/heads/x", ["git update-ref"]),
        ("git notes add -m x", ["git notes add"]),
        ("git symbolic-ref HEAD refs/heads/x", ["git symbolic-ref (other than reading it)"]),
        ("git clean -fdx", ["git clean"]),
        ("git bisect start", ["git bisect"]),
        ("git replace HEAD HEAD~1", ["git replace"]),
        ("git gc --prune=now", ["git gc"]),
        ("git fetch origin", ["git fetch"]),
        ("git push --dry-run", ["git push"]),
        (
            "git log --oneline -1 'unclosed",
            ["a command line that names git and that it cannot read (an unclosed quote)"],
        ),
        # what a builder reads with, and lines that only mention git
        ("git branch -a && git branch --list 'executor/*' && git branch -vv", []),
        ("git tag -l && git stash list && git worktree list && git remote -v", []),
        ("git config --get user.name; git reflog -5 --oneline; git symbolic-ref HEAD", []),
        ("git log --format=%H -1 && git rev-parse --show-toplevel", []),
        ("echo $(git rev-parse HEAD)", []),
        ("git diff HEAD -- x.py | head -50", []),
        ("git add -A && git rm -q --cached x && git mv a b", []),
        ("cat docs/git-notes.md .gitignore", []),
        ("pip install gitpython && apt-get install -y git", []),
        ("grep -rn 'git push' docs", []),
        ('for f in tests/*.py; do python "$f"; done', []),
    ],
)
def test_29_09_only_reading_git_passes(command: str, found: list[str]) -> None:
    """Issue 29, finding 9: the guard allows a short list of git commands that read (and
    stage) and refuses everything else, wherever git stands in the line, and what it
    cannot read when git may be in it."""
    assert forbidden_git(command) == found
