"""What a run covers: the whole plan, one phase, or one session (numbers are global)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from executor.errors import UserError
from executor.plan.cache import PlanView
from executor.plan.models import Outline


@dataclass(frozen=True)
class PlanScope:
    """Every session of the plan, in dependency order (`execute-plan`)."""


@dataclass(frozen=True)
class PhaseScope:
    """Every session of phase `number`, in dependency order (`execute-phase N`)."""

    number: int


@dataclass(frozen=True)
class SessionScope:
    """One session (`execute-session S`, `resume-session S`); `phase` is checked if given."""

    number: int
    phase: int | None = None
    #: run it again if it is finished (`--redo`: `executor.workflows.tdd.runner.redo`)
    redo: bool = False


Scope = PlanScope | PhaseScope | SessionScope


def topo_order(sessions: Sequence[Outline]) -> list[Outline]:
    by_num = {s.number: s for s in sessions}
    done: set[int] = set()
    out: list[Outline] = []

    def visit(s: Outline) -> None:
        if s.number in done:
            return
        done.add(s.number)
        for d in sorted(s.dependencies):
            if d in by_num:
                visit(by_num[d])
        out.append(s)

    for s in sorted(sessions, key=lambda s: s.number):
        visit(s)
    return out


def select(plan: PlanView, scope: Scope) -> list[int]:
    """The session numbers `scope` covers, dependencies first; UserError if unknown."""
    outline = plan.outline()
    running = [s for s in outline if s.left_out is None]  # optional, cancelled: asked for only
    if isinstance(scope, PlanScope):
        return [s.number for s in topo_order(running)]
    if isinstance(scope, PhaseScope):
        if scope.number not in plan.phase_names():
            known = ", ".join(str(n) for n in plan.phase_names())
            raise UserError(f"phase {scope.number} is not in the plan (phases: {known})")
        return [s.number for s in topo_order([s for s in running if s.phase == scope.number])]
    session = next((s for s in outline if s.number == scope.number), None)
    if session is None:
        known = ", ".join(str(s.number) for s in outline)
        raise UserError(f"session {scope.number} is not in the plan (sessions: {known})")
    if scope.phase is not None and session.phase != scope.phase:
        raise UserError(
            f"session {session.number} belongs to phase {session.phase}, not phase {scope.phase}"
        )
    return [session.number]
