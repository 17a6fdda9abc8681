"""The session state machine, declared in one table.

`status` is what seed 004 calls the session state; `STEPS` is the finer cursor the
runner persists so a resumed process re-enters exactly the step it stopped at.
An event not allowed from the current status raises `TransitionNotAllowed`.
"""

from __future__ import annotations

from typing import Literal, get_args

from executor.errors import TransitionNotAllowed

Status = Literal[
    "not_started",
    "in_progress",
    "red_phase",
    "green_phase",
    "refactor_phase",
    "awaiting_approval",
    "completed",
    "blocked",
    "skipped",
    "error",
]
Checkpoint = Literal[
    "before_start", "after_red", "after_green", "after_refactor", "session_complete"
]
Event = Literal[
    "start", "block", "ask", "red", "green", "refactor", "complete", "fail", "skip", "reset"
]

STATUSES: tuple[str, ...] = get_args(Status)
CHECKPOINTS: tuple[str, ...] = get_args(Checkpoint)

_ACTIVE = {"in_progress", "red_phase", "green_phase", "refactor_phase", "awaiting_approval"}

#: event -> (allowed source statuses, target status)
TRANSITIONS: dict[str, tuple[frozenset[str], str]] = {
    "start": (frozenset({"not_started", "blocked"}), "in_progress"),
    "block": (frozenset({"not_started", "blocked"}), "blocked"),
    "ask": (frozenset(_ACTIVE), "awaiting_approval"),
    "red": (frozenset({"in_progress", "awaiting_approval", "red_phase", "error"}), "red_phase"),
    "green": (frozenset({"awaiting_approval", "red_phase", "green_phase", "error"}), "green_phase"),
    "refactor": (
        frozenset({"awaiting_approval", "green_phase", "refactor_phase", "error"}),
        "refactor_phase",
    ),
    "complete": (frozenset({"awaiting_approval", "refactor_phase", "green_phase"}), "completed"),
    "fail": (frozenset(_ACTIVE | {"error"}), "error"),
    "skip": (frozenset({"not_started", "blocked", "error"}), "skipped"),
    "reset": (frozenset(_ACTIVE | {"error", "blocked"}), "not_started"),
}

#: The runner's cursor inside one session, in execution order.
Step = Literal[
    "before_start",
    "red_agent",
    "red_verify",
    "after_red",
    "green_agent",
    "green_verify",
    "after_green",
    "refactor_agent",
    "refactor_verify",
    "after_refactor",
    "evidence",
    "commit",
    "session_complete",
    "done",
]
STEPS: tuple[str, ...] = get_args(Step)


def transition(status: str, event: str) -> str:
    """The status after `event`, or TransitionNotAllowed."""
    allowed = TRANSITIONS.get(event)
    if allowed is None or status not in allowed[0]:
        raise TransitionNotAllowed(event, status)
    return allowed[1]
