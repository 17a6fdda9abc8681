"""`executor status`: the plan's sessions with what the state recorded (read-only).

The seed-004 view in the state file says where each session is; this adds what a
person asks next: how long it took, what the agents cost, the transcripts, the pending
request, and what to do next. A session in progress is read from its record, a finished
one from its entry and its archived record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from executor.datamodel import dump
from executor.engine.layout import Layout
from executor.errors import PlanInvalidError
from executor.plan.cache import PlanView, load_valid
from executor.project_config import find_root, load_project_config
from executor.workflows.tdd.parallel.view import parallel_data
from executor.workflows.tdd.parking.questions import answer_words, questions_data, waiting_on
from executor.workflows.tdd.record.counts import elapsed
from executor.workflows.tdd.record.session import AgentCall, SessionRecord
from executor.workflows.tdd.record.state import (
    FINISHED,
    RunState,
    SessionArchive,
    SessionEntry,
    state_store,
)
from executor.workflows.tdd.runner.workspace import check_plan_owner
from executor.workflows.tdd.step import ACTIVE, checkpoint_of, is_escalation


def load_for_status(named: Path) -> PlanView:
    """The plan as the run reads it (through its cache: no parse when it is unchanged);
    a plan with errors is still shown, read without its lint."""
    layout = Layout(named if named.is_dir() else named.parent)
    state = state_store(layout).load()
    config = load_project_config(find_root(named))
    command = state.run.options.test_command if state else None
    tag = state.run.options.tag if state else config.defaults.get("tag")
    try:
        return load_valid(
            named, cache=layout.plan_cache, test_command=command or config.test_command, tag=tag
        )
    except PlanInvalidError:
        from executor.plan import load_plan

        return load_plan(named, tag=tag)


def _session(
    entry: SessionEntry | None,
    rec: SessionRecord | None,
    archive: SessionArchive,
    *,
    live: bool = False,
) -> dict[str, Any]:
    """One session's row; `live`: a run is at it now (its time runs to this moment)."""
    if entry is None or (rec is None and entry.status == "not_started"):
        return {"status": "not_started", "step": None, "checkpoint": None}
    kept = rec or archive.get(entry.number)
    full = kept or SessionRecord()
    seconds = elapsed(full, now=live) if kept else 0.0
    return {
        "status": entry.status,
        "step": kept.step.value if kept else None,
        "checkpoint": entry.checkpoint,
        "tests_written": entry.tests_written,
        "tests_passing": entry.tests_passing,
        "tests_counted": entry.tests_counted,
        "commit_hash": entry.commit_hash,
        "started_at": entry.started_at,
        "completed_at": entry.completed_at,
        "duration_seconds": seconds,  # as the checkpoints show it: one clock, one rounding
        "attempt": full.attempt,
        "files_modified": full.files_modified,
        "errors": full.errors,
        "blocked_reason": full.blocked_reason,
        "adopted": bool(entry.adopted),
        "pending_request": dump(rec.bridge.pending) if rec and rec.bridge.pending else None,
        **_usage(full.agent_calls),
        "transcripts": [c.log for c in full.agent_calls if c.log],
    }  # fmt: skip


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
    if state is not None:
        state.refresh()  # the seed view of what is in progress
    records = state.run.sessions if state else {}
    archive = SessionArchive(layout.archive)
    index = state.index() if state else {}
    outline = plan.outline()
    current = next((n for n, r in sorted(records.items()) if r.step in ACTIVE), None)
    live = live_run(layout, records.get(current) if current is not None else None, current)
    parked = state.run.parked if state else {}
    behind = waiting_on(
        {o.number: o.dependencies for o in outline}, parked,
        lambda n: (e := index.get(n)) is not None and e.status in FINISHED,
    )  # fmt: skip
    phases = []
    rows: list[dict[str, Any]] = []
    for number, name in plan.phase_names().items():
        sessions = []
        for s in (o for o in outline if o.phase == number):
            entry = index.get(s.number)
            row = {"number": s.number, "title": s.title, "dependencies": s.dependencies}
            at_it = live is not None and s.number == current
            rec = records.get(s.number) or (p.record if (p := parked.get(s.number)) else None)
            row.update(_session(entry, rec, archive, live=at_it))
            if s.number in parked:
                row["parked"] = True
            if s.number in behind:
                row["waiting_on"] = behind[s.number]
            sessions.append(row)
        rows += sessions
        phases.append({"number": number, "name": name, "sessions": sessions})
    pending = next(
        ({"session": n, **dump(r.bridge.pending)} for n, r in sorted(records.items())
         if r.bridge.pending),
        None,
    )  # fmt: skip
    spent = state.run.spent if state else None
    side = parallel_data(plan, state, layout.folder) if state is not None else None
    by_number = {r["number"]: r for r in rows}
    for lane in side["lanes"] if side else []:
        if lane["session"] in by_number and lane["status"] != "integrated":
            by_number[lane["session"]].update(
                step=lane["step"], worktree=lane["worktree"], worker=lane["worker"]
            )
    laned = [lane for lane in side["lanes"] if lane["pending_request"]] if side else []
    if pending is None and laned:
        pending = {"session": laned[0]["session"], "parallel": True, **laned[0]["pending_request"]}
    return {
        "plan": str(plan.folder),
        "state_file": str(layout.state),
        "agent_calls": spent.calls if spent else 0,
        "agent_cost_usd": spent.usd if spent and spent.calls > spent.unpriced else None,
        "agent_tokens": spent.tokens if spent and spent.tokens else None,
        "agent_seconds": spent.seconds if spent else 0.0,
        "run_id": state.run.run_id if state else None,
        "status": state.status if state and state.phases else "not_started",
        "current_session": current,
        "pending_request": pending,
        "questions": questions_data(state),
        "live": live,
        "next": _next(state, pending, live, repo=_in_repository(plan.folder)),
        "phases": phases,
        **({"parallel": side} if side is not None else {}),
    }


