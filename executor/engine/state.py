"""`.agent-state.json`: the single truth of a plan run's progress (seed 004's schema,
extended with what resume needs). Pure models; persistence is `store.py`."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from executor.bridge.protocol import Consumed, PendingRequest
from executor.engine.machine import Checkpoint, Status, Step

SCHEMA_VERSION = 1


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SessionState(_Model):
    number: int
    title: str
    phase: int
    status: Status = "not_started"
    checkpoint: Checkpoint | None = None
    step: Step = "before_start"
    started_at: str | None = None
    completed_at: str | None = None
    commit_hash: str | None = None
    #: HEAD when the session started: rollback target, diff base, adoption search start.
    base_commit: str | None = None
    #: Plan-section hash when the session started (definition drift check).
    source_hash: str | None = None
    tests_written: int | None = None
    tests_passing: int | None = None
    coverage: float | None = None
    files_modified: list[str] = Field(default_factory=list)
    depends_on: list[int] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    retry_count: int = 0
    #: Consecutive agent error/timeout answers for the current step.
    agent_failures: int = 0
    #: Attempt number of the current agent step (1-based), for briefs and replay.
    attempt: int = 1
    #: What RED measured: the test files written and the ids that failed.
    red_test_files: list[str] = Field(default_factory=list)
    red_test_ids: list[str] = Field(default_factory=list)
    red_file_hashes: dict[str, str] = Field(default_factory=dict)
    green_test_ids: list[str] = Field(default_factory=list)
    #: Human feedback and failure output waiting to go into the next brief.
    feedback: list[str] = Field(default_factory=list)
    last_failure: str = ""
    #: Text to show at the next checkpoint (test summary of the last verify).
    last_summary: str = ""
    blocked_reason: str | None = None
    #: Counts human questions asked at this step, so each gets a distinct request key.
    asks: int = 0


class PhaseState(_Model):
    number: int
    name: str
    status: Literal["not_started", "in_progress", "completed", "blocked", "error"] = "not_started"
    sessions: list[SessionState] = Field(default_factory=list)


class RunState(_Model):
    schema_version: int = SCHEMA_VERSION
    tool_version: str
    definition_hash: str
    run_id: str
    #: Incremented by every save; a save must see the generation it loaded (fencing).
    generation: int = 0
    project_name: str
    plan_version: str = "1.0"
    plan_path: str
    status: Literal["not_started", "in_progress", "completed", "paused", "error"] = "not_started"
    current_phase: int | None = None
    current_session: int | None = None
    phases: list[PhaseState] = Field(default_factory=list)
    pending: PendingRequest | None = None
    consumed: list[Consumed] = Field(default_factory=list)
    #: HEAD and branch after the last step (stale-workspace detection).
    head: str | None = None
    branch: str | None = None
    blockers: list[str] = Field(default_factory=list)
    notes: str = ""
    created_at: str = Field(default_factory=now)
    updated_at: str = Field(default_factory=now)
    checksum: str = ""

    def sessions(self) -> list[SessionState]:
        return [s for p in self.phases for s in p.sessions]

    def session(self, number: int) -> SessionState | None:
        return next((s for s in self.sessions() if s.number == number), None)

    def phase(self, number: int) -> PhaseState | None:
        return next((p for p in self.phases if p.number == number), None)

    def body_checksum(self) -> str:
        return checksum_of(self.model_dump(mode="json"))


def checksum_of(data: dict[str, Any]) -> str:
    """sha256 of the canonical JSON body without the checksum field itself."""
    body = {k: v for k, v in data.items() if k != "checksum"}
    canon = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canon.encode("utf-8")).hexdigest()
