"""The host's step after exit 42 stays light: what `executor bridge respond ... --resume`
(answer and continue, one process) imports, measured in a real process. Figures are in
benchmarks/, never here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.engine.helpers import make_project

#: What the step has no use for: the plan is cached (no markdown parser), no terminal
#: (rich, questionary), no commit (GitPython), no other command group's code.
HEAVY = (
    "rich",
    "questionary",
    "prompt_toolkit",
    "git",
    "markdown_it",
    "executor.cli.templates",
    "executor.templates",
    "executor.cli.claude",
    # a notification is sent only when a person is waited for (and a webhook is set)
    "executor.notify",
    "urllib.request",
    "http.client",
)

PROBE = """
import json, sys
from executor.cli import main
try:
    code = main(sys.argv[1:])
finally:
    loaded = sorted(m for m in {heavy!r} if m in sys.modules)
    print(json.dumps({{"loaded": loaded}}), file=sys.__stdout__)
sys.exit(code)
"""


@pytest.mark.parametrize("agent", [[], ["--agent", "bridge"]])
def test_resume_imports_no_heavy_library(git_repo: Path, agent: list[str]) -> None:
    plan = make_project(git_repo)
    first = run_cli("execute-session", "1", "--plan", str(plan), *agent, cwd=git_repo)
    assert first.returncode == 42
    code = PROBE.format(heavy=HEAVY)
    args = ["bridge", "respond", "--dir", str(plan), "--response", "approve", "--resume"]
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=git_repo,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 42, proc.stderr  # approved; RED's request is waiting now
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report == {"loaded": []}
    assert (plan / ".agent-plan-cache.json").exists()  # the plan was not parsed again
    assert json.loads((plan / ".agent-request.json").read_text("utf-8"))["agent_name"] != "human"


def test_help_and_errors_still_go_through_the_full_cli(git_repo: Path) -> None:
    proc = run_cli("execute-session", "--help", "--resume", cwd=git_repo)
    assert proc.returncode == 0 and "--checkpoints" in proc.stdout
    bad = run_cli("execute-session", "1", "--resume", "--checkpoints", "sometimes", cwd=git_repo)
    assert bad.returncode == 64 and "sometimes" in bad.stderr


def test_a_wait_for_a_person_without_a_webhook_loads_no_http_client(git_repo: Path) -> None:
    """The first run stops at before_start, a person's checkpoint: it notifies (bell and
    desktop, of which there are neither here), and imports no HTTP client for it."""
    plan = make_project(git_repo)
    heavy = ("urllib.request", "http.client", "ssl", "executor.notify")
    code = PROBE.format(heavy=heavy)
    args = ["execute-session", "1", "--plan", str(plan)]
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=git_repo,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 42, proc.stderr
    assert json.loads((plan / ".agent-request.json").read_text("utf-8"))["agent_name"] == "human"
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report == {"loaded": ["executor.notify"]}
