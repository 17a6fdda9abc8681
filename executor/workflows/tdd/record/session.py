"""One session's record: its workflow cursor, what it ran, asked and measured (kept under
`run.sessions` while it is in progress, archived whole when it ends)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from executor.bridge.models import Ledger
from executor.datamodel import Strict
from executor.pinning import TestEnvironment
from executor.stamps import utc_now as now
from executor.strength.facts import StrengthFacts
from executor.workflows.tdd.record.parked import Parked
from executor.workflows.tdd.step import AGENT_STEPS, Step
from executor.workflows.tdd.trust.redfacts import RedFacts

#: How `tests_written` / `tests_passing` were counted (`executor.workflows.tdd.record.counts`).
TestsCounted = Literal["report", "source", "exit_code"]
COUNTED = (
    "how the test counts were measured: report (test cases in the runner's report), source "
    "(RED could not collect its tests: test functions read from their files), exit_code "
    "(not measured: no report, the command's exit code only)"
)


class StepLog(Strict):
    """One transition: the step that ran, what it reported, when and for how long."""

    step: Step
    outcome: str
    at: str
    seconds: float
    note: str = ""
    tree: str | None = Field(
        default=None, description="an agent step: the tree its attempt left (what it changed)"
    )


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


class Answered(Strict):
    """A person's answer at a checkpoint or after a failure: what, when, how, and how long
    the question waited for it."""

    step: Step
    action: str
    via: Literal["terminal", "bridge", "yes", "not_asked"] = Field(
        description="a person at the terminal, a person through the bridge, --yes, or not "
        "asked (--checkpoints leaves the checkpoint out)"
    )
    at: str
    waited: float = Field(default=0.0, description="seconds from the question to its answer")
    feedback: str = Field(default="", description="what the person asked for (bounded)")


class Ran(Strict):
    """One test run the executor made for the session, as the runner's report counted it."""

    step: Step
    attempt: int
    command: str
    seconds: float
    verdict: str
    summary: str = Field(description="the run in one line, as the checkpoint showed it")
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    counted: bool = Field(default=True, description="from the runner's report (not exit code)")
    log: str | None = Field(default=None, description="its output (.agent-logs/)")


#: The most test runs and answers a session's record keeps (its latest).
KEPT = 100


