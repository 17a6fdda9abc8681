"""`executor demo`: the example plan run end to end by the replay agent, no LLM needed.

A temporary git repository gets the shipped `ledger` plan under `project-plans/ledger/`;
every session runs RED → GREEN → REFACTOR with our own pytest runs, and is committed.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from executor.resources import data_path
from executor.runoptions import Overrides
from executor.workflows.tdd.runner.opening import RunRequest
from executor.workflows.tdd.runner.run import Runner, RunResult
from executor.workflows.tdd.runner.scope import PlanScope
from executor.workflows.tdd.session.context import Progress

GITIGNORE = "__pycache__/\n*.pyc\n.pytest_cache/\n"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)


def prepare_repo(target: Path) -> Path:
    """A fresh git repo at `target` with the example plan committed; returns the plan dir."""
    target.mkdir(parents=True, exist_ok=True)
    _git(target, "init", "-q", "-b", "main")
    for key, val in (
        ("user.name", "plan-executor demo"),
        ("user.email", "demo@example.invalid"),
        ("commit.gpgsign", "false"),
    ):
        _git(target, "config", key, val)
    (target / "README.md").write_text("# ledger\n\nBuilt by `executor demo`.\n", "utf-8")
    (target / ".gitignore").write_text(GITIGNORE, "utf-8")
    plan_dir = target / "project-plans" / "ledger"
    plan_dir.mkdir(parents=True)
    for md in sorted(data_path("plans", "examples", "ledger").glob("*.md")):
        shutil.copy2(md, plan_dir / md.name)
    _git(target, "add", "-A")
    _git(target, "commit", "-q", "-m", "Add the ledger plan")
    return plan_dir


def run_demo(
    target: Path | None,
    *,
    report: Callable[[str], None],
    interactive: bool = False,
    activity: Callable[[str], Progress] | None = None,
) -> tuple[RunResult, Path, list[str]]:
    """Build the demo; the run's result, the repository, and its `git log --oneline`.

    `interactive`: stop at every checkpoint for the person at this terminal (else every
    checkpoint is approved, as `--yes` does).
    """
    root = target or Path(tempfile.mkdtemp(prefix="executor-demo-")) / "ledger"
    plan_dir = prepare_repo(root)
    report(f"demo repository: {root}")
    agent = shlex.join(
        [
            sys.executable,
            "-m",
            "executor",
            "replay-agent",
            "--solutions",
            str(data_path("plans", "replay", "ledger")),
        ]
    )
    req = RunRequest(
        plan=plan_dir,
        scope=PlanScope(),
        repo=root,
        yes=not interactive,
        overrides=Overrides(agent_command=agent, checkpoints="all"),
        activity=activity,
    )
    result = Runner(req, report=report).execute()
    from executor.vcs import GitRepo

    return result, root, GitRepo(root).log_oneline()
