"""Setting a session aside while its question waits: its work is kept under a ref, its
record leaves the sessions in progress, then its files leave the checkout.

Each boundary is durable before the next begins (P12-P14, P18): the ref holds the work
before the state says the session is parked (`parking.kept`), the state says so before
a file is touched (`parking.recorded`), and it says the checkout is clear only once it
is (`parking.cleared`). A run killed between them finishes the step it was at: before
the state was saved the session is still at its gate in the checkout, and the next run
checks it again (and parks it again); after, `clear` takes its files out of the
checkout at the start of the next run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from executor import faults
from executor.choices import Question
from executor.engine.layout import Layout
from executor.errors import StaleWorkspaceError
from executor.stamps import utc_now
from executor.workflows.tdd.record.parked import Choice, parked_ref
from executor.workflows.tdd.record.session import ParkedSession, SessionRecord
from executor.workflows.tdd.record.state import RunState

if TYPE_CHECKING:
    from executor.vcs import GitRepo


def not_work(layout: Layout, root: Path, rec: SessionRecord) -> list[Path]:
    """What is not the session's work (`SessionPart._ignore`): the executor's own files
    and the person's files kept out of it."""
    return [*layout.owned(), *(root / f for f in rec.excluded)]


#: how much of what the gate showed the state keeps (a diff can be long)
DETAIL_CHARS = 4000


def _shown(detail: str, number: int) -> str:
    if len(detail) <= DETAIL_CHARS:
        return detail
    return detail[:DETAIL_CHARS] + f"\n... (cut here; executor show {number} shows it whole)"


def park(
    state: RunState,
    number: int,
    q: Question,
    *,
    repo: GitRepo,
    layout: Layout,
    definition: str,
    save: Callable[[], None],
    report: Callable[[str], None],
) -> ParkedSession:
    """Set session `number` (at the gate that asked `q`) aside: keep its work under its
    ref, move its record to `run.parked`, then clear its files from the checkout."""
    rec = state.run.sessions[number]
    assert rec.base_commit is not None, "a session at a gate after a verification has a base"
    base = rec.base_commit
    work = repo.record_tree(exclude=not_work(layout, repo.root, rec)).tree
    # the trees its record names stay reachable however long it waits (git prunes loose
    # objects no ref reaches): each as a commit on its base, a parent of the kept one
    named = sorted({t for t in (rec.tree, rec.verified, rec.changes_from, rec.red.tree)
                    if t and t != work})  # fmt: skip
    anchors = [repo.commit_of(t, [base], f"executor: a tree session {number}'s record names")
               for t in named]  # fmt: skip
    message = (
        f"executor parked: session {number}\n\nIts work, not committed: it waits for a "
        f"person's answer.\n\n{q.text}\n"
    )
    ref = parked_ref(state.run.run_id, number)
    commit = repo.commit_of(work, [base, *anchors], message)
    repo.set_ref(ref, commit)
    faults.hit("parking.kept")
    parked = ParkedSession(
        ref=ref, commit=commit, base=base, at=utc_now(), question=q.text,
        options=[Choice(value=o.value, label=o.label) for o in q.options],
        detail=_shown(q.detail, number),
        definition=definition, facts_on=base, record=rec,
    )  # fmt: skip
    del state.run.sessions[number]
    state.run.parked[number] = parked
    save()
    faults.hit("parking.recorded")
    report(f"[session {number}] parked: it waits for a person's answer; its work is kept "
           f"under {ref}, not committed")  # fmt: skip
    clear(state, number, repo=repo, layout=layout, save=save, report=report)
    return parked


def clear(
    state: RunState,
    number: int,
    *,
    repo: GitRepo,
    layout: Layout,
    save: Callable[[], None],
    report: Callable[[str], None],
) -> None:
    """Take a parked session's files out of the checkout, back to the commit its work was
    made on, after a backup of everything (P18); then the state says it is clear. Refused
    when HEAD moved since (its work is safe under its ref; nothing is undone)."""
    parked = state.run.parked[number]
    if parked.cleared:
        return
    rec = parked.record
    head = repo.head()
    if head != parked.base:
        raise StaleWorkspaceError(
            f"session {number} was parked (its work is kept under {parked.ref}) on "
            f"{parked.base[:12]}, but HEAD is now {head[:12]} and its files may still be in "
            f"the checkout: nothing was changed. Go back (`git reset --keep "
            f"{parked.base[:12]}`) and run the same command again, or make the worktree "
            f"clean yourself (`git stash -u`) once you have seen what it holds."
        )
    base_tree = repo.tree_of(parked.base)
    changed = {*repo.tree_diff(base_tree, repo.tree_of(parked.commit))}
    if rec.tree:
        changed |= set(repo.tree_diff(base_tree, rec.tree))
    # a file git ignored when the session started is the person's: never removed
    ignored = tuple(rec.ignored or ())
    paths = sorted(p for p in changed if not _under_any(p, ignored))
    backup = repo.roll_back(parked.base, paths, flags=rec.flags)
    parked.cleared = True
    save()
    faults.hit("parking.cleared")
    report(f"[session {number}] its files left the checkout (all it held is also saved "
           f"under {backup}); the next sessions start from {parked.base[:12]}")  # fmt: skip


def _under_any(path: str, entries: tuple[str, ...]) -> bool:
    """Whether `path` is one of `entries` (files, and `folder/`s holding everything under
    them), as `git ls-files --ignored --directory` lists them."""
    return any(path == e or (e.endswith("/") and path.startswith(e)) for e in entries)
