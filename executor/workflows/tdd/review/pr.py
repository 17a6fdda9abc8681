"""One pull request per phase (`executor pr N`, or `--pr` at the end of each phase of a
run): the phase's commits pushed as they are to a branch of their own, never forced, and
a pull request opened with GitHub's `gh`, the phase's markdown report as its body.

Everything that can refuse is asked first (the phase is finished, `gh` is installed and
logged in, the remote exists, the commits are one line of history): when one refuses,
nothing was pushed and nothing was opened. A pull request already open for the branch
gets the new report as its body instead of a second one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from executor import fsutil
from executor.errors import GitCommandError, PullRequestError
from executor.workflows.tdd.record.state import FINISHED, RunState
from executor.workflows.tdd.review.build import load_state, review
from executor.workflows.tdd.review.markdown import GITHUB_BODY, markdown

#: Seconds one `gh` call may take (it talks to GitHub).
GH_TIMEOUT = 120
NOTHING = "Nothing was pushed and no pull request was opened."


@dataclass
class Opened:
    """The pull request: its address (as gh printed it), and whether it was open already."""

    url: str
    updated: bool


def branch_name(project: str, phase: int) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", project.lower()).strip("-") or "plan"
    return f"executor/{slug}/phase-{phase}"


def gh_program(cwd: Path) -> str:
    """`gh` on PATH, logged in; PullRequestError saying what to set up first."""
    gh = shutil.which("gh")
    if gh is None:
        raise PullRequestError(
            "gh (GitHub's command line tool) is not installed here: install it "
            "(https://cli.github.com) and log in with `gh auth login`, then run the same "
            f"command again. {NOTHING}"
        )
    status = _gh(gh, ["auth", "status"], cwd)
    if status.returncode != 0:
        said = (status.stderr or status.stdout).strip().splitlines()
        why = f" ({said[-1].strip()})" if said else ""
        raise PullRequestError(
            f"gh is not logged in to GitHub{why}: run `gh auth login`, then the same "
            f"command again. {NOTHING}"
        )
    return gh


def phase_commits(state: RunState, phase: int) -> list[str]:
    """The commits of a finished phase, in plan order (PullRequestError when it is not
    finished, or made no commit)."""
    entry = next((p for p in state.phases if p.number == phase), None)
    if entry is None:
        known = ", ".join(str(p.number) for p in state.phases) or "none"
        raise PullRequestError(f"the plan has no phase {phase} (its phases: {known}). {NOTHING}")
    waiting = [s.number for s in entry.sessions if s.status not in FINISHED]
    if waiting:
        raise PullRequestError(
            f"phase {phase} is not finished: session(s) {', '.join(map(str, waiting))} "
            f"still to run (executor execute-phase {phase}). {NOTHING}"
        )
    commits = [
        s.commit_hash
        for s in entry.sessions
        if s.commit_hash and s.status == "completed" and not s.adopted
    ]
    if not commits:
        raise PullRequestError(f"phase {phase} made no commit to propose. {NOTHING}")
    return commits


def open_pr(
    named: Path, phase: int, *, remote: str = "origin", say: Callable[[str], None] = print
) -> Opened:
    """Push the finished phase's commits and open (or update) its pull request."""
    from executor.vcs import GitRepo

    layout, state = load_state(named)
    commits = phase_commits(state, phase)
    repo = GitRepo(Path(state.run.repo))
    gh = gh_program(repo.root)
    if remote not in repo.remotes():
        raise PullRequestError(
            f"the repository has no remote {remote!r} to push the phase to (git remote -v "
            f"lists them; add one with git remote add {remote} URL). {NOTHING}"
        )
    head = commits[-1]
    apart = [c[:12] for c in commits if repo.resolve(c) is None or not repo.is_ancestor(c, head)]
    if apart:
        raise PullRequestError(
            f"phase {phase}'s commits are not one line of history ending at {head[:12]} "
            f"({', '.join(apart)} is not below it, or is gone). {NOTHING}"
        )
    run = review(named, phase=phase)
    body = markdown(run, limit=GITHUB_BODY)
    body_file = fsutil.ensure_private_dir(layout.reports, inside=layout.folder) / (
        f"phase-{phase}.pr.md"
    )
    fsutil.atomic_write_text(body_file, body, fault="report")
    branch = branch_name(state.project_name, phase)
    try:
        repo.push_commit(remote, head, branch)
    except GitCommandError as e:
        raise PullRequestError(
            f"git refused to push phase {phase} to {remote} {branch} (never forced): {e}. "
            f"No pull request was opened."
        ) from None
    say(f"pushed {head[:12]} to {remote} {branch} ({len(commits)} session commit(s))")
    title = f"{state.project_name}: phase {phase}: {run.phase_names.get(phase, '')}".rstrip(": ")
    return _create_or_update(gh, repo.root, branch, title, body_file)


def _create_or_update(gh: str, root: Path, branch: str, title: str, body_file: Path) -> Opened:
    found = _gh(
        gh,
        ["pr", "list", "--head", branch, "--state", "open", "--json", "url", "--jq", ".[0].url"],
        root,
    )
    url = found.stdout.strip() if found.returncode == 0 else ""
    if url:
        edited = _gh(gh, ["pr", "edit", url, "--body-file", str(body_file)], root)
        _check(edited, "update the pull request's body")
        return Opened(url, updated=True)
    made = _gh(
        gh,
        ["pr", "create", "--head", branch, "--title", title, "--body-file", str(body_file)],
        root,
    )
    _check(made, "open the pull request")
    lines = made.stdout.strip().splitlines()
    return Opened(lines[-1] if lines else "", updated=False)


def _check(proc: subprocess.CompletedProcess[str], what: str) -> None:
    if proc.returncode != 0:
        said = (proc.stderr or proc.stdout).strip().splitlines()
        raise PullRequestError(
            f"gh could not {what}: {said[-1] if said else f'exit {proc.returncode}'} (the "
            f"branch was pushed; run the same command again once that is fixed)"
        )


def _gh(gh: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [gh, *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GH_TIMEOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "GH_PROMPT_DISABLED": "1"},
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return subprocess.CompletedProcess([gh, *args], 1, "", str(e))
