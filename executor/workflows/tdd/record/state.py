"""`.agent-state.json`: the single truth of a plan run's progress, in seed 004's shape.

The top is seed 004's documented view, for readers without our CLI; under `run` the
engine keeps its own records, one `SessionRecord` per session in progress, from which the
seed view is projected at every save (never read back as a second truth). A finished
session's record goes to the archive (`.agent-sessions/`), so a step costs the same at
session 1,000 as at session 1. Schema: `docs/schemas/agent-state.schema.json`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from executor.datamodel import Strict
from executor.engine.layout import Layout
from executor.pinning import Pinned
from executor.runoptions import RunOptions
from executor.stamps import utc_now as now
from executor.store import StateStore
from executor.workflows.tdd.record.lanes import Lane, LaneLink
from executor.workflows.tdd.record.session import (
    COUNTED,
    AgentCall,
    ParkedSession,
    SessionRecord,
    TestsCounted,
)
from executor.workflows.tdd.step import (
    ACTIVE,
    SessionStatus,
    Step,
    checkpoint_of,
    is_escalation,
    status_of,
)

SCHEMA_VERSION = 3


RunStatus = Literal["not_started", "in_progress", "paused", "blocked", "completed"]
FINISHED: frozenset[str] = frozenset({"completed", "skipped"})


class SessionEntry(Strict):
    """Seed 004's view of one session. For a session in progress it is projected from
    its record at every save; for a finished one it is what remains in this file."""

    number: int
    title: str
    status: SessionStatus = "not_started"
    checkpoint: str | None = Field(default=None, description="the checkpoint it waits at")
    started_at: str | None = None
    completed_at: str | None = None
    commit_hash: str | None = None
    tests_written: int | None = None
    tests_passing: int | None = None
    tests_counted: TestsCounted | None = Field(default=None, description=COUNTED)
    coverage: float | None = None
    adopted: bool | None = Field(
        default=None, description="ticked as done in the plan and proven by a test run"
    )

    @model_serializer(mode="wrap")
    def _compact(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Unset facts are left out, as seed 004's example does."""
        out: dict[str, Any] = handler(self)
        return {k: v for k, v in out.items() if v is not None}


class PhaseEntry(Strict):
    number: int
    name: str
    status: SessionStatus = "not_started"
    sessions: list[SessionEntry] = Field(default_factory=list)


class Spent(Strict):
    """What agents of this run spent, as their CLIs (or a host) reported it."""

    usd: float = 0.0
    tokens: int = 0
    seconds: float = 0.0
    calls: int = 0
    unpriced: int = Field(default=0, description="calls that reported no cost")

    def add(self, call: AgentCall) -> None:
        self.usd = round(self.usd + (call.cost_usd or 0.0), 6)
        self.tokens += (call.input_tokens or 0) + (call.output_tokens or 0)
        self.seconds = round(self.seconds + call.seconds, 3)
        self.calls += 1
        self.unpriced += call.cost_usd is None


