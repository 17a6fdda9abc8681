"""Test runs in bubblewrap (`executor.sandbox`): what code under test could do and the
checks after the run would find (`test_sealed.py`, run with `--sandbox off`) cannot
happen at all where bwrap works. The tests that need it are skipped where it does not."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from executor.sandbox import Sandbox, bubblewrap
from tests.conftest import run_cli
from tests.engine.helpers import commits, make_project
from tests.engine.test_sealed import GOOD, appended, hostile, run

pytestmark = pytest.mark.slow
needs_bwrap = pytest.mark.skipif(bubblewrap() is None, reason="bubblewrap does not work here")


@needs_bwrap
def test_code_under_test_cannot_write_the_plan(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    phase = "project-plans/ledger/PHASE_1_LEDGER_CORE.md"
    before = (git_repo / phase).read_text("utf-8")
    inject = appended(
        GOOD, f"\nimport pathlib\npathlib.Path({phase!r}).write_text('## Session 1: forged')\n"
    )
    out = run(plan, git_repo, hostile(tmp_path, "green", inject))
    assert out.startswith("16\n"), out
    assert "Read-only file system" in out
    assert (git_repo / phase).read_text("utf-8") == before


@needs_bwrap
def test_code_under_test_cannot_commit_or_forge_the_state(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    state = plan / ".agent-state.json"
    sneaky = appended(
        GOOD,
        "\nimport pathlib, subprocess\n"
        "subprocess.run(['git', 'commit', '-qam', 'sneaky', '--allow-empty'])\n"
        f"try:\n    pathlib.Path({str(state)!r}).write_text('{{}}')\n"
        "except OSError:\n    pass\n",
    )
    out = run(plan, git_repo, hostile(tmp_path, "green", sneaky))
    assert out.startswith("0\n"), out  # nothing got through, so nothing to undo
    assert commits(git_repo) == ["feat(ledger): Ledger Models", "add plan", "initial"]
    assert run_cli("status", "--plan", str(plan), cwd=git_repo).returncode == 0


ESCAPE = (
    "\nimport subprocess, sys\n"
    "subprocess.Popen(['setsid', 'sh', '-c', 'sleep 2; echo late > {late}'],\n"
    "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
)


@pytest.mark.parametrize(
    "sandbox",
    [pytest.param("auto", marks=needs_bwrap), "off"],
)
def test_a_process_that_leaves_its_group_dies_with_the_sandboxed_run(
    git_repo: Path, tmp_path: Path, sandbox: str
) -> None:
    """A process started with `setsid` ends with the test run: inside the sandbox with
    its process namespace; outside it, on Linux, because the executor is the subreaper
    such orphans are re-parented to, and kills them when the run ends (elsewhere it
    outlives the run: a documented limit)."""
    plan = make_project(git_repo)
    late = tmp_path / "late.txt"
    agent = hostile(tmp_path, "green", appended(GOOD, ESCAPE.format(late=late)))
    out = run(plan, git_repo, agent, "--sandbox", sandbox)
    assert out.startswith("0\n"), out
    escapes = sandbox == "off" and not sys.platform.startswith("linux")
    deadline = time.monotonic() + (15 if escapes else 3)
    while not late.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert late.exists() == escapes


def test_without_bubblewrap_a_command_runs_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("executor.sandbox.bubblewrap", lambda: None)
    assert Sandbox.of([Path("/x")]).wrap(["pytest", "-q"]) == ["pytest", "-q"]


@needs_bwrap
def test_the_paths_that_exist_are_bound_read_only() -> None:
    argv = Sandbox.of([Path("/etc"), Path("/etc")]).wrap(["true"])
    assert argv[-2:] == ["--", "true"]
    assert argv.count("--ro-bind-try") == 1 and "--unshare-pid" in argv
