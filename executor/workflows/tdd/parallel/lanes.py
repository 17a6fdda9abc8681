"""A session's lane: its worktree (`.executor-worktrees/session-<n>/`) and branch, its own
run folder seeded from the main state, how it is made, found again after a crash, and
closed. A worktree is removed only once its commit is integrated and it is clean; one in
the way that is not ours is reported, never deleted (docs/parallel.md)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from executor import fsutil
from executor.engine.layout import Layout
from executor.errors import GitCommandError, UserError
from executor.fsutil import quote
from executor.plan.cache import plan_files
from executor.stamps import utc_now
from executor.workflows.tdd.record.lanes import Lane, LaneLink
from executor.workflows.tdd.record.state import RunRecord, RunState, SessionArchive, state_store
from executor.workflows.tdd.runner.as_lane import BRANCH_FOLDER, lane_folder, lane_plan

if TYPE_CHECKING:
    from executor.vcs import GitRepo

WORKTREES = ".executor-worktrees"
BRANCH_PREFIX = f"{BRANCH_FOLDER}/session-"
#: The main run folder's subfolder of lane locks (`.agent-*`: hidden with its files).
LANES_DIR = ".agent-lanes"
#: Worker W's ports start at PORT_BASE + W * PORT_SPAN (`EXECUTOR_PORT_BASE`).
PORT_BASE = 21000
PORT_SPAN = 100


def worker_env(worker: int) -> dict[str, str]:
    """What a lane's processes (its run, agents, test runs) get in their environment,
    so a test setup can pick ports and database names of its own."""
    return {
        "EXECUTOR_WORKER": str(worker),
        "EXECUTOR_PORT_BASE": str(PORT_BASE + PORT_SPAN * worker),
    }


@dataclass(frozen=True)
class Places:
    """Where a parallel run's lanes live: the main checkout, its plan and run folder."""

    repo: Path
    plan: Path
    layout: Layout

    def worktree(self, number: int) -> Path:
        return self.repo / WORKTREES / f"session-{number}"

    @property
    def integration(self) -> Path:
        """The executor's own worktree where a commit is tested on the main tip."""
        return self.repo / WORKTREES / "integration"

    def plan_in(self, worktree: Path) -> Path:
        return lane_plan(self.repo, self.plan, worktree)

    def layout_in(self, worktree: Path) -> Layout:
        return Layout(lane_folder(self.repo, self.plan, worktree))

    def claim(self, number: int) -> Path:
        """The lock the run that drives session `number`'s lane holds while it does."""
        return self.layout.folder / LANES_DIR / f"session-{number}.lock"

    @property
    def integrating(self) -> Path:
        """Held while a commit is integrated: one at a time, whichever run does it."""
        return self.layout.folder / LANES_DIR / "integrate.lock"

    def lock_folder(self) -> Path:
        return fsutil.ensure_private_dir(self.layout.folder / LANES_DIR, inside=self.layout.folder)


def branch_of(number: int) -> str:
    return f"{BRANCH_PREFIX}{number}"


def free_worker(state: RunState) -> int:
    """The smallest worker number no lane of the run holds."""
    used = {lane.worker for lane in state.run.lanes.values() if lane.status != "integrated"}
    return next(w for w in range(len(used) + 1) if w not in used)


def new_lane(state: RunState, repo: GitRepo, places: Places, number: int) -> Lane:
    """Record session `number`'s lane (the caller saves it before making the worktree)."""
    onto = repo.branch()
    if onto is None:
        raise UserError(
            f"HEAD is detached in {repo.root}: parallel sessions are integrated into a "
            f"branch. Switch to one (git switch main) and run the same command again."
        )
    lane = Lane(
        worktree=str(places.worktree(number)),
        branch=branch_of(number),
        worker=free_worker(state),
        base=repo.head(),
        onto=onto,
        started_at=utc_now(),
    )
    state.run.sessions.pop(number, None)  # a record that never started (blocked): the lane's now
    state.run.lanes[number] = lane
    return lane


def ensure_worktree(
    repo: GitRepo, places: Places, number: int, lane: Lane, report: Callable[[str], None]
) -> None:
    """The lane's worktree is there: made, or made again when its folder is gone."""
    path = Path(lane.worktree)
    registered = {w.path.resolve() for w in repo.worktrees()}
    if path.resolve() in registered and path.is_dir():
        return
    if path.exists():
        raise UserError(
            f"{path} is in the way of session {number}'s worktree and is not a worktree of "
            f"{repo.root}: move it away (nothing was deleted), then run the same command again."
        )
    repo.prune_worktrees()  # git's record of a worktree whose folder is gone
    head = repo.resolve(f"refs/heads/{lane.branch}")
    if head is not None and lane.status == "running" and head != lane.base:
        kept = repo.keep(f"session-{number}-lost-worktree", head)
        repo.delete_branch(lane.branch, head)
        report(
            f"[session {number}] its worktree {path} was gone; what its branch held is kept "
            f"in {kept}; the session starts again"
        )
    repo.add_worktree(path, lane.branch, lane.base)
    _submodules(type(repo)(path), repo.root, number, report)


def _submodules(
    worktree: GitRepo, source: Path, number: int, report: Callable[[str], None]
) -> None:
    """A new worktree's submodules, checked out as in the main checkout (git leaves them
    empty folders): the session's tests may need them."""
    missed = worktree.check_out_submodules(source)
    if missed:
        report(
            f"[session {number}] its worktree has submodule(s) {', '.join(missed)} empty: "
            f"they are not checked out in {source} at the commit it names"
        )


