"""The machine's cores, shared by the processes of one parallel run: a test run (a lane's
verification or mutation step, an integration's suite) holds one while it runs; an agent
call, which waits on a remote model, holds none. So `--parallel 4` on 2 cores has four
agents at work and at most two test runs at once.

A slot is a file locked with flock in the repository's git folder: a process that dies
gives its slot back with it, and nothing in the worktrees changes."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

#: How many test runs of a parallel run may run at once, set by the run for its lanes
#: (absent or 0: no limit).
CORES_ENV = "EXECUTOR_TEST_CORES"
#: The folder of the slots, in the repository's common git folder.
FOLDER = "executor-cores"


def limit() -> int:
    """The limit this process was given (0: none)."""
    given = os.environ.get(CORES_ENV, "")
    return int(given) if given.isdigit() else 0


def waiting_mark(git_common: Path, session: int) -> Path:
    """Where a lane says it waits for a core (what `executor status` reads)."""
    return git_common / FOLDER / f"waiting-session-{session}"


@contextlib.contextmanager
def core(
    git_common: Path, slots: int, *, mark: Path | None = None, waits: Callable[[], None]
) -> Iterator[None]:
    """Hold one of `slots` cores while the block runs (0 slots: no limit); `waits` is
    called once if every slot is taken, and `mark` exists while this waits."""
    if slots <= 0:
        yield
        return
    folder = git_common / FOLDER
    folder.mkdir(exist_ok=True)
    held, said = -1, False
    try:
        while held < 0:
            for k in range(slots):
                fd = os.open(folder / f"core-{k}.lock", os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                held = fd
                break
            else:
                if not said:
                    said = True
                    waits()
                    if mark is not None:
                        mark.touch()
                time.sleep(0.05)
    finally:
        if mark is not None and said:
            mark.unlink(missing_ok=True)
    try:
        yield
    finally:
        os.close(held)  # closing the descriptor gives the slot back
