"""The TDD session workflow, declared as one table (handlers: `executor.workflows.tdd.work`).

                 ┌──────────────── request_changes ───────────────┐
                 ▼                                                │
 not_started ─► before_start ─► red_agent ─► red_verify ─► after_red ─► green_agent ─►
 (blocked ◄─┘)      │ no RED step: └──────────── skip ────────────────────▲
 (ticked as done in the plan and its tests pass here: adopt ─► done, no agent, no commit)
                    ▼
 green_verify ─► after_green ─► refactor_agent ─► refactor_verify ─► after_refactor ─►
   │ retry ▲        │ skip_refactor / no REFACTOR step ─────────────────▲  ("Commit?")
   └───────┘
 evidence ─► commit ─► session_complete ─► done

 Any *_agent or *_verify that fails (after the automatic retries) goes to its
 *_escalated step, where a person chooses: retry (back to the agent step), roll back,
 skip, or pause. With nobody to ask (--yes, no terminal) the run stops there (exit 16);
 running it again unattended checks again (ok: back to the verify step, no agent call),
 for the person may have fixed the cause meanwhile. Every checkpoint offers abort, which
 goes to rollback; rollback ends the drive at not_started (or skipped when the person
 chose skip).

Status and checkpoint are derived from the step (`status_of`, `checkpoint_of`), never
stored beside it. The persisted cursor is the step.
"""

from __future__ import annotations

import enum

from executor.engine.machine import Outcome, Workflow


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
    GREEN_ESCALATED = "green_escalated"
    AFTER_GREEN = "after_green"
    REFACTOR_AGENT = "refactor_agent"
    REFACTOR_VERIFY = "refactor_verify"
    REFACTOR_ESCALATED = "refactor_escalated"
    AFTER_REFACTOR = "after_refactor"
    EVIDENCE = "evidence"
    EVIDENCE_ESCALATED = "evidence_escalated"
    COMMIT = "commit"
    SESSION_COMPLETE = "session_complete"
    ROLLBACK = "rollback"
    DONE = "done"
    SKIPPED = "skipped"


O = Outcome  # noqa: E741 - the table reads better with one letter
S = Step

_CHECKPOINTS = {
    S.BEFORE_START: "before_start",
    S.AFTER_RED: "after_red",
    S.AFTER_GREEN: "after_green",
    S.AFTER_REFACTOR: "after_refactor",
    S.SESSION_COMPLETE: "session_complete",
}
_ESCALATIONS = {
    S.RED_ESCALATED: S.RED_AGENT,
    S.GREEN_ESCALATED: S.GREEN_AGENT,
    S.REFACTOR_ESCALATED: S.REFACTOR_AGENT,
    S.EVIDENCE_ESCALATED: S.GREEN_AGENT,
}
#: Where an escalation checks again (an unattended re-run: the person fixed the cause).
#: Gates that come after a verification: files changed while one waited (and taken into
#: the session) are verified again before the gate asks again.
RECHECK_AT = {
    S.AFTER_RED: S.RED_VERIFY,
    S.AFTER_GREEN: S.GREEN_VERIFY,
    S.AFTER_REFACTOR: S.REFACTOR_VERIFY,
}
_RECHECKS = {
    S.RED_ESCALATED: S.RED_VERIFY,
    S.GREEN_ESCALATED: S.GREEN_VERIFY,
    S.REFACTOR_ESCALATED: S.REFACTOR_VERIFY,
    S.EVIDENCE_ESCALATED: S.EVIDENCE,
}


