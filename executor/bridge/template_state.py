"""`.template-create-state.json`: one record for the workflow and for the seed API.

Seed 000's fields stay where a seed program looks for them; around them the workflow
keeps its cursor, the bridge `Ledger` and the store's bookkeeping. `executor
template-create` and `executor.bridge.StateManager` both go through `template_store`,
and older forms are read through `migrate` (docs/template-create.md, "State and resume").
It lives in the bridge package because the seed API owns the file format and
`executor.bridge` must import without the workflow's handlers.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Any

from pydantic import Field

from executor.bridge.models import PROTOCOL_VERSION, InvokerLedger
from executor.datamodel import Strict, dump
from executor.store import StateStore

SCHEMA_VERSION = 3
STATE_NAME = ".template-create-state.json"


class Step(str, enum.Enum):
    QA = "qa"
    ANALYSIS = "analysis"
    GENERATION = "generation"
    AGENTS = "agents"
    CLAUDE_MD = "claude_md"
    ASSEMBLY = "assembly"
    DONE = "done"
    CANCELLED = "cancelled"


S = Step

#: step -> (seed 000 phase, checkpoint): what is complete when the cursor is there.
_PROGRESS: dict[Step, tuple[int, str]] = {
    S.QA: (1, "started"),
    S.ANALYSIS: (1, "qa_complete"),
    S.GENERATION: (2, "analysis_complete"),
    S.AGENTS: (5, "templates_generated"),
    S.CLAUDE_MD: (6, "agents_generated"),
    S.ASSEMBLY: (7, "claude_md_generated"),
    S.DONE: (8, "complete"),
    S.CANCELLED: (1, "cancelled"),
}
#: step whose agent request is pending -> (phase, checkpoint)
_WAITING: dict[Step, tuple[int, str]] = {
    S.ANALYSIS: (2, "analysis_pending"),
    S.AGENTS: (6, "agent_generation_pending"),
}


def progress_of(step: Step, *, waiting: bool) -> tuple[int, str]:
    """Seed 000's `(phase, checkpoint)` for a step; `waiting`: its request is pending."""
    if waiting and step in _WAITING:
        return _WAITING[step]
    return _PROGRESS[step]


class StepLog(Strict):
    """One transition: the step that ran, what it reported, when and for how long."""

    step: Step
    outcome: str
    at: str
    seconds: float
    note: str = ""


class TemplateCreateState(Strict):
    """`.template-create-state.json`: seed 000's checkpoint, the workflow's cursor and
    the bridge ledger, in one file."""

    schema_version: int = SCHEMA_VERSION
    version: str = Field(default=PROTOCOL_VERSION, description="seed 000's version")
    checkpoint: str = Field(description="seed 000's checkpoint (derived from step)")
    phase: int = Field(description="seed 000's phase number (derived from step)")
    created_at: str
    updated_at: str
    config: dict[str, Any] = Field(
        default_factory=dict, description="the run's options (see docs/template-create.md)"
    )
    phase_data: dict[str, Any] = Field(
        default_factory=dict,
        description="results of the finished steps: qa_answers, analysis, templates, ...",
    )
    agent_request_pending: dict[str, Any] | None = Field(
        default=None, description="the bridge's pending request, mirrored for the seed"
    )
    step: Step | None = Field(
        default=None, description="the workflow cursor; null in a state the seed API wrote"
    )
    agent_failures: int = Field(default=0, description="failed agent answers in a row at this step")
    history: list[StepLog] = Field(default_factory=list)
    bridge: InvokerLedger = Field(default_factory=InvokerLedger)
    generation: int = Field(
        default=0, description="incremented by every save; a save must see the one it loaded"
    )
    checksum: str = Field(
        default="", description="sha256 of the file's bytes, with this value blank"
    )

    def before_save(self, stamp: str) -> None:
        self.generation += 1
        self.updated_at = stamp

    def derive(self) -> None:
        """Seed 000's checkpoint, phase and pending request, from the cursor and ledger."""
        if self.step is not None:
            self.phase, self.checkpoint = progress_of(
                self.step, waiting=self.bridge.pending is not None
            )
        self.agent_request_pending = dump(self.bridge.pending) if self.bridge.pending else None


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """A seed-form (no schema_version), schema-1 or schema-2 body (whose checksum was of
    another form) in the current form: the fields added since take their defaults;
    schema 1's `bridge: null` is an empty ledger."""
    out = {k: v for k, v in data.items() if k not in {"schema_version", "checksum"}}
    if out.get("bridge") is None:
        out.pop("bridge", None)
    return {**out, "schema_version": SCHEMA_VERSION}


def template_store(state_file: Path) -> StateStore[TemplateCreateState]:
    """The one store of a `.template-create-state.json` (lock: `.template-create-state.lock`)."""
    state_file = Path(state_file).absolute()
    return StateStore(
        state_file,
        model=TemplateCreateState,
        version=SCHEMA_VERSION,
        lock=state_file.with_name(state_file.name.removesuffix(".json") + ".lock"),
        migrate=migrate,
    )
