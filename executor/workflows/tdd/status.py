"""`executor status`: the plan's sessions with what the state recorded (read-only).

The seed-004 view (run status, current session, per-session status and checkpoint) is
derived here from each session's step; nothing of it is stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from executor.datamodel import dump
from executor.engine.layout import Layout
from executor.plan.cache import PlanView
from executor.workflows.tdd.run import state_store
from executor.workflows.tdd.state import AgentCall, RunState, SessionRecord
from executor.workflows.tdd.step import ACTIVE, Step, checkpoint_of, is_escalation, status_of
from executor.workflows.tdd.workspace import check_plan_owner


def run_status(state: RunState | None, plan: PlanView) -> str:
    """not_started | in_progress | paused | error | completed, derived from the records."""
    if state is None or not state.sessions:
        return "not_started"
    records = list(state.sessions.values())
    if any(r.paused for r in records):
        return "paused"
    if any(is_escalation(r.step) for r in records):
        return "error"
    finished = {Step.DONE, Step.SKIPPED, Step.SESSION_COMPLETE}
    numbers = [s.number for s in plan.outline()]
    if all((r := state.sessions.get(n)) is not None and r.step in finished for n in numbers):
        return "completed"
    return "in_progress"


def _session(rec: SessionRecord | None) -> dict[str, Any]:
    if rec is None:
        return {"status": "not_started", "step": None, "checkpoint": None}
    seconds = sum(h.seconds for h in rec.history)
    return {
        "status": status_of(rec.step),
        "step": rec.step.value,
        "checkpoint": checkpoint_of(rec.step),
        "tests_written": rec.tests_written,
        "tests_passing": rec.tests_passing,
        "commit_hash": rec.commit_hash,
        "started_at": rec.started_at,
        "completed_at": rec.completed_at,
        "duration_seconds": round(seconds, 1),
        "attempt": rec.attempt,
        "files_modified": rec.files_modified,
        "errors": rec.errors,
        "blocked_reason": rec.blocked_reason,
        "adopted": rec.adopted,
        "pending_request": dump(rec.bridge.pending) if rec.bridge.pending else None,
        **_usage(rec.agent_calls),
        "transcripts": [c.log for c in rec.agent_calls if c.log],
    }


def _usage(calls: list[AgentCall]) -> dict[str, Any]:
    """Cost and tokens of agent calls as reported (None when no call reported any)."""
    costs = [c.cost_usd for c in calls if c.cost_usd is not None]
    tokens = [(c.input_tokens or 0) + (c.output_tokens or 0) for c in calls
              if c.input_tokens is not None or c.output_tokens is not None]  # fmt: skip
    return {
        "agent_calls": len(calls),
        "agent_cost_usd": round(sum(costs), 6) if costs else None,
        "agent_tokens": sum(tokens) if tokens else None,
        "agent_seconds": round(sum(c.seconds for c in calls), 1),
    }


def status_data(plan: PlanView, named: Path | None = None) -> dict[str, Any]:
    """Plan sessions merged with their saved state; no state means all not_started.
    `named`: the plan as the person named it (the folder's run must be this plan's)."""
    layout = Layout(plan.folder)
    state = state_store(layout).load()
    if named is not None:
        check_plan_owner(state, named, layout)
    sessions = state.sessions if state else {}
    outline = plan.outline()
    phases = []
    for number, name in plan.phase_names().items():
        rows = []
        for s in (o for o in outline if o.phase == number):
            row = {"number": s.number, "title": s.title, "dependencies": s.dependencies}
            row.update(_session(sessions.get(s.number)))
            rows.append(row)
        phases.append({"number": number, "name": name, "sessions": rows})
    current = next((n for n, r in sorted(sessions.items()) if r.step in ACTIVE), None)
    pending = next(
        (
            {"session": n, **dump(r.bridge.pending)}
            for n, r in sorted(sessions.items())
            if r.bridge.pending
        ),
        None,
    )
    return {
        "plan": str(plan.folder),
        "state_file": str(layout.state),
        **_usage([c for rec in sessions.values() for c in rec.agent_calls]),
        "run_id": state.run_id if state else None,
        "status": run_status(state, plan),
        "current_session": current,
        "pending_request": pending,
        "next": _next(state, plan, pending),
        "phases": phases,
    }


def _next(state: RunState | None, plan: PlanView, pending: dict[str, Any] | None) -> dict[str, Any]:
    """What to do next, as data the CLI renders as a command: `answer` the pending
    request, `resume` a session that stopped, `start` the plan, or `done`."""
    if pending is not None:
        return {"do": "answer", "session": pending["session"], "kind": pending["kind"]}
    records = state.sessions if state else {}
    for number, rec in sorted(records.items()):
        if rec.step in ACTIVE or rec.paused:
            return {"do": "resume", "session": number}
    if run_status(state, plan) == "completed":
        return {"do": "done", "session": None}
    return {"do": "start", "session": None}
