"""The TDD session's steps and what each one is: a checkpoint, an escalation, the
agent, verify and gate steps of a role. The table that joins them (each step with its
handler and exits) is `executor.workflows.tdd.table`.

Status and checkpoint are derived from the step (`status_of`, `checkpoint_of`, seed
004's names), never stored beside it as a second truth. The persisted cursor is the
step.
"""

from __future__ import annotations

import enum
from typing import Literal


class Step(str, enum.Enum):
    NOT_STARTED = "not_started"
    BLOCKED = "blocked"
    BEFORE_START = "before_start"
    RED_AGENT = "red_agent"
    RED_VERIFY = "red_verify"
    RED_ESCALATED = "red_escalated"
    AFTER_RED = "after_red"
    GREEN_AGENT = "green_agent"
    GREEN_VERIFY = "green_verify"
    GREEN_STRENGTH = "green_strength"
    GREEN_ESCALATED = "green_escalated"
    AFTER_GREEN = "after_green"
    REFACTOR_AGENT = "refactor_agent"
    REFACTOR_VERIFY = "refactor_verify"
    REFACTOR_STRENGTH = "refactor_strength"
    REFACTOR_ESCALATED = "refactor_escalated"
    HOOKS = "hooks"
    AFTER_REFACTOR = "after_refactor"
    EVIDENCE = "evidence"
    EVIDENCE_ESCALATED = "evidence_escalated"
    COMMIT = "commit"
    SESSION_COMPLETE = "session_complete"
    ROLLBACK = "rollback"
    DONE = "done"
    SKIPPED = "skipped"


S = Step

#: Seed 004's session statuses.
SessionStatus = Literal[
    "not_started",
    "in_progress",
    "red_phase",
    "green_phase",
    "refactor_phase",
    "awaiting_approval",
    "completed",
    "blocked",
    "skipped",
]

_CHECKPOINTS = {
    S.BEFORE_START: "before_start",
    S.AFTER_RED: "after_red",
    S.AFTER_GREEN: "after_green",
    S.AFTER_REFACTOR: "after_refactor",
    S.SESSION_COMPLETE: "session_complete",
}
#: Where a person decides after a failure (retry, roll back, skip, pause).
_ESCALATIONS = frozenset(
    {S.RED_ESCALATED, S.GREEN_ESCALATED, S.REFACTOR_ESCALATED, S.EVIDENCE_ESCALATED}
)
#: Gates that come after a verification: files changed while one waited (and taken into
#: the session) are verified again before the gate asks again.
RECHECK_AT = {
    S.AFTER_RED: S.RED_VERIFY,
    S.AFTER_GREEN: S.GREEN_VERIFY,
    S.AFTER_REFACTOR: S.REFACTOR_VERIFY,
}


_STATUS: dict[Step, SessionStatus] = {
    S.NOT_STARTED: "not_started",
    S.BLOCKED: "blocked",
    S.RED_AGENT: "red_phase",
    S.RED_VERIFY: "red_phase",
    S.GREEN_AGENT: "green_phase",
    S.GREEN_VERIFY: "green_phase",
    S.GREEN_STRENGTH: "green_phase",
    S.REFACTOR_AGENT: "refactor_phase",
    S.REFACTOR_VERIFY: "refactor_phase",
    S.REFACTOR_STRENGTH: "refactor_phase",
    S.HOOKS: "in_progress",
    S.EVIDENCE: "in_progress",
    S.COMMIT: "in_progress",
    S.ROLLBACK: "in_progress",
    S.SESSION_COMPLETE: "completed",
    S.DONE: "completed",
    S.SKIPPED: "skipped",
}


def status_of(step: Step) -> SessionStatus:
    """Seed 004's session status for a step: awaiting_approval at checkpoints, blocked
    while a person must decide after a failure (seed 004: "can't proceed (dependency not
    met, error)")."""
    if step in _ESCALATIONS:
        return "blocked"
    if step in _CHECKPOINTS and step is not S.SESSION_COMPLETE:
        return "awaiting_approval"
    return _STATUS[step]


def checkpoint_of(step: Step) -> str | None:
    """The checkpoint a step is (seed 004's names), None for other steps."""
    return _CHECKPOINTS.get(step)


def is_escalation(step: Step) -> bool:
    return step in _ESCALATIONS


def role_of(step: Step) -> str | None:
    """red / green / refactor for the agent, verify and escalation steps of that role."""
    name = step.value
    for role in ("red", "green", "refactor"):
        if name.startswith(role + "_"):
            return role
    return None


#: Steps of a session that has started and not yet committed: HEAD must not move.
ACTIVE = frozenset(Step) - {S.NOT_STARTED, S.BLOCKED, S.SESSION_COMPLETE, S.DONE, S.SKIPPED}

AGENT_STEPS = frozenset({S.RED_AGENT, S.GREEN_AGENT, S.REFACTOR_AGENT})