class RunRecord(Strict):
    """The engine's own records of the run (under `run`)."""

    tool_version: str
    definition_hash: str = Field(description="hash of the workflow table and brief version (P5)")
    run_id: str
    generation: int = Field(
        default=0, description="incremented by every save; a save must see the one it loaded"
    )
    repo: str = Field(description="the git repository's top folder")
    plan: str = Field(
        default="",
        description=(
            "the plan this run executes, as named (a file or a folder); a folder keeps one "
            "plan's run"
        ),
    )
    options: RunOptions = Field(default_factory=RunOptions)
    scope: list[str] = Field(
        default_factory=list,
        description="the subcommand that continues this run, as its last command ran it: "
        "[execute-plan], [execute-phase, N] or [resume-session, S] (what status offers)",
    )
    hinted: list[str] = Field(default_factory=list, description="hints said once per run")
    spent: Spent = Field(default_factory=Spent)
    sessions: dict[int, SessionRecord] = Field(
        default_factory=dict, description="the sessions in progress (finished ones: archived)"
    )
    lanes: dict[int, Lane] = Field(
        default_factory=dict,
        description="sessions that run in worktrees of their own (docs/parallel.md)",
    )
    lane: LaneLink | None = Field(
        default=None, description="this run is one session's lane of another run"
    )
    parked: dict[int, ParkedSession] = Field(
        default_factory=dict,
        description="sessions set aside while their question waits for a person (--yes, "
        "nobody to ask): their work under a ref, not in the checkout",
    )
    pinned: Pinned | None = Field(
        default=None,
        description="what the run pinned before any agent step: the environment its tests "
        "run in, and the digest of the pin file (executor.pinning)",
    )

    @model_serializer(mode="wrap")
    def _compact(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A run that never ran sessions side by side writes no lane keys: its file is
        the same as before parallel sessions existed."""
        out: dict[str, Any] = handler(self)
        if not self.lanes:
            out.pop("lanes", None)
        if self.lane is None:
            out.pop("lane", None)
        if not self.parked:
            out.pop("parked", None)
        if self.pinned is None:
            out.pop("pinned", None)
        return out


class RunState(Strict):
    """`.agent-state.json`: seed 004's fields, then the engine's (`run`)."""

    schema_version: int = SCHEMA_VERSION
    project_name: str
    plan_version: str = Field(description="sha256 of the plan's files as the run last read them")
    execution_started_at: str = Field(default_factory=now)
    last_updated_at: str = Field(default_factory=now)
    current_phase: int | None = None
    current_session: int | None = None
    completed_sessions: list[str] = Field(
        default_factory=list, description="phase_<p>_session_<n> of every completed session"
    )
    status: RunStatus = "not_started"
    phases: list[PhaseEntry] = Field(default_factory=list)
    blockers: list[str] = Field(default_factory=list)
    notes: str = ""
    run: RunRecord
    checksum: str = Field(default="", description="sha256 of the file's bytes, this value blank")

    # -- looking sessions up --------------------------------------------------------------
    def entries(self) -> list[SessionEntry]:
        return [e for p in self.phases for e in p.sessions]

    def entry(self, number: int) -> SessionEntry | None:
        return next((e for e in self.entries() if e.number == number), None)

    def index(self) -> dict[int, SessionEntry]:
        """Every entry by session number (for a loop over many sessions: one pass)."""
        return {e.number: e for e in self.entries()}

    def record(self, number: int) -> SessionRecord | None:
        """The record of a session in progress (None: not started, or finished)."""
        return self.run.sessions.get(number)

    def forget(self, number: int) -> None:
        """A rolled-back session is not started again: its record and seed facts go."""
        self.run.sessions.pop(number, None)
        for phase in self.phases:
            for i, e in enumerate(phase.sessions):
                if e.number == number:
                    phase.sessions[i] = SessionEntry(number=number, title=e.title)

    def finished(self, number: int, index: dict[int, SessionEntry] | None = None) -> bool:
        """Finished and out of the records: completed (committed or adopted) or skipped.
        `index`: `index()`, when asking about many sessions."""
        entry = index.get(number) if index is not None else self.entry(number)
        return number not in self.run.sessions and entry is not None and entry.status in FINISHED

    def complete(self, number: int) -> bool:
        """Done as far as a session depending on it cares: committed, adopted or skipped
        (a commit waiting for the person's "continue" counts)."""
        rec = self.run.sessions.get(number)
        if rec is not None:
            return status_of(rec.step) in FINISHED
        return self.finished(number)

    # -- the seed view ----------------------------------------------------------------------
    def before_save(self, stamp: str) -> None:
        """Stamp the save and refresh the seed view (the store calls this)."""
        self.run.generation += 1
        self.last_updated_at = stamp
        self.refresh()

    def refresh(self) -> None:
        """Project every record in progress onto its seed entry, and summarise."""
        lanes, parked = self.run.lanes, self.run.parked
        for entry in self.entries():
            rec = self.run.sessions.get(entry.number)
            if rec is None and entry.number in parked:
                rec = parked[entry.number].record
            if rec is not None:
                project(entry, rec)
            elif (lane := lanes.get(entry.number)) is not None and lane.status != "integrated":
                entry.status = "blocked" if lane.status == "blocked" else "in_progress"
                entry.checkpoint = None
        self._summarise()

    def _summarise(self) -> None:
        entries = self.entries()
        for phase in self.phases:
            phase.status = _phase_status([e.status for e in phase.sessions])
        self.completed_sessions = [
            f"phase_{p.number}_session_{e.number}"
            for p in self.phases
            for e in p.sessions
            if e.status == "completed"
        ]
        recs = self.run.sessions
        lanes = {n for n, lane in self.run.lanes.items() if lane.status != "integrated"}
        busy = [
            e for e in entries
            if e.number in lanes or ((r := recs.get(e.number)) is not None and r.step in ACTIVE)
        ]  # fmt: skip
        waiting = [e for e in entries if e.status not in FINISHED]
        current = (busy or waiting or [None])[0]  # type: ignore[list-item]
        self.current_session = current.number if current else None
        self.current_phase = next((p.number for p in self.phases if current in p.sessions), None)
        self.blockers = [
            f"session {n}: {r.blocked_reason or r.problem}"
            for n, r in sorted(recs.items())
            if r.step is Step.BLOCKED or is_escalation(r.step)
        ] + [
            f"session {n}: {lane.reason}"
            for n, lane in sorted(self.run.lanes.items())
            if lane.status == "blocked"
        ]
        self.blockers += [
            f"session {n}: waits for a person's answer (parked; its work is kept under "
            f"{p.ref}): {p.record.problem}"
            for n, p in sorted(self.run.parked.items())
        ]
        if any(r.paused for r in recs.values()):
            self.status = "paused"
        elif self.blockers:
            self.status = "blocked"
        elif entries and not waiting:
            self.status = "completed"
        elif any(e.status != "not_started" for e in entries):
            self.status = "in_progress"
        else:
            self.status = "not_started"
        parked = current is not None and current.number in self.run.parked
        self.notes = _notes(current, recs.get(current.number) if current else None, parked)


def project(entry: SessionEntry, rec: SessionRecord) -> None:
    """A session record's seed view (status and checkpoint derived from its step)."""
    entry.status = status_of(rec.step)
    entry.checkpoint = checkpoint_of(rec.step)
    entry.started_at = rec.started_at
    entry.completed_at = rec.completed_at
    entry.commit_hash = rec.commit_hash
    entry.tests_written = rec.tests_written
    entry.tests_passing = rec.tests_passing
    entry.tests_counted = rec.tests_counted
    entry.coverage = rec.coverage
    entry.adopted = rec.adopted or None


def _phase_status(statuses: list[str]) -> SessionStatus:
    if statuses and all(s in FINISHED for s in statuses):
        return "completed"
    if "blocked" in statuses:
        return "blocked"
    if all(s == "not_started" for s in statuses):
        return "not_started"
    return "in_progress"


def _notes(entry: SessionEntry | None, rec: SessionRecord | None, parked: bool) -> str:
    if entry is None:
        return "Every session is completed or skipped."
    where = f"Session {entry.number} ({entry.title})"
    if parked:
        return f"{where} waits for a person's answer (parked)."
    if rec is None:
        return f"{where} is next."
    if rec.paused:
        return f"{where} is paused at {rec.step.value}."
    if entry.checkpoint:
        return f"{where} is awaiting approval at {entry.checkpoint}."
    return f"{where}: {entry.status}."


def state_store(layout: Layout) -> StateStore[RunState]:
    """The store of a run's `.agent-state.json` (and its lock) in the run folder."""
    return StateStore(layout.state, model=RunState, version=SCHEMA_VERSION, lock=layout.lock)


class SessionArchive:
    """The whole records of finished sessions, one file each, written once."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, number: int) -> Path:
        return self.folder / f"session-{number}.json"

    def put(self, number: int, rec: SessionRecord) -> None:
        from executor import fsutil

        fsutil.ensure_private_dir(self.folder, inside=self.folder.parent)
        fsutil.atomic_write_bytes(
            self.path(number), rec.model_dump_json().encode("utf-8"), fault="archive"
        )

    def get(self, number: int) -> SessionRecord | None:
        """A finished session's record; None when it has none (adopted, or the file is
        gone or unreadable: the archive is a record of the past, not a truth to run on)."""
        from executor.datamodel import DataError, validate_json

        try:
            return validate_json(SessionRecord, self.path(number).read_bytes())
        except (OSError, DataError):
            return None
