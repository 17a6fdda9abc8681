"""The exit-42 resume path stays light: what it imports, measured in a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.engine.helpers import make_project, respond

#: Libraries the resume path has no use for (pydantic it uses: the state is a model).
HEAVY = ("typer", "rich", "questionary", "prompt_toolkit", "git", "markdown_it")

PROBE = """
import json, sys
from executor.cli import main
try:
    code = main(sys.argv[1:])
finally:
    loaded = sorted(m for m in {heavy!r} if m in sys.modules)
    print(json.dumps({{"loaded": loaded, "typer_cli": "executor.cli.app" in sys.modules}}),
          file=sys.__stdout__)
sys.exit(code)
"""


@pytest.mark.parametrize("agent", [[], ["--agent", "bridge"]])
def test_resume_imports_no_heavy_library(git_repo: Path, agent: list[str]) -> None:
    plan = make_project(git_repo)
    first = run_cli("execute-session", "1", "--plan", str(plan), *agent, cwd=git_repo)
    assert first.returncode == 42
    respond(plan, git_repo, "approve")
    code = PROBE.format(heavy=HEAVY)
    args = ["execute-session", "1", "--plan", str(plan), *agent, "--resume"]
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=git_repo,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 42, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report == {"loaded": [], "typer_cli": False}
    assert (plan / ".agent-plan-cache.json").exists()  # the plan was not parsed again


def test_help_and_errors_still_go_through_the_full_cli(git_repo: Path) -> None:
    proc = run_cli("execute-session", "--help", "--resume", cwd=git_repo)
    assert proc.returncode == 0 and "--checkpoints" in proc.stdout
    bad = run_cli("execute-session", "1", "--resume", "--checkpoints", "sometimes", cwd=git_repo)
    assert bad.returncode == 64 and "sometimes" in bad.stderr