def live_run(
    layout: Layout, rec: SessionRecord | None, session: int | None
) -> dict[str, Any] | None:
    """The run a live process drives now (it holds the run's lock, naming itself
    `pid@host` in it): who, at which session and step, since when; None when no process
    runs it (it stopped, or waits at exit 42 for a host)."""
    from executor.fsutil import lock_held

    if not lock_held(layout.lock):
        return None
    try:
        holder = layout.lock.read_text("utf-8", "replace").split(" ", 1)[0]
        since = layout.lock.stat().st_mtime
    except OSError:
        return None
    import time

    pid, _, host = holder.partition("@")
    step_since, asking = None, False
    if rec is not None:  # the step began when the one before it ended
        step_since = rec.history[-1].at if rec.history else rec.started_at
        # at a checkpoint or after a failure: it waits for a person at its terminal
        asking = checkpoint_of(rec.step) is not None or is_escalation(rec.step)
    return {
        "pid": int(pid) if pid.isdigit() else None,
        "host": host or None,
        "session": session,
        "step": rec.step.value if rec is not None else None,
        "asking": asking,
        "step_since": step_since,
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(since)),
    }


def _in_repository(folder: Path) -> bool:
    """Whether `folder` is inside a git working tree (for the hint only: a run checks it)."""
    return any((p / ".git").exists() for p in (folder.resolve(), *folder.resolve().parents))


def _next(
    state: RunState | None,
    pending: dict[str, Any] | None,
    live: dict[str, Any] | None = None,
    *,
    repo: bool = True,
) -> dict[str, Any]:
    """What to do next, as data the CLI renders as a command: `watch` the run a live
    process drives, `answer` the pending request, `resume` a session that stopped,
    `start` the plan, or `done`."""
    if live is not None:
        return {"do": "watch", "session": live["session"], "asking": live["asking"]}
    # what continues the run: the scope its last command ran (a plan run goes on past the
    # session it stopped at); a run saved before the scope was kept: the session
    scope = state.run.scope if state else []
    if pending is not None:
        do = "answer_all" if pending.get("parallel") else "answer"
        words = scope or ["resume-session", str(pending["session"])]
        return {"do": do, "session": pending["session"], "kind": pending["kind"], "words": words}
    records = state.run.sessions if state else {}
    for number, rec in sorted(records.items()):
        if rec.step in ACTIVE or rec.paused:
            return {"do": "resume", "session": number,
                    "words": scope or ["resume-session", str(number)]}  # fmt: skip
    if state is not None and state.run.parked:  # a question waits, its work set aside
        number = min(state.run.parked)
        return {"do": "answer_parked", "session": number, "words": answer_words(number)}
    if state is not None and state.status == "completed":
        return {"do": "done", "session": None}
    if state is not None and any(lane.status != "integrated" for lane in state.run.lanes.values()):
        return {"do": "continue", "session": None}
    return {"do": "start" if repo else "git_init", "session": None}