def seed(main: RunState, lane: Lane, number: int, places: Places) -> None:
    """The lane's own run state, when it has none: the seed view of every session, the
    run's id and options, the link back, finished sessions' records, and what the run
    pinned (its record and its pin file)."""
    worktree = Path(lane.worktree)
    layout = places.layout_in(worktree)
    store = state_store(layout)
    fsutil.ensure_private_dir(layout.folder, inside=worktree)
    with store.locked():
        if store.load() is not None:
            return
        options = main.run.options.replace(parallel=None)
        record = RunRecord(
            tool_version=main.run.tool_version,
            definition_hash=main.run.definition_hash,
            run_id=main.run.run_id,
            repo=str(worktree),
            plan=str(places.plan_in(worktree)),
            options=options,
            lane=LaneLink(plan=main.run.plan, session=number, worker=lane.worker),
            pinned=main.run.pinned.model_copy(deep=True) if main.run.pinned else None,
        )
        child = RunState(project_name=main.project_name, plan_version=main.plan_version, run=record)
        child.phases = [p.model_copy(deep=True) for p in main.phases]
        _link_archive(places.layout.archive, layout.archive, inside=layout.folder)
        if main.run.pinned is not None:  # every lane runs with what the run pinned
            pinned = places.layout.pinned.read_bytes()
            fsutil.atomic_write_bytes(layout.pinned, pinned, fault="pinned")
        store.save(child)


def sync_options(main: RunState, lane: Lane, places: Places) -> None:
    """The lane's own run takes the main run's options as they are now (a larger budget
    given to the parallel run, say): its own run never gets them on a command line."""
    store = state_store(places.layout_in(Path(lane.worktree)))
    wanted = main.run.options.replace(parallel=None)
    with store.locked(wait=60):
        mine = store.load()
        if mine is not None and mine.run.options != wanted:
            mine.run.options = wanted
            store.save(mine)


def _link_archive(source: Path, target: Path, *, inside: Path) -> None:
    """Finished sessions' records (written once, never changed) into the lane's archive:
    what its briefs and its checks read about earlier sessions."""
    if not source.is_dir():
        return
    fsutil.ensure_private_dir(target, inside=inside)
    for record in source.glob("session-*.json"):
        with contextlib.suppress(FileExistsError):
            try:
                os.link(record, target / record.name)
            except OSError:
                fsutil.atomic_write_bytes(
                    target / record.name, record.read_bytes(), fault="archive"
                )


def take_record(places: Places, number: int, lane: Lane, commit: str | None) -> None:
    """The lane's finished session's record, into the main run's archive: its commit is
    the one on the main branch, its transcripts moved to the main run's `.agent-logs/`."""
    worktree = Path(lane.worktree)
    mine = places.layout_in(worktree)
    rec = SessionArchive(mine.archive).get(number)
    if rec is None:
        return
    logs = places.layout.logs
    for call in rec.agent_calls:
        if call.log and Path(call.log).parent == mine.logs:
            moved = logs / Path(call.log).name
            with contextlib.suppress(OSError):
                fsutil.ensure_private_dir(logs, inside=places.layout.folder)
                os.replace(call.log, moved)
            call.log = str(moved)
    rec.commit_hash = commit
    rec.head = commit or rec.head
    rec.branch = lane.onto
    SessionArchive(places.layout.archive).put(number, rec)


def close(repo: GitRepo, places: Places, lane: Lane) -> list[str]:
    """Remove an integrated lane's worktree and branch when it is clean; else keep both
    and return what is not clean (the files)."""
    from executor.vcs import GitRepo

    path = Path(lane.worktree)
    if not path.is_dir():
        repo.prune_worktrees()
        return []
    wt = GitRepo(path)
    head = wt.head()
    recorded = wt.record_tree(exclude=places.layout_in(path).owned())
    changed = wt.tree_diff(wt.tree_of(head), recorded.tree)
    left = changed + recorded.problems
    if left:
        return left
    repo.remove_worktree(path, force=True)  # clean as recorded: what is left is caches
    with contextlib.suppress(GitCommandError):  # moved meanwhile: it stays
        repo.delete_branch(lane.branch, head)
    return []


def cleanup_command(repo: Path, lane: Lane) -> str:
    """The commands that remove a kept worktree (once its files are looked at)."""
    return (
        f"git -C {quote(repo)} worktree remove --force {quote(lane.worktree)} && "
        f"git -C {quote(repo)} branch -D {lane.branch}"
    )


def plan_committed(repo: GitRepo, places: Places, layout: Layout) -> None:
    """Each worktree reads the plan from the commit it starts from: it must be in the
    repository and committed as it is (UserError otherwise)."""
    root = repo.root
    files = plan_files(places.plan)
    outside = [f for f in files if not f.resolve().is_relative_to(root)]
    dirty = set(repo.dirty_files(ignore=layout.owned()))
    loose = [f for f in files if f.resolve().is_relative_to(root) and (
        not repo.tracked_at("HEAD", f)
        or f.resolve().relative_to(root).as_posix() in dirty
    )]  # fmt: skip
    if outside or loose:
        named = ", ".join(str(f) for f in (outside or loose)[:5])
        raise UserError(
            f"parallel sessions read the plan from the commit each one's worktree starts "
            f"from, so the plan must be committed in {root} as it is; "
            + ("it is outside the repository" if outside else "commit it first")
            + f" ({named}). Nothing was touched."
        )
