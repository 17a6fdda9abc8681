"""How a session's drive that did not finish ends the run: the error that carries what
the CLI says (and the command that continues the run), after what must be saved."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from executor.errors import (
    BlockedError,
    BudgetSpent,
    ExecutorError,
    Paused,
    UserCancelled,
    VerificationFailedError,
)
from executor.workflows.tdd import budget
from executor.workflows.tdd.scope import PhaseScope, PlanScope, Scope
from executor.workflows.tdd.state import RunState

if TYPE_CHECKING:
    from executor.engine.layout import Layout
    from executor.workflows.tdd.table import TddSession


def continue_words(scope: Scope, number: int | None = None) -> list[str]:
    """The subcommand that continues a stopped run over the same scope: a plan or phase
    run goes on past this session; a session run finishes this session (`number`, else
    the scope's own)."""
    if isinstance(scope, PlanScope):
        return ["execute-plan"]
    if isinstance(scope, PhaseScope):
        return ["execute-phase", str(scope.number)]
    return ["resume-session", str(number if number is not None else scope.number)]


def stopped(
    ended: str,
    state: RunState,
    number: int,
    session: TddSession,
    scope: Scope,
    layout: Layout,
    *,
    unsaved: list[str],
    save: Callable[[], None],
) -> ExecutorError:
    """The error for a drive that ended `ended` (blocked, rolled_back, budget, pause,
    no_human). `unsaved`: what this command line had that the saved options do not."""
    rec, title = session.rec, session.s.title
    go_on = continue_words(scope, number)
    if ended == "blocked":
        return BlockedError(
            f"session {number} ({title}) is blocked: {rec.blocked_reason}. Run "
            f"those first (execute-plan runs every session in dependency order)."
        )
    if ended == "rolled_back":
        backup, base = session.rolled_back or ("", None)
        state.forget(number)
        save()
        restore = (
            f"; everything it held is saved in {backup}. To get those files back: "
            f"git checkout {backup} -- ."
        )
        return UserCancelled(
            f"Session {number} was rolled back: the worktree was reset to "
            f"{(base or 'its start')[:12]}" + (restore if backup else "."),
            backup_ref=backup or None,
            resume_flags=unsaved,
            session=number,
            plan=layout.folder,
            continue_with=go_on,
        )
    if ended == "budget":
        over = budget.exceeded(state.run.options, state.run.spent)
        return BudgetSpent(
            f"Budget spent before session {number}'s next agent call: {rec.problem}. "
            f"State saved; nothing else was touched.",
            spent=rec.problem,
            resume_flags=[*unsaved, *((over.flag, over.larger) if over else ())],
            session=number,
            plan=layout.folder,
            continue_with=go_on,
        )
    if ended == "pause":
        return Paused(
            f"Paused at session {number} ({rec.step.value}); state saved in {layout.state}.",
            resume_flags=unsaved,
            session=number,
            plan=layout.folder,
            continue_with=go_on,
        )
    return VerificationFailedError(
        f"{rec.problem}\n{rec.last_failure[-2000:]}\nNo human is available (--yes "
        f"without a terminal), so the run stops here. State is saved. Fix the cause and "
        f"run the same command again: it checks again (files you change meanwhile "
        f"become part of the session, and the run says which); or run on a "
        f"terminal / through a host to decide (retry the agent, roll back, skip)."
    )
