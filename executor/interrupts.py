"""Ctrl+C and SIGTERM: a KeyboardInterrupt raised where Python code can take it, never
inside a validator pydantic is building.

The command line installs one handler (`install`): SIGTERM, as a service manager stops a
run, raises KeyboardInterrupt as Ctrl+C does, so both stop it the same way (saved, exit
130). SIGINT gets it only where Python gave it its own: a process started with SIGINT
ignored (what a shell does to a background job of a script) keeps ignoring it, as every
program does; SIGTERM still stops it.

pydantic-core, while it builds a validator, turns a KeyboardInterrupt raised in the
Python code it calls into a `SchemaError`, or writes it off as an "exception ignored";
and pydantic builds validators at moments nobody chose: the executor's models on their
first use (`defer_build`, `executor.datamodel`), typer's for a `Path` option as it
parses the command line. A Ctrl+C landing there ended a run with "internal error" (exit
70), or was lost and the run went on (docs/reliability.md has the counts). So a signal
that arrives while the command line is parsed (from `install` to `started`, called by
the command's own error boundary) or while a model's validator is built (`held`) is
raised only once that is over: a fraction of a second later, where the command's own
`except KeyboardInterrupt` takes it.
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
