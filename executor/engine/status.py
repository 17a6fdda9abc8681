"""`executor status`: phases, sessions, status, measured tests, commits (read-only)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from executor.engine.state import RunState
from executor.engine.store import StateStore
from executor.plan.models import Plan


def status_data(plan: Plan) -> dict[str, Any]:
    """Plan sessions merged with their saved state; no state means all not_started."""
    state: RunState | None = StateStore(plan.folder).load()
    phases = []
    for phase in plan.phases:
        sessions = []
        for s in phase.sessions:
            ss = state.session(s.number) if state else None
            sessions.append(
                {
                    "number": s.number,
                    "title": s.title,
                    "status": ss.status if ss else "not_started",
                    "step": ss.step if ss else None,
                    "checkpoint": ss.checkpoint if ss else None,
                    "tests_written": ss.tests_written if ss else None,
                    "tests_passing": ss.tests_passing if ss else None,
                    "commit_hash": ss.commit_hash if ss else None,
                    "dependencies": s.dependencies,
                    "blocked_reason": ss.blocked_reason if ss else None,
                }
            )
        phases.append({"number": phase.number, "name": phase.name, "sessions": sessions})
    return {
        "plan": str(plan.folder),
        "state_file": str(plan.folder / ".agent-state.json"),
        "run_id": state.run_id if state else None,
        "status": state.status if state else "not_started",
        "current_session": state.current_session if state else None,
        "pending_request": state.pending.model_dump() if state and state.pending else None,
        "phases": phases,
    }


def render_status(data: dict[str, Any], *, rich: bool) -> None:
    from executor import console

    if rich:
        from rich.table import Table

        table = Table(title=f"{data['plan']} — {data['status']}")
        for col in ("Phase", "Session", "Title", "Status", "Tests", "Commit"):
            table.add_column(col)
        for p in data["phases"]:
            for s in p["sessions"]:
                table.add_row(
                    str(p["number"]),
                    str(s["number"]),
                    s["title"],
                    _status(s),
                    _tests(s),
                    (s["commit_hash"] or "")[:10],
                )
        console.show(table)
    else:
        console.out(f"plan {data['plan']}: {data['status']}")
        for p in data["phases"]:
            console.out(f"Phase {p['number']}: {p['name']}")
            for s in p["sessions"]:
                console.out(
                    f"  {s['number']:>3}  {_status(s):<28} tests {_tests(s):<8} "
                    f"{(s['commit_hash'] or '-')[:10]:<10}  {s['title']}"
                )
    if data["pending_request"]:
        pr = data["pending_request"]
        console.out(
            f"pending request {pr['request_id']} ({pr['kind']} {pr['agent_name']}, "
            f"attempt {pr['attempt']}) in {Path(data['plan']) / '.agent-request.json'}"
        )


def _status(s: dict[str, Any]) -> str:
    if s["status"] in {"completed", "not_started"} or not s["step"]:
        return str(s["status"])
    return f"{s['status']} ({s['step']})"


def _tests(s: dict[str, Any]) -> str:
    if s["tests_written"] is None and s["tests_passing"] is None:
        return "-"
    return f"{s['tests_passing'] or 0}/{s['tests_written'] or 0}"
