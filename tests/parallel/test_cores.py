"""Lanes share the machine's cores for their test runs (`executor.cores`): with every
slot held, a lane's test run waits, says so, and `executor status` shows it; given back,
the run finishes. Agents need no core: `--parallel N` is never cut to the cores."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from executor.cores import FOLDER
from tests import forkserver
from tests.conftest import run_cli
from tests.parallel.helpers import PLAN, agent, make_project, make_solutions, simple, subjects

pytestmark = pytest.mark.slow


def test_a_lanes_test_run_waits_for_a_core_and_status_says_so(
    git_repo: Path, tmp_path: Path
) -> None:
    sessions = [simple(1, "alpha"), simple(2, "beta")]
    make_project(git_repo, sessions)
    slots = git_repo / ".git" / FOLDER
    slots.mkdir()
    held = []
    for k in range(os.cpu_count() or 1):  # every core taken, as by other test runs
        fd = os.open(slots / f"core-{k}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        held.append(fd)
    run = forkserver.popen(
        [sys.executable, "-m", "executor", "execute-plan", "--plan", PLAN, "--parallel",
         "4", "--yes", "--agent-command", agent(make_solutions(tmp_path, sessions))],
        cwd=git_repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not list(slots.glob("waiting-session-*")):
            time.sleep(0.1)
        assert list(slots.glob("waiting-session-*")), "no lane waited for a core"
        status = run_cli("status", "--plan", PLAN, cwd=git_repo)
        assert "its test run waiting for a core" in status.stdout, status.stdout
    finally:
        for fd in held:
            os.close(fd)
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, out + err
    assert "waiting for a core" in out + err
    assert "--parallel 4: at most" not in out + err  # never cut to the cores
    assert sorted(subjects(git_repo)[:2]) == ["feat(tools): Alpha", "feat(tools): Beta"]
    assert not list(slots.glob("waiting-session-*"))
