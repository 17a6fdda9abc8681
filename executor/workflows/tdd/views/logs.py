"""`executor logs`: a session's agent transcripts and test output, as the run writes them.

Both are files of the run folder's `.agent-logs/` (names: docs/engine.md, "Where files
live"); `follow` reads on as they grow and ends when the run is over: no live process
holds the run's lock and the log has not grown since. Nothing here writes or locks
anything, so a run that starts while `logs -f` reads takes its lock as usual.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from executor.engine.layout import Layout
from executor.errors import DataError
from executor.fsutil import lock_held
from executor.safe_read import parse_json, read_bounded

_NAME = re.compile(r"^s(?P<session>\d+)\.(?P<rest>.+)\.log$")
#: How often `follow` looks for more output.
POLL_SECONDS = 0.2
#: The most read of a log at once (a long transcript is shown from its end).
CHUNK_BYTES = 1024 * 1024
#: The most of the state read to find the current session.
_STATE_BYTES = 64_000_000


@dataclass(frozen=True)
class Log:
    path: Path
    session: int
    kind: Literal["agent", "tests", "mutants"]

    @property
    def mtime(self) -> float:
        try:
            return self.path.stat().st_mtime
        except OSError:
            return 0.0


def all_logs(layout: Layout, session: int | None = None) -> list[Log]:
    """The agent transcripts and test logs (of `session`, or all), oldest first."""
    try:
        entries = list(os.scandir(layout.logs))
    except OSError:
        return []
    found: list[Log] = []
    for entry in entries:
        match = _NAME.match(entry.name)
        if match is None or not entry.is_file(follow_symlinks=False):
            continue
        number = int(match["session"])
        if session is None or number == session:
            kind: Literal["agent", "tests", "mutants"] = (
                "mutants" if entry.name.endswith(".mutants.tests.log")
                else "tests" if entry.name.endswith(".tests.log") else "agent"
            )  # fmt: skip
            found.append(Log(Path(entry.path), number, kind))
    return sorted(found, key=lambda log: (log.mtime, log.path.name))


def current_session(layout: Layout) -> int | None:
    """The session the run is at (the state's `current_session`) when it has logs, else
    the one whose log was written last (the run finished it and has not started the next
    one); None when there are no logs."""
    try:
        state = parse_json(read_bounded(layout.state, _STATE_BYTES))
        number = state.get("current_session") if isinstance(state, dict) else None
    except (OSError, DataError):
        number = None
    logs = all_logs(layout)
    if any(log.session == number for log in logs):
        return int(number) if isinstance(number, int) else None
    return logs[-1].session if logs else None


def latest(logs: list[Log]) -> list[Log]:
    """The latest agent transcript and the latest of the session's own test runs among
    `logs` (a mutation run's is not one), oldest first."""
    own = (log for log in logs if log.kind != "mutants")
    newest = {log.kind: log for log in own}  # `logs` is oldest first: the last one wins
    return sorted(newest.values(), key=lambda log: (log.mtime, log.path.name))


def tail(path: Path, lines: int) -> tuple[bytes, int]:
    """The last `lines` lines of `path` (all of it for 0; at most CHUNK_BYTES), and the
    offset where reading on starts."""
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        start = max(0, size - CHUNK_BYTES)
        f.seek(start)
        data = f.read(size - start)
    if lines > 0:
        kept = data.splitlines(keepends=True)[-lines:]
        data = b"".join(kept)
    return data, size


@dataclass(frozen=True)
class Chunk:
    """Output to show: `opened` when it is the start of another log (a header first)."""

    log: Log
    data: bytes
    opened: bool = False


def follow(
    layout: Layout,
    session: int | None,
    start: Log | None,
    offset: int,
    *,
    poll: float = POLL_SECONDS,
) -> Iterator[Chunk]:
    """What the run writes from `offset` in `start` on, and then in each log it starts
    afterwards (of `session`, or of any session), until the run is over (module
    docstring)."""
    seen = {_identity(log) for log in all_logs(layout, session)}
    current, position = start, offset
    quiet_and_over = False
    while True:
        grew = False
        if current is not None:
            data, position = _read_from(current.path, position)
            if data:
                grew = True
                yield Chunk(current, data)
        fresh = [log for log in all_logs(layout, session) if _identity(log) not in seen]
        for log in fresh:  # oldest first: a short log that came and went is shown too
            seen.add(_identity(log))
            current, position, grew = log, 0, True
            data, position = _read_from(current.path, position)
            yield Chunk(current, data, opened=True)
        if not grew:
            if not lock_held(layout.lock):  # the run is over
                if quiet_and_over:
                    return
                quiet_and_over = True  # one more look: what it wrote as it ended
            else:
                quiet_and_over = False
        time.sleep(poll)


def _identity(log: Log) -> tuple[str, int]:
    """A log file as itself: a log written again under its name is a new one."""
    try:
        return log.path.name, log.path.stat().st_ino
    except OSError:
        return log.path.name, -1


def _read_from(path: Path, position: int) -> tuple[bytes, int]:
    try:
        with open(path, "rb") as f:
            f.seek(position)
            data = f.read(CHUNK_BYTES)
    except OSError:
        return b"", position
    return data, position + len(data)
