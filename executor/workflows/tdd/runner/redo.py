"""`execute-session S --redo`: a finished session runs again. Its commit is undone by a
commit of its own (history keeps both), then the session starts afresh on top of it.

Only the last commit's session can be redone: a later commit may build on it, and
undoing what something else stands on is a person's merge, not the executor's."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from executor.errors import DirtyWorktreeError, UserError

if TYPE_CHECKING:
    from executor.engine.layout import Layout
    from executor.vcs import GitRepo
    from executor.workflows.tdd.record.state import RunState

#: the trailer of the commit that undoes a session's commit (a crash after it: not twice)
REDO_OF = "Redo-Of"


def redo(
    state: RunState, number: int, repo: GitRepo, layout: Layout, say: Callable[[str], None]
) -> bool:
    """Undo finished session `number`'s commit and forget the session, so this run
    starts it again; False when it is not finished (nothing to redo)."""
    entry = state.entry(number)
    if entry is None or not state.finished(number):
        return False
    if entry.adopted or not entry.commit_hash:
        raise UserError(
            f"session {number} has no commit of its own to undo ({entry.status}"
            + (": ticked as done in the plan" if entry.adopted else "")
            + "); untick its boxes in the plan to run it again. Nothing was touched."
        )
    commit, head = entry.commit_hash, repo.head()
    undone = repo.find_commit_by_trailers({REDO_OF: commit}, since=commit)
    if undone != head:
        if head != commit:
            raise UserError(
                f"session {number}'s commit {commit[:12]} is not the last commit (HEAD is "
                f"{head[:12]}): only the last session can be redone, as what came after it "
                f"may build on it. Nothing was touched."
            )
        dirty = repo.dirty_files(ignore=layout.owned())
        if dirty:
            raise DirtyWorktreeError(
                f"session {number} is redone from a clean worktree (its commit is undone "
                f"first); commit or stash these first (nothing was touched): "
                + ", ".join(dirty[:20]),
                files=dirty,
            )
        before = repo.tree_of(f"{commit}^")
        changed = repo.tree_diff(repo.tree_of(commit), before)
        subject = repo.subject(commit)
        message = (
            f'Undo "{subject}" to redo session {number}\n\nThe session runs again from here '
            f"(execute-session {number} --redo); its earlier commit stays in history.\n\n"
            f"{REDO_OF}: {commit}\n"
        )
        undone = repo.commit_tree(before, message, parent=head)
        repo.put_back(before, changed)
    state.forget(number)
    say(
        f"[session {number}] its commit {commit[:12]} is undone by {undone[:12]} (both stay "
        f"in history); the session runs again"
    )
    return True
