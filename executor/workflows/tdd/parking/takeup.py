"""Taking a parked session up again: its work merged onto HEAD as a parallel session's commit
is, its record back among the sessions in progress at the gate that asked (docs/engine.md).

Nothing it verified before counts on the merged tree, and a conflict is never resolved
here. The steps are saved one boundary at a time (`parking.planned`, `parking.written`,
`parking.taken`) so a run killed between them takes the same steps again (P18, P31)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from executor import faults
from executor.engine.layout import Layout
from executor.errors import (
    BlockedError,
    DefinitionDriftError,
    DirtyWorktreeError,
    StaleWorkspaceError,
)
from executor.fsutil import quote
from executor.workflows.tdd.parking.park import clear, not_work
from executor.workflows.tdd.record.session import ParkedSession, SessionRecord
from executor.workflows.tdd.record.state import RunState
from executor.workflows.tdd.session.hooks import find_hooks
from executor.workflows.tdd.trust import tampering, testchanges, verdicts
from executor.workflows.tdd.trust.testfiles import is_test_file

if TYPE_CHECKING:
    from executor.vcs import GitRepo


def take_up(
    state: RunState,
    number: int,
    *,
    repo: GitRepo,
    layout: Layout,
    definition: str,
    save: Callable[[], None],
    report: Callable[[str], None],
) -> SessionRecord:
    """Bring parked session `number` back onto the checkout's HEAD; its record, now in
    `run.sessions` at the gate that asked. BlockedError while its merge conflicts."""
    parked = state.run.parked[number]
    rec = parked.record
    if parked.definition != definition:
        raise DefinitionDriftError(
            f"session {number} was parked by an executor whose workflow definition differs "
            f"from this version's ({parked.definition} vs {definition}); answer it with that "
            f"version. Its work is kept under {parked.ref}."
        )
    clear(state, number, repo=repo, layout=layout, save=save, report=report)
    head = repo.head()
    ignore = not_work(layout, repo.root, rec)
    if parked.onto != head:
        _plan(parked, number, head, repo, ignore)
        save()
        faults.hit("parking.planned")
    assert parked.merged is not None
    if not parked.written:
        now = repo.record_tree(exclude=ignore).tree
        if now not in {repo.tree_of(head), parked.merged}:  # a person's edits, or half a write
            backup = repo.snapshot(f"take-up-session-{number}", exclude=ignore)
            report(f"[session {number}] the checkout held changes; all of it is saved "
                   f"under {backup} before its work is written there")  # fmt: skip
        repo.put_back(parked.merged, repo.tree_diff(repo.tree_of(head), parked.merged))
        parked.written = True
        save()
        faults.hit("parking.written")
    work = parked.merged
    if parked.conflicts:
        now = repo.record_tree(exclude=ignore).tree
        left = repo.conflict_markers(parked.conflicts)
        if left or now == parked.merged:
            raise BlockedError(_conflict_text(number, parked, left, layout))
        work = now  # the person's resolution is the session's work
        report(f"[session {number}] the conflict is resolved in the checkout: its files "
               f"are the session's work on {head[:12]}")  # fmt: skip
    # its work as it was parked stays where backups are (P18); its own ref goes
    kept = repo.keep(f"parked-session-{number}", parked.commit, "executor: taken up again")
    repo.drop_ref(parked.ref)
    rec.base_commit = rec.head = head
    rec.branch = repo.branch()
    rec.tree = work
    del state.run.parked[number]
    state.run.sessions[number] = rec
    save()
    faults.hit("parking.taken")
    moved = "" if head == parked.base else f", merged onto {head[:12]}"
    report(f"[session {number}] taken up again: its work is back in the checkout{moved} (as "
           f"it was parked, also under {kept}); it asks its question again")  # fmt: skip
    return rec


def _plan(parked: ParkedSession, number: int, head: str, repo: GitRepo, ignore: list[Path]) -> None:
    """Where the work goes and what the record measures anew, from a clean checkout."""
    if parked.written and parked.onto is not None:  # a merge to resolve, and HEAD moved
        raise StaleWorkspaceError(
            f"session {number}'s parked work is in the checkout merged onto "
            f"{parked.onto[:12]}, with a conflict to resolve, but HEAD is now {head[:12]}: "
            f"nothing was changed. Go back (`git reset --keep {parked.onto[:12]}`) and "
            f"resolve it there, or put the checkout's changes aside (`git stash -u`) and "
            f"run the same command again to merge it onto HEAD anew; its work is kept "
            f"under {parked.ref}."
        )
    dirty = repo.dirty_files(ignore=ignore)
    if dirty:
        shown = "\n  ".join(dirty[:20]) + ("\n  ..." if len(dirty) > 20 else "")
        raise DirtyWorktreeError(
            f"session {number} waits, parked, for an answer: taking it up puts its work back "
            f"in the checkout (it is kept under {parked.ref}), which must be clean first; "
            f"commit these, or put them aside with `git stash -u`, then run the same command "
            f"again (nothing was touched):\n  {shown}",
            files=dirty,
        )
    if head == parked.base:
        parked.merged, parked.conflicts, parked.notes = repo.tree_of(parked.commit), [], []
    else:
        replayed = repo.replay(parked.commit, head)
        parked.merged, parked.conflicts = replayed.tree, replayed.conflicts
        parked.notes = replayed.notes
    rec = parked.record
    if parked.facts_on != head:
        _measure_again(rec, parked.facts_on, head, repo)
        parked.facts_on = head
    # what the session records when it starts, as the checkout is now
    rec.ignored = repo.ignored_entries(ignore=ignore)
    rec.outside = tampering.outside_config(repo.root)
    rec.flags = repo.index_flags()
    rec.hooks, _ = find_hooks(repo, head)
    parked.onto, parked.written = head, False


def _measure_again(rec: SessionRecord, old: str, head: str, repo: GitRepo) -> None:
    """The record's facts about the files `old..head` changed, as they are on `head`
    (the checkout holds `head`): the tests at the session's start, and RED's tests and
    test infrastructure as RED left them merged onto `head`. Nothing verified on `old`
    stands for the merged tree."""
    changed = repo.tree_diff(repo.tree_of(old), repo.tree_of(head))
    tests = [f for f in changed if is_test_file(f)]
    _replace(rec.base_tests, tests, verdicts.test_fingerprints(repo.root, tests))
    if rec.red.tree:
        start = repo.commit_of(rec.red.tree, [old], "executor: RED's tree, taken up again")
        red = repo.replay(start, head).tree  # a conflict keeps git's markers: asked again
        _replace(rec.red.tests, tests, fingerprints_at(repo, red, tests))
        infra = [f for f in changed if f in rec.red.infra]
        for f in infra:
            del rec.red.infra[f]
        rec.red.infra.update(
            tampering.infra_fingerprint(repo.root, infra, stored=lambda f: _bytes(repo, red, f))
        )
        rec.red.tree = red
    rec.verified = rec.changes_from = ""


def _replace(facts: dict[str, str], files: Iterable[str], new: dict[str, str]) -> None:
    """Fingerprints of `files` (keys `file::...`) replaced by `new`."""
    gone = set(files)
    for key in [k for k in facts if k.split("::", 1)[0] in gone]:
        del facts[key]
    facts.update(new)


def fingerprints_at(repo: GitRepo, tree: str, files: Iterable[str]) -> dict[str, str]:
    """`verdicts.test_fingerprints` of `files` as `tree` holds them."""
    out: dict[str, str] = {}
    for rel in sorted(set(files)):
        defs = testchanges.definitions(rel, _bytes(repo, tree, rel))
        out.update({k: testchanges.digest(v) for k, v in defs.items()})
    return out


def _bytes(repo: GitRepo, tree: str, rel: str) -> bytes | None:
    blob = repo.blob_at(tree, rel)
    return repo.blob_bytes(blob) if blob else None


def _conflict_text(number: int, parked: ParkedSession, left: list[str], layout: Layout) -> str:
    assert parked.onto is not None
    where = quote(layout.folder)
    how = "; ".join(parked.notes) or ", ".join(parked.conflicts)
    still = f" Conflict markers are still in {', '.join(left)}." if left else ""
    return (
        f"session {number}'s parked work conflicts with what was committed since it was "
        f"parked ({how}): the merge onto {parked.onto[:12]} is in your checkout, with git's "
        f"markers in {', '.join(parked.conflicts)}.{still} Edit them into what the session "
        f"should hold, then run the same command again: the checkout's files become its "
        f"work, tested again before anything is committed, and it asks its question. Its "
        f"work as it was is kept under {parked.ref} (executor status --plan {where})."
    )