def _table() -> dict[tuple[Step, Outcome], Step]:
    t: dict[tuple[Step, Outcome], Step] = {
        (S.NOT_STARTED, O.OK): S.BEFORE_START,
        (S.NOT_STARTED, O.BLOCKED): S.BLOCKED,
        (S.NOT_STARTED, O.ADOPT): S.DONE,
        (S.BLOCKED, O.OK): S.BEFORE_START,
        (S.BLOCKED, O.BLOCKED): S.BLOCKED,
        (S.BLOCKED, O.ADOPT): S.DONE,
        (S.BEFORE_START, O.APPROVE): S.RED_AGENT,
        (S.BEFORE_START, O.CHANGES): S.RED_AGENT,
        (S.RED_AGENT, O.OK): S.RED_VERIFY,
        (S.RED_AGENT, O.SKIP): S.GREEN_AGENT,
        (S.RED_AGENT, O.FAILED): S.RED_ESCALATED,
        (S.RED_VERIFY, O.OK): S.AFTER_RED,
        (S.RED_VERIFY, O.FAILED): S.RED_ESCALATED,
        (S.AFTER_RED, O.APPROVE): S.GREEN_AGENT,
        (S.AFTER_RED, O.CHANGES): S.RED_AGENT,
        (S.GREEN_AGENT, O.OK): S.GREEN_VERIFY,
        (S.GREEN_AGENT, O.FAILED): S.GREEN_ESCALATED,
        (S.GREEN_VERIFY, O.OK): S.AFTER_GREEN,
        (S.GREEN_VERIFY, O.RETRY): S.GREEN_AGENT,
        (S.GREEN_VERIFY, O.FAILED): S.GREEN_ESCALATED,
        (S.AFTER_GREEN, O.APPROVE): S.REFACTOR_AGENT,
        (S.AFTER_GREEN, O.SKIP): S.AFTER_REFACTOR,
        (S.AFTER_GREEN, O.CHANGES): S.GREEN_AGENT,
        (S.REFACTOR_AGENT, O.OK): S.REFACTOR_VERIFY,
        (S.REFACTOR_AGENT, O.FAILED): S.REFACTOR_ESCALATED,
        (S.REFACTOR_VERIFY, O.OK): S.AFTER_REFACTOR,
        (S.REFACTOR_VERIFY, O.RETRY): S.REFACTOR_AGENT,
        (S.REFACTOR_VERIFY, O.FAILED): S.REFACTOR_ESCALATED,
        (S.AFTER_REFACTOR, O.APPROVE): S.EVIDENCE,
        (S.AFTER_REFACTOR, O.CHANGES): S.REFACTOR_AGENT,
        (S.EVIDENCE, O.OK): S.COMMIT,
        (S.EVIDENCE, O.FAILED): S.EVIDENCE_ESCALATED,
        (S.COMMIT, O.OK): S.SESSION_COMPLETE,
        (S.SESSION_COMPLETE, O.APPROVE): S.DONE,
        (S.ROLLBACK, O.OK): S.NOT_STARTED,
        (S.ROLLBACK, O.SKIP): S.SKIPPED,
    }
    for checkpoint in _CHECKPOINTS:
        t[(checkpoint, O.ABORT)] = S.ROLLBACK
    for checkpoint, verify in RECHECK_AT.items():
        t[(checkpoint, O.RECHECK)] = verify
    for escalated, agent_step in _ESCALATIONS.items():
        t[(escalated, O.RETRY)] = agent_step
        t[(escalated, O.OK)] = _RECHECKS[escalated]
        t[(escalated, O.ABORT)] = S.ROLLBACK
        t[(escalated, O.SKIP)] = S.ROLLBACK
    return t


TDD: Workflow[Step] = Workflow(
    name="tdd",
    start=S.NOT_STARTED,
    table=_table(),
    final={
        S.DONE: "done",
        S.BLOCKED: "blocked",
        S.NOT_STARTED: "rolled_back",
        S.SKIPPED: "skipped",
    },
    decisions=frozenset({*_CHECKPOINTS, *_ESCALATIONS}),
)

_STATUS = {
    S.NOT_STARTED: "not_started",
    S.BLOCKED: "blocked",
    S.RED_AGENT: "red_phase",
    S.RED_VERIFY: "red_phase",
    S.GREEN_AGENT: "green_phase",
    S.GREEN_VERIFY: "green_phase",
    S.REFACTOR_AGENT: "refactor_phase",
    S.REFACTOR_VERIFY: "refactor_phase",
    S.EVIDENCE: "in_progress",
    S.COMMIT: "in_progress",
    S.ROLLBACK: "in_progress",
    S.SESSION_COMPLETE: "completed",
    S.DONE: "completed",
    S.SKIPPED: "skipped",
}


def status_of(step: Step) -> str:
    """Seed 004's session status for a step: awaiting_approval at checkpoints, error
    while a person must decide after a failure."""
    if step in _ESCALATIONS:
        return "error"
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