class PersonHook(Strict):
    """The person's commit hooks as the repository had them when a session started:
    the ones the session runs before "Commit?" (`executor.workflows.tdd.session.hooks`)."""

    kind: Literal["pre-commit", "hook"]
    #: pre-commit: the blob of `.pre-commit-config.yaml` at the start; hook: its path
    source: str
    #: hook: sha256 of the hook file at the start (another content is never run)
    digest: str = ""


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
    tree: str = Field(default="", description="the tree id the last work step left")
    verified: str = Field(default="", description="the tree id the last verification tested")
    stopped: str = Field(
        default="",
        description="the tree as Ctrl+C or SIGTERM left an agent step (its process ended): "
        "what changes after it is a person's, settled when the step goes on",
    )
    changes_from: str = Field(
        default="",
        description="the tree a person saw at the gate where they asked for changes (the next "
        "attempt is shown against it); empty once a gate is approved",
    )
    base_tests: dict[str, str] = Field(
        default_factory=dict, description="every test's fingerprint when the session started"
    )
    base_infra: dict[str, str] | None = Field(
        default=None,
        description="the files the session's test commands run, as the session started "
        "(before RED): RED may change them only where its diff shows it",
    )
    weakened: list[str] = Field(
        default_factory=list, description="tests a step weakened (a person may accept them)"
    )
    flaky: list[str] = Field(
        default_factory=list,
        description="tests the session did not touch that failed, then passed when run again "
        "on the same tree (counted neither as failing nor as passing)",
    )
    infra_changed: list[str] = Field(
        default_factory=list,
        description="test infrastructure changed since RED (a person may take it in)",
    )
    accepted: list[str] = Field(
        default_factory=list,
        description="test files whose changes a person took into the session (their earlier "
        "sessions' tests may stop passing in the suite)",
    )
    excluded: list[str] = Field(
        default_factory=list, description="a person's files kept out of the commit"
    )
    person_edited: list[str] = Field(
        default_factory=list,
        description="files a person changed while the session waited, taken in with nobody "
        "to ask (`--yes`) because the session had changed them too: its commit names them",
    )
    unchecked: list[str] = Field(
        default_factory=list,
        description="the plan's checks a person makes, approved with no person looking "
        "(`--yes`, or a checkpoint `--checkpoints` leaves out): committed as not verified",
    )
    kept: dict[str, str] = Field(
        default_factory=dict, description="each kept-out file's content (blob id; - absent)"
    )
    flags: dict[str, str] = Field(
        default_factory=dict, description="the person's index flags when the session started"
    )
    settings: dict[str, str] = Field(
        default_factory=dict,
        description="the executor's settings files before the agent step (blob id; - absent)",
    )
    ignored: list[str] | None = Field(
        default=None, description="what git ignored when the session started (files, `folder/`s)"
    )
    outside: dict[str, str] | None = Field(
        default=None,
        description="pytest's settings and conftest.py above the repository at the session's "
        "start (path -> content hash)",
    )
    held_action: str | None = Field(
        default=None, description="an answer waiting while edits made meanwhile are settled"
    )
    hooks: PersonHook | None = Field(
        default=None, description="the person's commit hooks when the session started"
    )
    environment: TestEnvironment | None = Field(
        default=None,
        description="the project's environment the session's tests run in: the run's pin",
    )
    hook_rewrites: int = Field(default=0, description="hook runs in a row that changed files")
    hook_retries: int = Field(default=0, description="automatic retries after failing hooks")
    red: RedFacts = Field(default_factory=RedFacts)
    green_passed: list[str] = Field(default_factory=list)
    in_suite: str | None = Field(
        default=None,
        description="the whole-suite command GREEN's passing tests were measured in (later "
        "sessions' runs of it must keep them passing); null: measured by their own command",
    )
    tests_written: int | None = None
    tests_passing: int | None = None
    tests_counted: TestsCounted | None = Field(default=None, description=COUNTED)
    coverage: float | None = None
    strength: StrengthFacts | None = Field(
        default=None, description="test strength: mutants of the changed lines, killed or not"
    )
    stryker: str | None = Field(
        default=None,
        description="a fingerprint of Stryker's program when the session started (empty: "
        "the project had none; null: not recorded)",
    )
    files_modified: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    history: list[StepLog] = Field(default_factory=list)
    agent_calls: list[AgentCall] = Field(default_factory=list)
    answers: list[Answered] = Field(
        default_factory=list, description="every answer a person (or --yes) gave, in order"
    )
    runs: list[Ran] = Field(
        default_factory=list, description="the executor's test runs for the session, in order"
    )
    bridge: Ledger = Field(default_factory=Ledger)

    def log(self, step: Step, edge: str, seconds: float, note: str) -> None:
        """Record one transition (the driver calls this once per step it leaves)."""
        tree = (self.tree or None) if step in AGENT_STEPS else None
        self.history.append(
            StepLog(step=step, outcome=edge, at=now(), seconds=seconds, note=note, tree=tree)
        )

    def add_answer(self, answer: Answered) -> None:
        self.answers = [*self.answers[-(KEPT - 1) :], answer]

    def add_run(self, run: Ran) -> None:
        self.runs = [*self.runs[-(KEPT - 1) :], run]


class ParkedSession(Parked):
    """A parked session (`executor.workflows.tdd.parking`): where its work is kept, the
    question it waits on, and its whole record (out of `run.sessions`: its work is not in
    the checkout)."""

    record: SessionRecord
