"""The driver: `handler -> record result -> save -> next step`, for any workflow table.

It is the only caller of `save` in a drive. A handler does its step's work and returns
an `Outcome`; the driver looks the next step up in the workflow's table (a choice there
is decided with the handler object, its taken branch's action run), records the
transition on the cursor, moves the cursor and saves. It does not save after a decision
step (a checkpoint answer is saved with the next step's work: one save per resume), and
always saves before it stops.

Stops: `WAIT` saves, then writes the request and exits 42 (`Durable.release` raises
NeedAgent); `PAUSE`, `NO_HUMAN` and `BUDGET` save and end the drive with that reason.
Reaching a final step ends the drive with the reason the workflow gives it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol, TypeVar

from executor.engine.agents import Durable
from executor.engine.machine import STOPS, Outcome, Workflow

S = TypeVar("S", bound=str)
H = TypeVar("H")


class Cursor(Protocol[S]):
    """What the driver moves: the persisted step, and a place to log transitions (each
    edge as drawn: `ok`, `failed [retries left]`)."""

    step: S

    def log(self, step: S, edge: str, seconds: float, note: str) -> None: ...


def drive(
    workflow: Workflow[S, H],
    handlers: H,
    cursor: Cursor[S],
    durable: Durable,
    *,
    note: Callable[[], str] = lambda: "",
    save_before: Callable[[S], bool] = lambda step: False,
) -> str:
    """Run `cursor` through `workflow` until a final step or a stop; return why it ended.

    `handlers`: the object each node's handler is called with (the workflow's handler
    class for this run). `note` gives a short text to log with each transition (e.g. what
    a check measured). `save_before(step)`: that step starts work in this process that a
    crash must not leave unrecorded (an agent run here changes files: after a crash they
    must be seen as its work, not as someone else's), so an unsaved decision is saved
    before it.
    """
    dirty = False
    while True:
        step = cursor.step
        node = workflow.node(step)
        assert node.handler is not None, f"{workflow.name}: {step} has no handler"
        if dirty and save_before(step):
            durable.save()
        started = time.monotonic()
        outcome = node.handler(handlers)
        if outcome in STOPS:
            durable.save()
            if outcome is Outcome.WAIT:
                durable.release()
            return outcome.value
        target, edge = workflow.next(step, outcome, handlers)
        cursor.log(step, edge, round(time.monotonic() - started, 3), note())
        cursor.step = target
        final = workflow.node(target).final
        if final is not None:
            durable.save()
            return final
        dirty = node.decision
        if not dirty:
            durable.save()
