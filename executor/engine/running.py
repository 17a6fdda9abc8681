"""The agent process a run has running: recorded beside the run, stopped by the next run.

An agent dies with the executor (`executor.capture`'s warden), unless the watcher was
killed too. So while an agent runs, `.agent-running.json` names its process, group,
session and start time; the next run of the folder, under its lock and before anything
else, stops what is left of that session, or refuses to run (LockedError) naming what it
cannot stop (docs/reliability.md, "What runs, what is read, what reaches you"). The start
time (Linux) tells the agent from a later process that got its number; elsewhere only the
process group is checked.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from pydantic import Field

from executor import fsutil
from executor.datamodel import Strict, dump, validate_json
from executor.engine.layout import RUNNING_NAME
from executor.errors import DataError, LockedError
from executor.safe_read import read_bounded
from executor.stamps import utc_now


class RunningAgent(Strict):
    """`.agent-running.json`: the agent a run has running."""

    schema_version: int = 1
    pid: int = Field(description="its first process; also its process group and session")
    started: int | None = Field(
        default=None, description="its start, in clock ticks since boot (Linux), else null"
    )
    command: str = Field(description="what it runs (cut at 300 characters)")
    executor: int = Field(description="the executor process that started it")
    at: str = Field(description="when it started (ISO 8601 UTC)")


def record(path: Path, pid: int, argv: Sequence[str]) -> None:
    """Write the record of the agent `pid` (just started) at `path`."""
    running = RunningAgent(
        pid=pid, started=_start_time(pid), command=shlex.join(argv)[:300],
        executor=os.getpid(), at=utc_now(),
    )  # fmt: skip
    fsutil.atomic_write_json(path, dump(running), fault="running")


def forget(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def stop_leftover(folder: Path) -> str | None:
    """Stop the agent a previous run of `folder` left running, if any; what to tell the
    person about it (None: nothing was running). LockedError when it cannot be stopped."""
    path = Path(folder) / RUNNING_NAME
    try:
        running = validate_json(RunningAgent, read_bounded(path, 64 << 10))
    except FileNotFoundError:
        return None
    except (DataError, ValueError):  # not ours, or torn: nothing to go by
        forget(path)
        return None
    members = _members(running)
    if not members:
        forget(path)
        return None
    try:
        os.killpg(running.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    except PermissionError:
        raise LockedError(
            f"an agent a previous run started is still running (pid {running.pid}: "
            f"{running.command}) and cannot be stopped by this user: stop it (kill -9 "
            f"-{running.pid}), then run again; {path} records it.",
            pid=running.pid,
            host=fsutil.host(),
        ) from None
    _wait_gone(members)
    forget(path)
    return (
        f"an agent the previous run started was still running (pid {running.pid}, "
        f"{len(members)} process(es): {running.command}); stopped it before going on"
    )


def _members(running: RunningAgent) -> list[int]:
    """The processes still there of the agent's session."""
    if not sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            if os.getpgid(running.pid) == running.pid:
                return [running.pid]
        return []
    found = []
    for name in _pids():
        stat = _stat(int(name))
        if stat is None:
            continue
        state, pgrp, session, started = stat
        if state == b"Z" or session != running.pid or pgrp != running.pid:
            continue
        if running.started is not None:
            if started < running.started:
                continue  # older than the agent: another session that got its number
            if int(name) == running.pid and started != running.started:
                continue
        found.append(int(name))
    return found


def _pids() -> list[str]:
    try:
        return [n for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return []


def _stat(pid: int) -> tuple[bytes, int, int, int] | None:
    """(state, process group, session, start time) of `pid` from /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return fields[0], int(fields[2]), int(fields[3]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def _start_time(pid: int) -> int | None:
    stat = _stat(pid) if sys.platform.startswith("linux") else None
    return stat[3] if stat is not None else None


def _wait_gone(pids: list[int], seconds: float = 5) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.02)


def _alive(pid: int) -> bool:
    if not sys.platform.startswith("linux"):
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    stat = _stat(pid)
    return stat is not None and stat[0] != b"Z"
