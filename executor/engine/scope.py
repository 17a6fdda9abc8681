"""What a run covers: the whole plan, one phase, or one session (numbers are global)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from executor.errors import UserError
from executor.plan.models import Plan, Session


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


Scope = PlanScope | PhaseScope | SessionScope


def topo_order(sessions: Sequence[Session]) -> list[Session]:
    by_num = {s.number: s for s in sessions}
    done: set[int] = set()
    out: list[Session] = []

    def visit(s: Session) -> None:
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


def select(plan: Plan, scope: Scope) -> list[int]:
    """The session numbers `scope` covers, dependencies first; UserError if unknown."""
    if isinstance(scope, PlanScope):
        return [s.number for s in topo_order(plan.sessions())]
    if isinstance(scope, PhaseScope):
        phase = plan.phase(scope.number)
        if phase is None:
            known = ", ".join(str(p.number) for p in plan.phases)
            raise UserError(f"phase {scope.number} is not in the plan (phases: {known})")
        return [s.number for s in topo_order(phase.sessions)]
    session = plan.session(scope.number)
    if session is None:
        known = ", ".join(str(s.number) for s in plan.sessions())
        raise UserError(f"session {scope.number} is not in the plan (sessions: {known})")
    if scope.phase is not None and session.phase != scope.phase:
        raise UserError(
            f"session {session.number} belongs to phase {session.phase}, not phase {scope.phase}"
        )
    return [session.number]
