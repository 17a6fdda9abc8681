"""Checks a plan run makes before it touches anything: the plan did not drift under a
started session (P5), the workspace did not move under it (P12, P19), and no other
session is waiting on the bridge's one request file."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from executor.engine.layout import Layout
from executor.errors import DefinitionDriftError, StaleWorkspaceError, UserError
from executor.fsutil import quote
from executor.plan.cache import PlanView
from executor.workflows.tdd.record.state import FINISHED, PhaseEntry, RunState, SessionEntry
from executor.workflows.tdd.step import ACTIVE, AGENT_STEPS, Step

if TYPE_CHECKING:
    from executor.vcs import GitRepo


def check_plan_owner(state: RunState | None, named: Path, layout: Layout) -> None:
    """A folder keeps one plan's run (its `.agent-state.json`): a run another plan in the
    same folder started is not this plan's, whatever its session numbers say."""
    theirs = state.run.plan if state is not None else ""
    if not theirs or theirs == str(named):
        return
    from executor.plan.formats import plan_target

    if plan_target(Path(theirs)) == plan_target(named):
        return
    elsewhere = Path(theirs) if Path(theirs).is_dir() else Path(theirs).parent
    if elsewhere != layout.folder:  # the run files came with a copy of the plan folder
        stale = [p for p in layout.owned() if p != layout.lock and os.path.lexists(p)]
        raise UserError(
            f"{quote(layout.state)} holds the run of {quote(theirs)}, a plan in another "
            f"folder: {quote(layout.folder)} looks like a copy made with its run files. To "
            f"run {quote(named)} here afresh, remove them: rm -rf "
            f"{' '.join(quote(p) for p in stale)} (the run of {quote(theirs)} stays where "
            f"it is); or continue that plan with --plan {quote(theirs)}."
        )
    raise UserError(
        f"{quote(layout.state)} holds the run of another plan, {quote(theirs)}: a folder "
        f"keeps one plan's run. Give {quote(named)} a folder of its own (e.g. "
        f"{quote(named.parent / named.stem)}/), or continue that plan with --plan "
        f"{quote(theirs)}."
    )


def reconcile(plan: PlanView, state: RunState, definition_hash: str, plan_version: str) -> None:
    """Refuse to continue a started session under a different workflow definition, and
    give every session of the plan its seed entry (titles as the plan has them now).

    (An edit of a started session's own plan section is not refused here: the person
    decides at the session's next gate: use the new text, put the old back, or skip.)
    """
    run = state.run
    active = {n: r for n, r in run.sessions.items() if r.step in ACTIVE}
    if active and run.definition_hash != definition_hash:
        number = min(active)
        raise DefinitionDriftError(
            f"session {number} was started by executor {run.tool_version} whose workflow "
            f"definition differs from this version's ({run.definition_hash} vs "
            f"{definition_hash}); finish it with that version or abort it."
        )
    run.definition_hash = definition_hash
    if state.plan_version == plan_version and state.phases:
        return  # the plan did not change: the entries are its sessions already
    state.plan_version = plan_version
    state.project_name = plan.name
    known = {e.number: e for e in state.entries()}
    names = plan.phase_names()
    phases = {n: PhaseEntry(number=n, name=name) for n, name in names.items()}
    for o in plan.outline():
        entry = known.pop(o.number, None) or SessionEntry(number=o.number, title=o.title)
        entry.title = o.title
        phases.setdefault(o.phase, PhaseEntry(number=o.phase, name=f"Phase {o.phase}"))
        phases[o.phase].sessions.append(entry)
    state.phases = list(phases.values())


def check_workspace(
    state: RunState, repo: GitRepo, sessions: Sequence[int], layout: Layout
) -> None:
    """P12/P19: completed commits must still be in history; HEAD must not move while a
    session is in progress; a request pending for a session outside this run blocks it."""
    records = state.run.sessions
    for number, rec in sorted(records.items()):
        if rec.bridge.pending is not None and number not in sessions:
            raise UserError(
                f"request {rec.bridge.pending.request_id} is pending for session {number} "
                f"({layout.request}); answer it and continue that session first "
                f"(resume-session {number} --resume), or abort it."
            )
    head, branch = repo.head_and_branch()
    done = [
        e for e in state.entries()
        if e.commit_hash and (e.status in FINISHED if (r := records.get(e.number)) is None
                              else r.step not in ACTIVE)
    ]  # fmt: skip
    latest = max(done, key=lambda e: e.completed_at or "", default=None)
    if latest is not None and latest.commit_hash != head:
        assert latest.commit_hash is not None
        if not repo.is_ancestor(latest.commit_hash):
            number = latest.number
            raise StaleWorkspaceError(
                f"session {number}'s commit {latest.commit_hash[:12]} is no longer in the "
                f"history of HEAD (reset, rebase or branch switch?). Nothing was changed. "
                f"Restore that history, or delete {quote(layout.state)} to start the plan "
                f"run afresh."
            )
    for number, rec in sorted(records.items()):
        if rec.step not in ACTIVE or not rec.head:
            continue
        moved = head != rec.head or (rec.branch is not None and branch != rec.branch)
        agent_committed = rec.step in AGENT_STEPS and branch == rec.branch
        if moved and agent_committed and repo.is_ancestor(rec.head, head):
            continue  # the agent committed during its step: the step folds it back
        if moved and not _our_commit(state, repo, number, rec.head, head, rec.step):
            raise StaleWorkspaceError(
                f"session {number} is in progress from HEAD {rec.head[:12]} on {rec.branch}, "
                f"but HEAD is now {head[:12]} on {branch}. Someone committed, reset or "
                f"switched branches mid-session; nothing was overwritten. Go back "
                f"(`git switch {rec.branch}` / `git reset {rec.head[:12]}`) and re-run."
            )


def _our_commit(
    state: RunState, repo: GitRepo, number: int, since: str, head: str, step: Step
) -> bool:
    """HEAD is the session's own commit, made just before a crash (P20)."""
    if step is not Step.COMMIT:
        return False
    marks = {"Agent-Run": state.run.run_id, "Agent-Step": f"session-{number}"}
    return repo.find_commit_by_trailers(marks, since=since) == head
