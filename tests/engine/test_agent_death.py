"""Issue 29, finding 14: an agent the executor started dies with it, and a run that
continues after a kill finds an agent a previous run left and stops it first: the real
CLI, SIGKILLed while its agent (a process with a child of its own) writes."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from executor.capture import _running  # whether a pid runs (no zombie): one reading
from tests import forkserver
from tests.conftest import run_cli
from tests.engine.helpers import commits, make_project, replay_cmd

pytestmark = pytest.mark.slow

#: An agent that never ends: it writes its pid, starts a child of its own (as an agent
#: CLI starts its tools), and both keep appending to a file.
AGENT = """\
import os, pathlib, subprocess, sys, time
marks = pathlib.Path(os.environ["MARKS"])
(marks / "agent.pid").write_text(str(os.getpid()))
loop = "import os, pathlib, time\\n" \\
    "p = pathlib.Path(os.environ['MARKS'])\\n" \\
    "(p / 'child.pid').write_text(str(os.getpid()))\\n" \\
    "while True:\\n" \\
    "    with open(p / 'written', 'a') as f: f.write('c')\\n" \\
    "    time.sleep(0.05)\\n"
subprocess.Popen([sys.executable, "-c", loop])
while True:
    with open(marks / "written", "a") as f:
        f.write("a")
    time.sleep(0.05)
"""


def _gone(pids: list[int], seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(_running(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def _start(
    plan: Path, repo: Path, marks: Path, agent: Path
) -> tuple[subprocess.Popen[str], list[int]]:
    """The CLI running session 1 with AGENT; once both agent processes write."""
    cli = forkserver.popen(
        [sys.executable, "-m", "executor", "execute-session", "1", "--plan", str(plan), "--yes",
         "--agent-command", shlex.join([sys.executable, str(agent)])],
        cwd=repo, env={**os.environ, "MARKS": str(marks)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if (marks / "agent.pid").exists() and (marks / "child.pid").exists():
            break
        time.sleep(0.05)
    else:
        cli.kill()
        pytest.fail("the agent never started: " + "".join(cli.communicate()))
    pids = [int((marks / n).read_text()) for n in ("agent.pid", "child.pid")]
    return cli, pids


def _kill(cli: subprocess.Popen[str], pids: list[int]) -> None:
    """Whatever a failed test left running."""
    with contextlib.suppress(OSError):
        cli.kill()
    cli.communicate()
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def setup(git_repo: Path, tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    plan = make_project(git_repo)
    marks = tmp_path / "marks"
    marks.mkdir()
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT, "utf-8")
    return git_repo, plan, marks, agent


def _wardens(cli: int) -> list[int]:
    """The processes the CLI started to watch its agents (children of it that are not
    the agent)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
            with open(f"/proc/{name}/stat", "rb") as fh:
                ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == cli and b"executor-warden" in argv:
            found.append(int(name))
    return found


def test_29_14_an_agent_dies_with_the_executor(setup: tuple[Path, Path, Path, Path]) -> None:
    """SIGKILL of the CLI left its agent (and the agent's own child) writing for ever;
    the next run started a second agent beside it."""
    repo, plan, marks, agent = setup
    cli, pids = _start(plan, repo, marks, agent)
    try:
        os.kill(cli.pid, signal.SIGKILL)
        cli.wait(timeout=30)
        assert _gone(pids), "the agent outlived the executor"
        size = (marks / "written").stat().st_size
        time.sleep(0.3)
        assert (marks / "written").stat().st_size == size  # nothing writes any more
    finally:
        _kill(cli, pids)


def test_29_14_a_run_stops_an_agent_a_killed_run_left_before_starting_one(
    setup: tuple[Path, Path, Path, Path],
) -> None:
    """Where nothing could stop it (its watcher killed with the executor), the next run
    finds the agent the previous run recorded, stops it and says so, then goes on."""
    repo, plan, marks, agent = setup
    cli, pids = _start(plan, repo, marks, agent)
    try:
        wardens = _wardens(cli.pid)
        assert wardens, "no watcher beside the agent"
        for pid in wardens:
            os.kill(pid, signal.SIGKILL)
        os.kill(cli.pid, signal.SIGKILL)
        cli.wait(timeout=30)
        time.sleep(0.3)
        assert all(_running(p) for p in pids)  # the agent survived this time
        again = run_cli("execute-session", "1", "--plan", str(plan), "--yes",
                        "--agent-command", replay_cmd(), cwd=repo, timeout=300)  # fmt: skip
        assert _gone(pids, 1), "the next run left the previous agent running"
        out = again.stdout + again.stderr
        assert "an agent the previous run started was still running" in out, out
        assert f"pid {pids[0]}" in out and "stopped" in out
        assert again.returncode == 0, out
        assert commits(repo)[0] == "feat(ledger): Ledger Models"
    finally:
        _kill(cli, pids)
