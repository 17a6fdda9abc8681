"""Ctrl+C and SIGTERM: a KeyboardInterrupt raised where Python code can take it, never
inside a validator pydantic is building.

SIGTERM raises KeyboardInterrupt as Ctrl+C does, so both stop a run the same way (saved,
exit 130); a process started with SIGINT ignored keeps ignoring it. pydantic-core turns a
KeyboardInterrupt raised while it builds a validator into a `SchemaError`, or loses it, so
a signal that arrives while the command line is parsed (`install` to `started`) or a model
is built (`held`) is raised just after, where the command's own `except` takes it
(docs/reliability.md, "Crashes, Ctrl+C and full disks").
"""

from __future__ import annotations

import _thread
import contextlib
import signal
from collections.abc import Iterator
from types import FrameType
from typing import ClassVar


class _Hold:
    """The process's one hold (its attributes, never an instance)."""

    #: the thread `install` ran in: the one Python runs signal handlers in
    main: int | None = None
    #: from `install` until `started`
    starting = False
    #: `held` blocks under way
    depth = 0
    #: signals that arrived while held, raised when the hold ends
    arrived: ClassVar[list[int]] = []


def install() -> None:
    """Make SIGTERM (and SIGINT, unless it is ignored) raise KeyboardInterrupt, held
    until `started`. From the main thread, as `signal.signal` requires."""
    _Hold.main = _thread.get_ident()
    _Hold.starting = True
    signal.signal(signal.SIGTERM, _stop)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _stop)


def started() -> None:
    """The command's own error boundary takes a Ctrl+C from here on: one that arrived
    since `install` is raised now."""
    if _Hold.starting and _Hold.main == _thread.get_ident():
        _Hold.starting = False
        _raise_arrived()


def _stop(signum: int, frame: FrameType | None) -> None:
    if _Hold.starting or _Hold.depth:
        _Hold.arrived.append(signum)
        return
    raise KeyboardInterrupt


@contextlib.contextmanager
def held() -> Iterator[None]:
    """While this runs in the main thread, a signal `install` handles is raised as
    KeyboardInterrupt only once it is over (elsewhere: nothing is held)."""
    if _Hold.main != _thread.get_ident():
        yield
        return
    _Hold.depth += 1
    try:
        yield
    finally:
        _Hold.depth -= 1
        _raise_arrived()  # a stop asked meanwhile wins over what went wrong


def _raise_arrived() -> None:
    if _Hold.arrived and not (_Hold.starting or _Hold.depth):
        _Hold.arrived.clear()
        raise KeyboardInterrupt
