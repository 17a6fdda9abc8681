"""What a session's mutation step measured, as its record keeps it (`SessionRecord.strength`
in `.agent-state.json` and `.agent-sessions/`; docs/test-strength.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from executor.datamodel import Strict

#: The most survivors a record keeps (the score counts them all).
SURVIVORS_KEPT = 50


class SurvivorFact(Strict):
    """A mutant the tests let through, as a person reads it."""

    file: str
    line: int
    operator: str
    diff: str = Field(description="`the line as it is` -> `the line with the mutant`")
    why: str = Field(description="what no test checks (no test runs the line, a boundary, ...)")

    def text(self) -> str:
        """`file:line: \\`a\\` -> \\`b\\` survived: why`."""
        return f"{self.file}:{self.line}: {self.diff} survived: {self.why}"


class StrengthFacts(Strict):
    """Test strength: mutants of the lines the session changed, killed or not by its tests
    (and, for what they let through, the suite's)."""

    step: Literal["green", "refactor"]
    tree: str = Field(description="the tested tree the mutants were made from")
    made: int = Field(default=0, description="mutants made from the changed lines")
    killed: int = 0
    total: int = Field(default=0, description="mutants judged (killed + survived)")
    by_suite: int = Field(default=0, description="killed only by tests outside the session's")
    timeouts: int = Field(default=0, description="killed because the tests hung on them")
    partial: bool = Field(default=False, description="the budget ran out before every mutant ran")
    unrun: int = Field(
        default=0, description="mutants the budget left unrun (a minimum counts them as survived)"
    )
    seconds: float = 0.0
    survivors: list[SurvivorFact] = Field(default_factory=list)
    note: str = Field(default="", description="why there is no figure (nothing to mutate, ...)")
    empty: bool = Field(
        default=False,
        description="the session changed no line a mutant can be made of: nothing to measure",
    )
    below: bool = Field(default=False, description="under --min-mutation-score")
    accepted: bool = Field(default=False, description="a person accepted the score as it is")
    retries: int = Field(default=0, description="strengthen-the-tests retries so far")

    @property
    def score(self) -> str:
        return f"{self.killed}/{self.total}"

    @property
    def percent(self) -> float:
        return 100.0 * self.killed / self.total if self.total else 100.0

    @property
    def gate_percent(self) -> float:
        """The score a minimum is held to: a mutant the budget left unrun is not known to
        be killed (a gate not measured has not passed)."""
        asked = self.total + self.unrun
        return 100.0 * self.killed / asked if asked else 100.0

    def headline(self) -> str:
        """One line: the score, or why there is none."""
        if not self.total:
            return f"Test strength: not measured: {self.note}" if self.note else (
                "Test strength: no mutant of the changed lines could be made")  # fmt: skip
        extra = [f"{self.seconds:g} s"]
        if self.partial:
            left = f", {self.unrun} not run" if self.unrun else ""
            extra.append(f"partial: the mutation budget ran out{left}")
        if self.by_suite:
            extra.append(f"{self.by_suite} killed only by the rest of the suite")
        if self.note:
            extra.append(self.note)
        return (f"Test strength: {self.score} mutants of the changed lines killed "
                f"({self.percent:.0f}%; {', '.join(extra)})")  # fmt: skip
