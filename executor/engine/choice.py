"""A guarded exit: one outcome of a step that may lead to one of several steps.

A `Choice` is an ordered list of `Branch`es (python-statemachine's `cond=` and `on=`):
each a named condition of the workflow's handler object (a pure predicate: it reads,
never writes) and the step it leads to, with an action run only when that branch is
taken. The first branch whose condition holds wins; the last has no condition (`else`),
so a choice always leads somewhere. The names are drawn: `failed [retries left]`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

S = TypeVar("S", bound=str)
H = TypeVar("H")

ELSE = "else"


@dataclass(frozen=True)
class Branch(Generic[S, H]):
    """One way out of a choice: taken when `when` holds (always, without one)."""

    target: S
    name: str = ELSE
    when: Callable[[H], bool] | None = None
    on: Callable[[H], None] | None = None

    def action(self) -> str:
        """The action's name as drawn ("" without one)."""
        return getattr(self.on, "__qualname__", "") if self.on else ""


class Choice(Generic[S, H]):
    """Branches tried in order; the last, unguarded, is taken when no other holds."""

    def __init__(self, *branches: Branch[S, H]) -> None:
        *guarded, last = branches
        assert all(b.when is not None and b.name != ELSE for b in guarded), (
            "only the last branch of a choice may be unguarded"
        )
        assert last.when is None and last.name == ELSE, "a choice ends with an else branch"
        names = [b.name for b in branches]
        assert len(set(names)) == len(names), f"a choice names a branch twice: {names}"
        self.branches: tuple[Branch[S, H], ...] = tuple(branches)

    def take(self, handlers: H) -> Branch[S, H]:
        """The first branch whose condition holds, its action run."""
        branch = next(b for b in self.branches if b.when is None or b.when(handlers))
        if branch.on is not None:
            branch.on(handlers)
        return branch


def label(outcome: str, branch: str | None) -> str:
    """An edge as drawn and logged: `failed`, or `failed [retries left]` for a branch."""
    return outcome if branch is None else f"{outcome} [{branch}]"
