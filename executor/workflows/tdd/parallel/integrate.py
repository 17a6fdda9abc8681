"""Integration: a finished lane's commit onto the main branch, one at a time, tested again.

The commit is replayed onto the tip as a tree (`merge-tree`, `commit-tree`: no worktree
touched), the whole suite runs on it (a merge can break what each branch passed alone),
and the branch is fast-forwarded. A conflict or a failing suite blocks the lane for a
person, never the run; every step can be repeated after a crash (docs/parallel.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from executor.errors import DirtyWorktreeError, StaleWorkspaceError
from executor.vcs import GitRepo
from executor.workflows.tdd.parallel.lanes import Places
from executor.workflows.tdd.record.lanes import Lane

#: Times the main tip may move under one integration before it gives up for now.
MAX_MOVES = 5


@dataclass
class Integrated:
    commit: str


@dataclass
class Blocked:
    reason: str
    tip: str
    conflicts: list[str] = field(default_factory=list)
    #: the lane's worktree as the executor left it (a tree): what a resolution is told
    #: from (None: the cause is not in the worktree, the next run tries again)
    shown: str | None = None
    #: the commit the executor moved the lane's branch to (the integrated commit that
    #: fails the suite), if it did
    moved_to: str | None = None


#: suite(commit, worker) -> (passed, what it measured): the whole suite on `commit`.
Suite = Callable[[str, int], tuple[bool, str]]


def marks(run_id: str, number: int) -> dict[str, str]:
    """The trailers that name session `number`'s commit of run `run_id` (P20)."""
    return {"Agent-Run": run_id, "Agent-Step": f"session-{number}"}


def integrate(
    main: GitRepo, places: Places, number: int, lane: Lane, run_id: str, suite: Suite
) -> Integrated | Blocked:
    """Bring lane `number`'s commit (`lane.commit`, by id: the one its run verified, or a
    person's resolution) onto its branch in the main checkout (which the caller holds
    against every other writer). Its branch must still hold that commit: a branch moved
    since (another lane's agent, any git command) blocks it, and nothing of it lands."""
    tip = main.head()
    commit = lane.commit
    if commit is None:
        return Blocked("no commit of its run is recorded to integrate", tip=tip)
    for _ in range(MAX_MOVES):
        if main.branch() != lane.onto:
            return Blocked(
                f"the main checkout {main.root} is on {main.branch() or 'a detached HEAD'}, "
                f"not on {lane.onto}: switch back (git switch {lane.onto})",
                tip=main.head(),
            )
        tip = main.head()
        found = main.find_commit_by_trailers(marks(run_id, number), since=lane.base)
        if found:
            return Integrated(found)  # done before a crash
        head = main.resolve(f"refs/heads/{lane.branch}")
        if head != commit:
            now = f"it holds {head[:12]} now" if head else "it is gone"
            return Blocked(
                f"its branch {lane.branch} moved since its run verified {commit[:12]} ({now}; "
                f"the executor did not move it): nothing of it was integrated. Look at its "
                f"worktree; `continue` integrates the worktree's files, tested again",
                tip=tip,
                shown=_tree_now(Path(lane.worktree), places),
            )
        if main.is_ancestor(tip, commit):
            extra = len(main.commits_between(tip, commit))
            if extra != 1:
                return Blocked(
                    f"its branch {lane.branch} holds {extra} commits over {lane.onto}; a "
                    f"session is one commit",
                    tip=tip,
                )
            candidate = commit
        else:
            replayed = main.replay(commit, tip)
            if replayed.conflicts:
                shown = _show_conflict(Path(lane.worktree), places, tip, replayed.tree)
                unshown = " (its worktree has changes, so the conflict was not written there)"
                said = f" ({'; '.join(replayed.notes[:5])})" if replayed.notes else ""
                return Blocked(
                    f"its commit conflicts with {lane.onto} at {tip[:12]} in "
                    f"{', '.join(replayed.conflicts)}{said}" + ("" if shown else unshown),
                    tip=tip,
                    conflicts=replayed.conflicts,
                    shown=_tree_now(Path(lane.worktree), places),
                )
            candidate = main.commit_as(replayed.tree, parent=tip, like=commit)
        # the commit its own run verified, on this very tip, was tested there (whole suite
        # and all): nothing merged into it since, so nothing to test again
        tested = candidate == lane.verified and main.parent_of(candidate) == tip
        passed, measured = (True, "") if tested else suite(candidate, lane.worker)
        if not passed:
            moved = _show_commit(Path(lane.worktree), places, lane.branch, candidate, commit)
            return Blocked(
                f"the whole suite fails on {lane.onto} with its commit ({measured})",
                tip=tip,
                shown=_tree_now(Path(lane.worktree), places),
                moved_to=candidate if moved else None,
            )
        try:
            main.fast_forward(candidate, tip=tip)
        except StaleWorkspaceError:
            continue  # another run integrated first: replay onto the new tip
        except DirtyWorktreeError as e:  # a change of the person's there: nothing changed
            return Blocked(str(e), tip=tip)
        return Integrated(candidate)
    return Blocked(f"{lane.onto} kept moving while it was integrated", tip=tip)


