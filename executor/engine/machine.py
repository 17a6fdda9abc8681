"""A workflow declared as one table, `(step, outcome) -> next step`, and its outcomes.

Handlers do the work of a step and return an `Outcome`; only the driver
(`executor.engine.driver`) looks the next step up here, records it and saves. Four
outcomes are not transitions but stops, and never appear in a table: `WAIT` (a request
went to the bridge: exit 42), `PAUSE` (a person paused: exit 20), `NO_HUMAN` (a person
must decide and none is available: exit 16) and `BUDGET` (a budget is spent: exit
23). The step stays where it was, so a resumed process re-enters exactly that step.

A workflow also names its `final` steps (the drive ends when a transition lands on one,
with the reason given) and its `decisions`: steps whose only work is to take a human
answer. The driver does not save after those (their answer is saved with the next
step's work, so one resume makes one save; the answer's file is only removed after).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from executor.errors import TransitionNotAllowed


class Outcome(str, enum.Enum):
    """What a step handler reports."""

    OK = "ok"
    FAILED = "failed"  # the step could not be verified; a person decides
    RETRY = "retry"  # verification failed, automatic retry within budget
    SKIP = "skip"  # nothing to do here (no such step in the plan), or a person skipped
    APPROVE = "approve"
    CHANGES = "request_changes"
    ABORT = "abort"
    BLOCKED = "blocked"
    ADOPT = "adopt"  # the plan claims the work done and the executor's own test run agrees
    RECHECK = "recheck"  # files changed after they were verified: verify again first
    # stops (never in a table)
    WAIT = "wait"
    PAUSE = "pause"
    NO_HUMAN = "no_human"
    BUDGET = "budget"


STOPS = frozenset({Outcome.WAIT, Outcome.PAUSE, Outcome.NO_HUMAN, Outcome.BUDGET})

S = TypeVar("S", bound=str)


@dataclass(frozen=True)
class Workflow(Generic[S]):
    """One workflow: its table, where it starts, where it ends, and its decision steps."""

    name: str
    start: S
    table: Mapping[tuple[S, Outcome], S]
    #: final step -> why the drive ended there ("done", "blocked", "rolled_back", ...)
    final: Mapping[S, str]
    decisions: frozenset[S]

    def next(self, step: S, outcome: Outcome) -> S:
        """The step after `step` on `outcome`, or TransitionNotAllowed."""
        try:
            return self.table[(step, outcome)]
        except KeyError:
            name = step.value if isinstance(step, enum.Enum) else str(step)
            raise TransitionNotAllowed(self.name, name, outcome.value) from None

    def steps(self) -> list[S]:
        """Every step the table mentions, in first-mention order."""
        seen: dict[S, None] = {self.start: None}
        for (step, _), target in self.table.items():
            seen.setdefault(step, None)
            seen.setdefault(target, None)
        return list(seen)

    def outcomes(self, step: S) -> list[Outcome]:
        return [o for (s, o) in self.table if s == step]

    def fingerprint(self) -> str:
        """A stable text of the table: part of the definition hash (P5)."""
        rows = sorted(f"{s}|{o.value}|{t}" for (s, o), t in self.table.items())
        return ";".join([self.name, *rows])
