"""`executor pr N` and `--pr`: a finished phase's commits pushed to a local bare
repository (the remote) and its pull request opened by a stand-in `gh` on PATH that
records what it was asked (tests/review/standin_gh.py)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from executor.workflows.tdd.review.markdown import GITHUB_BODY
from tests.conftest import git, run_cli
from tests.review.helpers import agent_command, run_phase, tiny_project

BRANCH = "executor/calc/phase-1"
STANDIN = Path(__file__).with_name("standin_gh.py")


def bin_dir(tmp: Path, *, gh: bool) -> dict[str, str]:
    """An environment whose PATH holds git (and the stand-in gh when `gh`) only."""
    folder = tmp / ("bin-gh" if gh else "bin")
    folder.mkdir(exist_ok=True)
    git_program = shutil.which("git")
    assert git_program is not None
    (folder / "git").unlink(missing_ok=True)
    (folder / "git").symlink_to(git_program)
    if gh:
        script = folder / "gh"
        script.write_text(f"#!{sys.executable}\nimport runpy\n"
                          f"runpy.run_path({str(STANDIN)!r}, run_name='__main__')\n")  # fmt: skip
        script.chmod(0o755)
    return {"PATH": str(folder), "GH_RECORD": str(tmp / "gh.jsonl")}


def calls(tmp: Path) -> list[list[str]]:
    record = tmp / "gh.jsonl"
    if not record.exists():
        return []
    return [json.loads(line)["args"] for line in record.read_text("utf-8").splitlines()]


def remote_branches(remote: Path) -> dict[str, str]:
    out = git(remote, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads")
    return dict(tuple(line.split(" ", 1)) for line in out.splitlines())  # type: ignore[misc]


def finished(git_repo: Path, tmp: Path) -> tuple[Path, Path, str]:
    """A finished phase 1 and a bare repository as its `origin`: (plan, remote, commit)."""
    plan = tiny_project(git_repo)
    run_phase(git_repo, plan)
    remote = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", str(remote))
    git(git_repo, "remote", "add", "origin", str(remote))
    return plan, remote, git(git_repo, "rev-parse", "HEAD").strip()


def test_a_finished_phase_is_pushed_and_proposed_and_nothing_changes_when_gh_cannot(
    git_repo: Path, tmp_path: Path
) -> None:
    plan, remote, head = finished(git_repo, tmp_path)
    args = ["pr", "1", "--plan", str(plan)]

    no_gh = run_cli(*args, cwd=git_repo, env=bin_dir(tmp_path, gh=False))
    assert no_gh.returncode == 64
    assert "gh (GitHub's command line tool) is not installed here" in no_gh.stderr
    assert "Nothing was pushed and no pull request was opened." in no_gh.stderr
    assert remote_branches(remote) == {}

    env = bin_dir(tmp_path, gh=True)
    logged_out = run_cli(*args, cwd=git_repo, env={**env, "GH_LOGGED_OUT": "1"})
    assert logged_out.returncode == 64
    assert "gh is not logged in to GitHub (You are not logged into any GitHub hosts." in (
        logged_out.stderr
    )
    assert calls(tmp_path) == [["auth", "status"]] and remote_branches(remote) == {}

    opened = run_cli(*args, cwd=git_repo, env=env)
    assert opened.returncode == 0, opened.stderr
    assert remote_branches(remote) == {BRANCH: head}
    assert opened.stdout.splitlines() == [
        f"pushed {head[:12]} to origin {BRANCH} (1 session commit(s))",
        "pull request opened: https://github.com/someone/calc/pull/7",
    ]
    made = calls(tmp_path)[-1]
    body_file = Path(made[made.index("--body-file") + 1])
    assert made[:4] == ["pr", "create", "--head", BRANCH]
    assert made[made.index("--title") + 1] == "calc: phase 1: Arithmetic"
    body = body_file.read_text("utf-8")
    assert len(body) <= GITHUB_BODY and "## Session 1: Adder" in body
    assert "\\<script\\>" in body and "<script>" not in body.split("```")[0]
    assert body_file.parent == plan / ".agent-reports"

    again = run_cli(*args, cwd=git_repo, env={**env, "GH_OPEN_PR": "https://x/pull/7"})
    assert again.returncode == 0, again.stderr
    assert calls(tmp_path)[-1] == ["pr", "edit", "https://x/pull/7", "--body-file", str(body_file)]
    assert "pull request updated: https://x/pull/7" in again.stdout


def test_a_push_git_refuses_is_never_forced(git_repo: Path, tmp_path: Path) -> None:
    plan, remote, head = finished(git_repo, tmp_path)
    git(git_repo, "push", "-q", "origin", f"{head}~1:refs/heads/other")
    elsewhere = git(remote, "rev-parse", "other").strip()
    (tmp_path / "x").mkdir()
    git(tmp_path / "x", "init", "-q", "-b", "main")
    (tmp_path / "x" / "f").write_text("other work\n", "utf-8")
    git(tmp_path / "x", "add", "f")
    git(tmp_path / "x", "commit", "-qm", "someone else's work")
    git(tmp_path / "x", "push", "-q", str(remote), f"main:{BRANCH}")
    theirs = remote_branches(remote)[BRANCH]
    proc = run_cli("pr", "1", "--plan", str(plan), cwd=git_repo, env=bin_dir(tmp_path, gh=True))
    assert proc.returncode == 64
    assert "git refused to push phase 1 to origin executor/calc/phase-1 (never forced)" in (
        proc.stderr
    )
    assert remote_branches(remote) == {BRANCH: theirs, "other": elsewhere}
    assert [c[:2] for c in calls(tmp_path)] == [["auth", "status"]]


def test_pr_of_a_phase_that_is_not_finished_or_not_run(git_repo: Path, tmp_path: Path) -> None:
    plan = tiny_project(git_repo)
    env = bin_dir(tmp_path, gh=True)
    proc = run_cli("pr", "1", "--plan", str(plan), cwd=git_repo, env=env)
    assert proc.returncode == 64 and "has not been run yet" in proc.stderr
    stopped = run_cli(
        "execute-phase", "1", "--plan", str(plan), "--agent-command",
        agent_command(tmp_path), "--yes", "--max-retries", "0", cwd=git_repo,
        env={"STANDIN_BROKEN": "1"},
    )  # fmt: skip
    assert stopped.returncode == 16
    proc = run_cli("pr", "1", "--plan", str(plan), cwd=git_repo, env=env)
    assert proc.returncode == 64
    assert "phase 1 is not finished: session(s) 1 still to run" in proc.stderr
    assert calls(tmp_path) == []


def test_pr_on_a_run_opens_the_phase_pull_request_at_its_end(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = tiny_project(git_repo)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(git_repo, "remote", "add", "origin", str(remote))
    env: dict[str, Any] = bin_dir(tmp_path, gh=True)
    env["PATH"] += os.pathsep + os.environ["PATH"]  # pytest for the session's tests
    without = bin_dir(tmp_path, gh=False)
    argv = ["execute-phase", "1", "--plan", str(plan), "--agent-command",
            agent_command(tmp_path), "--yes", "--pr"]  # fmt: skip
    refused = run_cli(*argv, cwd=git_repo, env=without)
    assert refused.returncode == 64 and "gh (GitHub's command line tool)" in refused.stderr
    assert not (plan / ".agent-state.json").exists()  # refused before anything ran

    proc = run_cli(*argv, cwd=git_repo, env=env)
    assert proc.returncode == 0, proc.stderr
    head = git(git_repo, "rev-parse", "HEAD").strip()
    assert remote_branches(remote) == {BRANCH: head}
    assert "pull request of phase 1 opened: https://github.com/someone/calc/pull/7" in proc.stdout
    assert [c[:2] for c in calls(tmp_path)] == [
        ["auth", "status"],
        ["auth", "status"],
        ["pr", "list"],
        ["pr", "create"],
    ]
    saved = json.loads((plan / ".agent-state.json").read_text("utf-8"))
    assert saved["run"]["options"]["pr"] is True


def test_pr_on_a_parallel_run_opens_it_once_the_run_is_over(git_repo: Path, tmp_path: Path) -> None:
    plan = tiny_project(git_repo)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(git_repo, "remote", "add", "origin", str(remote))
    env: dict[str, Any] = bin_dir(tmp_path, gh=True)
    env["PATH"] += os.pathsep + os.environ["PATH"]
    proc = run_cli(
        "execute-phase", "1", "--plan", str(plan), "--agent-command", agent_command(tmp_path),
        "--yes", "--pr", "--parallel", "2", "--force-parallel", cwd=git_repo, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert remote_branches(remote) == {BRANCH: git(git_repo, "rev-parse", "HEAD").strip()}
    assert "pull request of phase 1 opened: https://github.com/someone/calc/pull/7" in proc.stdout
