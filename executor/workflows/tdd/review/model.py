"""The record of a run as a reviewer reads it: one model, three views (the summary at the
end of a run, `executor show S`, the HTML and markdown report).

Plain values, built once from the state, the archived records, the plan and git
(`executor.workflows.tdd.review.build`); the views only arrange them. Every text that
came from an agent, a test run or the plan is kept as it came: each view escapes it for
where it goes (a terminal, HTML, markdown).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from executor.strength.facts import StrengthFacts
from executor.workflows.tdd.record.session import Answered, Ran

#: Where a session's time went.
Kind = Literal["agent", "tests", "mutation", "person", "other"]
KINDS: tuple[Kind, ...] = ("agent", "tests", "mutation", "person", "other")
KIND_WORDS: dict[Kind, str] = {
    "agent": "agent",
    "tests": "tests",
    "mutation": "mutation step",
    "person": "waiting for a person",
    "other": "the executor and waits between runs",
}


@dataclass
class Split:
    """Seconds spent on each kind of work (`other`: the rest of the wall clock)."""

    agent: float = 0.0
    tests: float = 0.0
    mutation: float = 0.0
    person: float = 0.0
    other: float = 0.0

    def of(self, kind: Kind) -> float:
        return float(getattr(self, kind))

    @property
    def total(self) -> float:
        return sum(self.of(k) for k in KINDS)

    def add(self, other: Split) -> None:
        for k in KINDS:
            setattr(self, k, self.of(k) + other.of(k))


@dataclass(frozen=True)
class Span:
    """One step on the timeline: where it starts (seconds after the session started),
    how long it took, what kind of work it was."""

    step: str
    outcome: str
    start: float
    seconds: float
    kind: Kind
    at: str


@dataclass
class Attempt:
    """One agent call: its step and attempt, what it answered, what it cost, and what the
    attempt changed against the one before it (a retry or requested changes)."""

    step: str
    attempt: int
    status: str
    seconds: float
    message: str
    cost_usd: float | None
    tokens: int | None
    transcript: str | None
    tree: str | None = None
    #: files this attempt changed against the previous attempt of its step
    changed: list[str] = field(default_factory=list)
    #: that change as a diff (None: not read, or the tree is gone)
    patch: str | None = None


@dataclass
class CommitView:
    sha: str
    subject: str = ""
    message: str = ""
    trailers: dict[str, str] = field(default_factory=dict)
    stat: str = ""
    patch: str = ""
    cut: int = 0
    #: the commit is not in this repository (rewritten, or another clone)
    missing: bool = False


@dataclass(frozen=True)
class Gap:
    """Something no check or no person stood behind: `kind` groups them (a summary counts
    each kind), `text` says it for this session."""

    kind: str
    text: str


@dataclass
class RedTest:
    test: str
    why: str


@dataclass
class SessionReview:
    number: int
    title: str
    phase: int
    phase_name: str
    status: str
    #: `file:line` of the session in the plan ("" when the plan no longer has it)
    source: str = ""
    objectives: list[str] = field(default_factory=list)
    plan_checks: list[str] = field(default_factory=list)
    started_at: str | None = None
    completed_at: str | None = None
    seconds: float = 0.0
    split: Split = field(default_factory=Split)
    spans: list[Span] = field(default_factory=list)
    red: list[RedTest] = field(default_factory=list)
    #: how many RED tests there were (`red` lists the first of them)
    red_count: int = 0
    #: `7 passing of 7`, or why not counted
    tests: str = "-"
    #: what the last verification measured (GREEN's and the suite's counts)
    verified: str = ""
    coverage: float | None = None
    strength: StrengthFacts | None = None
    judged: list[str] = field(default_factory=list)
    answers: list[Answered] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    runs: list[Ran] = field(default_factory=list)
    commit: CommitView | None = None
    unverified: list[Gap] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problem: str = ""
    cost_usd: float | None = None
    tokens: int | None = None
    retries: int = 0
    #: the whole record was read (False: only the seed entry is left)
    recorded: bool = True

    @property
    def problem_word(self) -> str:
        """How its `problem` is introduced."""
        return "Skipped after" if self.status == "skipped" else "Stopped"

    def red_by_reason(self) -> dict[str, list[str]]:
        """RED's tests by why they failed (tests that failed at one import: one reason)."""
        grouped: dict[str, list[str]] = {}
        for t in self.red:
            grouped.setdefault(t.why, []).append(t.test)
        return grouped


@dataclass
class RunReview:
    project: str
    plan: str
    state_file: str
    run_id: str
    status: str
    started_at: str
    updated_at: str
    tool_version: str
    phase: int | None = None
    phase_names: dict[int, str] = field(default_factory=dict)
    sessions: list[SessionReview] = field(default_factory=list)
    split: Split = field(default_factory=Split)
    cost_usd: float | None = None
    tokens: int | None = None
    agent_calls: int = 0
    retries: int = 0
    options: list[str] = field(default_factory=list)

    def count(self, *statuses: str) -> int:
        return sum(s.status in statuses for s in self.sessions)

    @property
    def done(self) -> int:
        return self.count("completed")

    @property
    def waiting(self) -> int:
        return self.count(
            "awaiting_approval",
            "in_progress",
            "red_phase",
            "green_phase",
            "refactor_phase",
            "parked",
        )

    @property
    def stopped(self) -> int:
        return self.count("blocked")

    def gaps_said(self) -> str:
        """`19 checkpoints approved by --yes, 1 session without RED`: each kind counted."""
        return ", ".join(counted(n, kind) for kind, n in self.gaps().items())

    def gaps(self) -> dict[str, int]:
        """How many of each kind of gap the sessions have, most first."""
        counts: dict[str, int] = {}
        for s in self.sessions:
            for gap in s.unverified:
                counts[gap.kind] = counts.get(gap.kind, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def counted(n: int, kind: str) -> str:
    """`n` of a kind of gap, its first word singular for one (`1 session without RED`)."""
    first, _, rest = kind.partition(" ")
    if n == 1 and first in {"checkpoints", "sessions"}:
        return f"1 {first[:-1]} {rest}"
    return f"{n} {kind}"
