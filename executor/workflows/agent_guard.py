"""After an agent step, before its answer counts: what the agent did that nobody asked
for. Its own commits are folded back (one commit per session, the executor's); a plan
file it changed is put back and the step fails as tampering (the plan is read-only to
agents); a git hook or config changed during the session is reported once.

What the tests decide (test infrastructure, code reaching into the runner) is judged at
verification, in `executor.workflows.session`, with the facts in `guards`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from executor.words import plural
from executor.workflows import guards

if TYPE_CHECKING:
    from executor.engine.layout import Layout
    from executor.engine.state import SessionRecord
    from executor.vcs import GitRepo
    from executor.workflows.context import SessionPart


def after_agent_step(part: SessionPart, role: str) -> str:
    """Fold the agent's commits back, report git hooks/config it may have changed, put
    back any plan file it changed. The tampering problem, "" when there is none."""
    r, rec = part.r, part.rec
    head = r.repo.head()
    if rec.head and head != rec.head:
        folded = r.repo.fold_commits(rec.head)
        part._say(
            f"{role.upper()}: the agent committed {plural(len(folded), 'time')} during its "
            f"step; folded back into the worktree (the executor makes the one session commit)"
        )
    _note_git_controls(part, role)
    restored = r.restored_plan or restore_plan(r.repo, r.layout, rec, Path(r.state.plan))
    r.restored_plan = []
    if not restored:
        return ""
    r.reload()
    return (
        f"the agent changed the plan ({guards.describe(restored)}); the plan is read-only "
        f"to agents, so the executor put it back and this step failed as tampering."
    )


def _note_git_controls(part: SessionPart, role: str) -> None:
    """Say (once a session) which of git's hooks or config changed since it started."""
    rec = part.rec
    if not rec.started_at:
        return
    from datetime import datetime

    since = datetime.fromisoformat(rec.started_at.replace("Z", "+00:00")).timestamp()
    changed = guards.git_controls_changed(part.r.repo.git_dir, since)
    if not changed:
        return
    note = (
        f"git's own files changed since this session started (by the agent during its "
        f"step, or by you while it waited): {guards.describe(changed)}. The executor's "
        f"git commands run no hooks; yours will: look at them before your next commit."
    )
    if note not in rec.errors:
        rec.errors.append(note)
        part._say(f"{role.upper()}: {note}")


def restore_plan(repo: GitRepo, layout: Layout, rec: SessionRecord, plan: Path) -> list[str]:
    """Plan files that differ from the session's last snapshot are put back as at the
    session's base commit; returns them (repo-relative). The plan is read-only to agents.
    """
    if rec.base_commit is None:
        return []
    changed = repo.facts(ignore=layout.owned()).changed
    plan_now = guards.plan_paths(plan, repo.root, changed)
    plan_before = guards.plan_paths(plan, repo.root, rec.tree)
    before = {p: rec.tree[p] for p in plan_before}
    touched = guards.differences(before, guards.snapshot(repo.root, plan_now))
    if touched:
        repo.restore_paths(rec.base_commit, [repo.root / p for p in touched])
    return touched
