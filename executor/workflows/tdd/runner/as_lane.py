"""What a session's own run does differently when it is a lane of a parallel run.

Its test runs and agent may not write the main run's files nor the person's checkout
its worktree lives in (`lane_sandbox`: a worktree's `.git` is a file, so code walking up
finds the person's checkout), and its budgets count what every lane of the run spent,
read without their locks (every save is an atomic rename)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from executor.datamodel import validate_json
from executor.engine.layout import Layout
from executor.errors import DataError
from executor.plan.cache import plan_files
from executor.store import read_sealed
from executor.workflows.tdd.record.lanes import LaneLink
from executor.workflows.tdd.record.state import RunState, Spent

if TYPE_CHECKING:
    from executor.sandbox import Sandbox
    from executor.vcs import GitRepo

#: The folder of the sessions' branches (`executor/session-<n>`) under refs/heads.
BRANCH_FOLDER = "executor"


def run_folder(plan: Path) -> Path:
    """The folder a plan's run keeps its files in (a file plan: the file's folder)."""
    return plan if plan.is_dir() else plan.parent


def peek(path: Path) -> RunState | None:
    """Another run's state, read without its lock and without any side effect (no
    quarantine): None when there is none, or it cannot be read whole."""
    raw = read_sealed(path)
    if raw is None:
        return None
    try:
        return validate_json(RunState, raw)
    except DataError:
        return None


def lane_guarded(link: LaneLink) -> list[Path]:
    """The main run's files and plan: what a lane's test runs may not write."""
    main = Path(link.plan)
    layout = Layout(run_folder(main))
    return [
        layout.state,
        layout.backup,
        layout.archive,
        layout.plan_cache,
        layout.pinned,
        *plan_files(main),
    ]


def lane_sandbox(sandbox: Sandbox, repo: GitRepo, *, agent: bool = False) -> Sandbox:
    """`sandbox` for a lane in `repo` (its worktree): the person's checkout (the main
    worktree, git's folder in it included) read-only, but for the lane's worktree; an
    `agent` may also write what a commit there writes (objects, the worktree's own git
    folder, the sessions' branches and their logs)."""
    common = repo.common_dir()
    holes = [repo.root]
    if agent:
        heads = Path("refs", "heads", BRANCH_FOLDER)
        holes += [common / "objects", repo.git_dir, common / heads, common / "logs" / heads]
    return sandbox.walled([common.parent], holes, own_pids=not agent)


def total(*spends: Spent) -> Spent:
    return Spent(
        usd=round(sum(s.usd for s in spends), 6),
        tokens=sum(s.tokens for s in spends),
        seconds=round(sum(s.seconds for s in spends), 3),
        calls=sum(s.calls for s in spends),
        unpriced=sum(s.unpriced for s in spends),
    )


def spent_by_all(state: RunState) -> Spent:
    """What the whole parallel run spent: this lane (as it is in memory), the main run
    (its integrated sessions) and every other lane still running."""
    link = state.run.lane
    if link is None:
        return state.run.spent
    main = peek(Layout(run_folder(Path(link.plan))).state)
    if main is None:
        return state.run.spent
    return total(state.run.spent, run_total(main, skip=link.session))


def run_total(main: RunState, *, skip: int | None = None) -> Spent:
    """What a parallel run spent: the main run's total and each lane's still running
    (but lane `skip`), read from their own states."""
    others = []
    for number, lane in main.run.lanes.items():
        if number == skip or lane.status == "integrated":
            continue
        folder = lane_folder(Path(main.run.repo), Path(main.run.plan), Path(lane.worktree))
        theirs = peek(Layout(folder).state)
        if theirs is not None:
            others.append(theirs.run.spent)
    return total(main.run.spent, *others)


def lane_plan(repo: Path, plan: Path, worktree: Path) -> Path:
    """The plan as a lane reads it: the same path inside the session's worktree."""
    return worktree / Path(plan).resolve().relative_to(Path(repo).resolve())


def lane_folder(repo: Path, plan: Path, worktree: Path) -> Path:
    """The run folder of a session's lane: the plan's folder inside its worktree (the
    main plan says whether it is a folder: the worktree may be gone)."""
    inside = lane_plan(repo, plan, worktree)
    return inside if Path(plan).is_dir() else inside.parent
