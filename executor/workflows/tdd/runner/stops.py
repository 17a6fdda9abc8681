"""How a session's drive that did not finish ends the run: the error that carries what
the CLI says (and the command that continues the run), after what must be saved."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from executor.errors import (
    BlockedError,
    BudgetSpent,
    DirtyWorktreeError,
    ExecutorError,
    Paused,
    UserCancelled,
    VerificationFailedError,
)
from executor.workflows.tdd.record.state import RunState
from executor.workflows.tdd.runner.scope import PhaseScope, PlanScope, Scope
from executor.workflows.tdd.session import budget
from executor.workflows.tdd.step import AGENT_STEPS

if TYPE_CHECKING:
    from executor.engine.layout import Layout
    from executor.store import StateStore
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
    if session.unclaimed:
        return DirtyWorktreeError(
            f"{rec.problem} With nobody to ask (--yes without a terminal) they are not "
            f"committed as the session's work, so the run stops here; state saved. Run the "
            f"same command on a terminal (or through a host) to keep them out of the "
            f"session or take them in, or undo them and run it again.",
            files=session.unclaimed,
        )
    return VerificationFailedError(
        f"{rec.problem}\n{rec.last_failure[-2000:]}\nNo human is available (--yes "
        f"without a terminal), so the run stops here. State is saved. Fix the cause and "
        f"run the same command again: it checks again (files you change meanwhile are "
        f"asked about, or with nobody to ask stop the run, listed); or run on a "
        f"terminal / through a host to decide (retry the agent, roll back, skip)."
    )


def note_interrupt(store: StateStore[RunState], layout: Layout) -> None:
    """Ctrl+C or SIGTERM stopped the run (an agent process it ran is ended by then): the
    tree of each session stopped in an agent step is recorded, so what changes after it
    is known to be a person's (`Settling.settle_stop`), never the agent's. A session
    waiting on a host's agent is left alone: that agent works after the run stops."""
    from pathlib import Path

    from executor.vcs import GitRepo

    state = store.load()
    stopped = [
        rec for rec in (state.run.sessions.values() if state else ())
        if rec.step in AGENT_STEPS and rec.bridge.pending is None and not rec.stopped
    ]  # fmt: skip
    if state is None or not stopped:
        return
    repo = GitRepo(Path(state.run.repo))
    for rec in stopped:
        ignore = [*layout.owned(), *(repo.root / f for f in rec.excluded)]
        rec.stopped = repo.record_tree(exclude=ignore).tree
    store.save(state)
