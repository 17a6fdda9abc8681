"""`.agent-state.json`: the single truth of a plan run's progress.

One `SessionRecord` per session that has left `not_started` (a session with no record
has not started: nothing about it is stored). Each record holds its own cursor (the
workflow step), its own bridge ledger (pending request, consumed responses), the base
commit it started from and the HEAD/branch it last saw, so two sessions could each wait
on an agent at once. Status, checkpoint, current session and the seed-004 view are
derived (`executor status --json` prints them), never stored beside the step.

Persistence (atomic save, `.bak`, lock, checksum, generation) is `store.py`; the JSON
Schema is `docs/schemas/agent-state.schema.json`, kept in sync by a test.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from executor.bridge.models import Ledger, utc_now
from executor.datamodel import Strict
from executor.engine.machine import Outcome
from executor.workflows.tdd.step import Step

SCHEMA_VERSION = 2

Checkpoints = Literal["all", "session", "none"]


now = utc_now


class RunOptions(Strict):
    """The options a run was started with; `--resume` and `resume-session` reuse them
    unless the command line overrides one."""

    agent_command: str | None = Field(
        default=None, description="run agents with this command; null: the exit-42 bridge"
    )
    agent: str | None = Field(
        default=None,
        description=(
            "run agents with this preset (claude, codex, ...); bridge (like null with no "
            "agent_command): the exit-42 bridge"
        ),
    )
    agent_timeout: int | None = Field(
        default=None, ge=1, description="seconds an agent call may take"
    )
    checkpoints: Checkpoints = "all"
    max_retries: int = Field(default=2, ge=0)
    test_command: str | None = None
    budget_usd: float | None = Field(default=None, ge=0)
    budget_tokens: int | None = Field(default=None, ge=0)
    budget_minutes: float | None = Field(default=None, ge=0, description="agent wall time")


class StepLog(Strict):
    """One transition: the step that ran, what it reported, when and for how long."""

    step: Step
    outcome: str
    at: str
    seconds: float
    note: str = ""


class AgentCall(Strict):
    """One answer from an agent (bridge or command)."""

    step: Step
    attempt: int
    status: str
    seconds: float
    message: str = Field(default="", description="the agent's final message (bounded)")
    cost_usd: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    turns: int | None = None
    log: str | None = Field(default=None, description="the transcript (.agent-logs/)")


class RedFacts(Strict):
    """What RED measured: the test files it wrote, their hashes, the ids that failed."""

    files: list[str] = Field(default_factory=list)
    hashes: dict[str, str] = Field(default_factory=dict)
    failing: list[str] = Field(default_factory=list)
    infra: dict[str, str] = Field(
        default_factory=dict,
        description="test infrastructure as RED left it (GREEN/REFACTOR may not touch it)",
    )
    why: dict[str, str] = Field(
        default_factory=dict, description="test id -> why it failed (one line, bounded)"
    )
    passed: list[str] = Field(default_factory=list, description="tests that already passed in RED")


class SessionRecord(Strict):
    step: Step = Step.NOT_STARTED
    paused: bool = Field(default=False, description="the last stop was a pause")
    blocked_reason: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    base_commit: str | None = Field(
        default=None, description="HEAD when the session started: rollback target"
    )
    head: str | None = Field(default=None, description="HEAD after the last step")
    branch: str | None = None
    source_hash: str | None = Field(
        default=None, description="the session's plan section when it started (drift)"
    )
    commit_hash: str | None = None
    adopted: bool = Field(
        default=False,
        description="ticked as done in the plan and proven by a test run: no agent call",
    )
    attempt: int = Field(default=1, ge=1, description="attempt of the current agent step")
    agent_failures: int = Field(default=0, description="failed agent answers in a row at this step")
    retries: int = Field(default=0, description="automatic verify retries at this step")
    asks: int = Field(default=0, description="questions asked (each gets its own key)")
    feedback: list[str] = Field(
        default_factory=list, description="the person's feedback for the next brief"
    )
    last_failure: str = Field(default="", description="why the last attempt was rejected")
    last_summary: str = Field(default="", description="what the last check measured")
    problem: str = Field(default="", description="what the person decides about")
    after_rollback: Literal["restart", "skip"] = "restart"
    tree: dict[str, str] = Field(
        default_factory=dict,
        description="every changed file's sha256 as the last work step left it",
    )
    excluded: list[str] = Field(
        default_factory=list, description="a person's files kept out of the commit"
    )
    ignored: list[str] | None = Field(
        default=None, description="what git ignored when the session started (files, `folder/`s)"
    )
    held_action: str | None = Field(
        default=None, description="an answer waiting while edits made meanwhile are settled"
    )
    red: RedFacts = Field(default_factory=RedFacts)
    green_passed: list[str] = Field(default_factory=list)
    tests_written: int | None = None
    tests_passing: int | None = None
    coverage: float | None = None
    files_modified: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    history: list[StepLog] = Field(default_factory=list)
    agent_calls: list[AgentCall] = Field(default_factory=list)
    bridge: Ledger = Field(default_factory=Ledger)

    def log(self, step: Step, outcome: Outcome, seconds: float, note: str) -> None:
        """Record one transition (the driver calls this once per step it leaves)."""
        self.history.append(
            StepLog(step=step, outcome=outcome.value, at=now(), seconds=seconds, note=note)
        )


class RunState(Strict):
    schema_version: int = SCHEMA_VERSION
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
            "the plan this run executes, as named (a file or a folder); a folder keeps one plan's"
            " run"
        ),
    )
    options: RunOptions = Field(default_factory=RunOptions)
    sessions: dict[int, SessionRecord] = Field(default_factory=dict)
    created_at: str = Field(default_factory=now)
    updated_at: str = Field(default_factory=now)
    checksum: str = Field(default="", description="sha256 of the canonical body")