def _tree_now(worktree: Path, places: Places) -> str | None:
    """The worktree's files as a tree (None: it is gone)."""
    if not worktree.is_dir():
        return None
    return GitRepo(worktree).record_tree(exclude=places.layout_in(worktree).owned()).tree


def _clean(wt: GitRepo, places: Places) -> bool:
    head = wt.head()
    recorded = wt.record_tree(exclude=places.layout_in(wt.root).owned())
    return not recorded.problems and recorded.tree == wt.tree_of(head)


def _show_conflict(worktree: Path, places: Places, tip: str, merged: str) -> bool:
    """The lane's worktree, detached at `tip`, holding the merged files (git's markers
    in the conflicting ones); its branch keeps the session's commit. False when the
    worktree has changes of its own (nothing is written over them)."""
    wt = GitRepo(worktree)
    if not _clean(wt, places):
        return False
    wt.detach(tip)
    wt.put_back(merged, wt.tree_diff(wt.tree_of(tip), merged))
    return True


def _show_commit(worktree: Path, places: Places, branch: str, commit: str, head: str) -> bool:
    """The lane's branch and worktree at the integrated commit that fails the suite (the
    person fixes it there), when the worktree is clean. Whether they were moved."""
    wt = GitRepo(worktree)
    if commit != head and _clean(wt, places) and wt.branch() == branch:
        wt.check_out(commit)
        return True
    return False


def take_worktree(worktree: Path, places: Places, lane: Lane) -> tuple[str, str]:
    """`continue` after a block: the worktree's files are the session's, on the tip its
    commit was replayed onto; the branch gets that commit (its HEAD on the branch
    again). Returns what is still wrong ("" when it is ready to integrate again) and the
    commit to integrate."""
    wt = GitRepo(worktree)
    left = wt.conflict_markers(lane.conflicts)
    if left:
        return f"conflict markers are still in {', '.join(left)}", ""
    recorded = wt.record_tree(exclude=places.layout_in(worktree).owned())
    if recorded.problems:
        return "; ".join(recorded.problems), ""
    head = wt.resolve(f"refs/heads/{lane.branch}")
    if head is None:
        return f"its branch {lane.branch} is gone", ""
    detached = wt.branch() != lane.branch
    parent: str | None = lane.tip or lane.base  # the files are the session on that tip
    if not (detached or wt.is_ancestor(lane.tip or lane.base, head)):
        parent = wt.parent_of(head)  # not replayed yet: the session on its own base
    if parent is None:
        return f"{head[:12]} has no parent to put the session on", ""
    if detached or recorded.tree != wt.tree_of(head) or wt.parent_of(head) != parent:
        commit = wt.commit_as(recorded.tree, parent=parent, like=head)
        wt.move_branch(lane.branch, commit, head)
        if detached:
            wt.attach(lane.branch)
        wt.reindex(commit, flags={}, changed=set())
        return "", commit
    return "", head
