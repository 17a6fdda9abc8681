"""A workflow declared as one table: each step once, with its handler and its exits.

A `Node` is one step: its handler, the step each outcome leads to (a step, or a `Choice`
of named conditions: `executor.engine.choice`), and whether it is a `decision` (a person's
answer, saved with the next step's work: one resume, one save) or `final`. Only the driver
(`executor.engine.driver`) looks the next step up, records it and saves. `WAIT`, `PAUSE`,
`NO_HUMAN` and `BUDGET` are stops, never exits: the step stays, so a resumed process
re-enters it. `mermaid()` and `markdown()` draw a workflow (docs/engine.md holds the TDD
one; a test keeps it equal to the code).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from executor.engine.choice import Branch, Choice, label
from executor.errors import TransitionNotAllowed


class Outcome(str, enum.Enum):
    """What a step handler reports."""

    OK = "ok"
    FAILED = "failed"  # the step's work did not pass its check (a choice may retry it)
    NEEDS_PERSON = "needs_person"  # no automatic retry can help: a person must act
    RETRY = "retry"  # a person chose to run the agent again
    SKIP = "skip"  # nothing to do here (no such step in the plan), or a person skipped
    APPROVE = "approve"
    CHANGES = "request_changes"
    ABORT = "abort"
    BLOCKED = "blocked"
    ADOPT = "adopt"  # the plan claims the work done and the executor's own test run agrees
    RECHECK = "recheck"  # files changed after they were verified: verify again first
    # stops (never exits)
    WAIT = "wait"
    PAUSE = "pause"
    NO_HUMAN = "no_human"
    BUDGET = "budget"


STOPS = frozenset({Outcome.WAIT, Outcome.PAUSE, Outcome.NO_HUMAN, Outcome.BUDGET})
#: The line under a drawn table: the stops are no edges, so they are said once.
STOPS_LINE = (
    "Every step: wait, pause, no_human, budget stop the run and stay on the step "
    "(a resumed run re-enters it)."
)

S = TypeVar("S", bound=str)
H = TypeVar("H")


@dataclass(frozen=True)
class Node(Generic[S, H]):
    """One step of a workflow: its handler, and the step each outcome leads to."""

    step: S
    handler: Callable[[H], Outcome] | None
    exits: Mapping[Outcome, S | Choice[S, H]] = field(default_factory=dict)
    decision: bool = False
    final: str | None = None

    def edges(self) -> Iterator[tuple[Outcome, Branch[S, H] | None, S]]:
        """Each way out: its outcome, the branch of a choice (None: a plain exit), its step."""
        for outcome, to in self.exits.items():
            if isinstance(to, Choice):
                yield from ((outcome, b, b.target) for b in to.branches)
            else:
                yield outcome, None, to


@dataclass(frozen=True)
class Workflow(Generic[S, H]):
    """One workflow: its steps (in the order they are drawn) and where it starts."""

    name: str
    start: S
    nodes: tuple[Node[S, H], ...]
    _by_step: dict[S, Node[S, H]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_step = {n.step: n for n in self.nodes}
        assert len(by_step) == len(self.nodes), f"{self.name}: a step is declared twice"
        for n in self.nodes:
            missing = [t for _, _, t in n.edges() if t not in by_step]
            assert not missing, f"{self.name}: {n.step} leads to undeclared {missing}"
            assert not STOPS & set(n.exits), f"{self.name}: {n.step} has a stop as an exit"
        object.__setattr__(self, "_by_step", by_step)

    def node(self, step: S) -> Node[S, H]:
        return self._by_step[step]

    def next(self, step: S, outcome: Outcome, handlers: H) -> tuple[S, str]:
        """The step after `step` on `outcome` and the edge taken, as drawn (`failed
        [retries left]`); a choice is decided with `handlers` and the taken branch's action
        runs. TransitionNotAllowed when the step has no such exit."""
        to = self._by_step[step].exits.get(outcome)
        if to is None:
            raise TransitionNotAllowed(self.name, _name(step), outcome.value)
        if isinstance(to, Choice):
            branch = to.take(handlers)
            return branch.target, label(outcome.value, branch.name)
        return to, outcome.value

    @property
    def table(self) -> dict[tuple[S, str], S]:
        """Every edge: `(step, edge as drawn) -> next step`."""
        return {
            (n.step, label(o.value, b.name if b else None)): t
            for n in self.nodes
            for o, b, t in n.edges()
        }

    @property
    def final(self) -> dict[S, str]:
        return {n.step: n.final for n in self.nodes if n.final is not None}

    @property
    def decisions(self) -> frozenset[S]:
        return frozenset(n.step for n in self.nodes if n.decision)

    def steps(self) -> list[S]:
        return [n.step for n in self.nodes]

    def outcomes(self, step: S) -> list[Outcome]:
        return list(self._by_step[step].exits)

    def fingerprint(self) -> str:
        """A stable text of the transitions: part of the definition hash (P5)."""
        rows = sorted(f"{s}|{edge}|{t}" for (s, edge), t in self.table.items())
        return ";".join([self.name, *rows])

    def markdown(self) -> str:
        """The workflow as a Markdown table: each step, its handler, its exits (a branch
        of a choice as `outcome [condition] / action → step`), then the stops."""
        lines = ["| step | handler | outcome → next step |", "|---|---|---|"]
        for n in self.nodes:
            handler = getattr(n.handler, "__qualname__", "") if n.handler else ""
            exits = ", ".join(_exit(o, b, t) for o, b, t in n.edges())
            kind = " (decision)" if n.decision else ""
            ends = f"ends: {n.final}" if n.final else ""
            lines.append(
                f"| {_name(n.step)}{kind} | {handler} | {'; '.join(filter(None, [exits, ends]))} |"
            )
        return "\n".join([*lines, "", STOPS_LINE])

    def mermaid(self) -> str:
        """The workflow as a Mermaid state diagram, drawn from its declaration."""
        lines = ["stateDiagram-v2", f"    [*] --> {_name(self.start)}"]
        for n in self.nodes:
            for o, b, t in n.edges():
                lines.append(
                    f"    {_name(n.step)} --> {_name(t)}: {label(o.value, b.name if b else None)}"
                )
            if n.final is not None:
                lines.append(f"    {_name(n.step)} --> [*]: {n.final}")
        return "\n".join(lines)


def _name(step: object) -> str:
    return step.value if isinstance(step, enum.Enum) else str(step)


def _exit(outcome: Outcome, branch: Branch[S, H] | None, target: S) -> str:
    edge = label(outcome.value, branch.name if branch else None)
    action = f" / {branch.action()}" if branch and branch.action() else ""
    return f"{edge}{action} → {_name(target)}"
