"""What `executor status` says about a parallel run: what runs where (worktree, branch,
worker, step, how long, which process drives it), what waits on what, the waves, and
the worktrees kept with the command that removes each.

Read-only: the main state and each lane's own state are read without their locks.
"""

from __future__ import annotations

import contextlib
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from executor.datamodel import dump
from executor.errors import ExecutorError
from executor.plan.cache import PlanView
from executor.workflows.tdd.parallel.lanes import LANES_DIR, WORKTREES, cleanup_command
from executor.workflows.tdd.parallel.waves import completed, may_start, waves
from executor.workflows.tdd.record.lanes import Lane
from executor.workflows.tdd.record.state import RunState
from executor.workflows.tdd.runner.as_lane import lane_folder, peek
from executor.workflows.tdd.runner.scope import topo_order


def parallel_data(plan: PlanView, state: RunState, folder: Path) -> dict[str, Any] | None:
    """The lanes, the waves and what waits, for a run that uses worktrees (None for a
    run that never did)."""
    run = state.run
    if not run.lanes and not run.options.parallel:
        return None
    outline = [o for o in plan.outline() if o.left_out is None]
    files = {o.number: _files(plan, o.number) for o in outline}
    index = state.index()
    done = {n for n in index if state.finished(n, index)}
    busy = {n for n, lane in run.lanes.items() if lane.status != "integrated"}
    complete = completed(state)
    waits = []
    for o in topo_order(outline):
        if o.number in done or o.number in busy:
            continue
        deps, sharing = may_start(o, files, complete=complete, running=busy)
        if deps or sharing:
            waits.append({"session": o.number, "dependencies": deps, "same_files": sharing})
    return {
        "width": run.options.parallel,
        "lanes": [
            _lane(n, lane, Path(run.repo), Path(run.plan), folder)
            for n, lane in sorted(run.lanes.items())
        ],
        "waves": waves(topo_order(outline), files, done),
        "waiting": waits,
        "stray": _stray(Path(run.repo), {Path(lane.worktree) for lane in run.lanes.values()}),
    }


def _stray(repo: Path, known: set[Path]) -> list[dict[str, str | None]]:
    """Worktrees in `.executor-worktrees/` no lane of the run knows (a lane of another
    plan, or one whose record was lost): shown, never removed."""
    from executor.vcs import GitRepo

    ours = repo / WORKTREES
    found = []
    with contextlib.suppress(ExecutorError):  # status shows what it can
        for w in GitRepo(repo).worktrees():
            if w.path.parent == ours and w.path.name != "integration" and w.path not in known:
                found.append({"worktree": str(w.path), "branch": w.branch})
    return found


def request_folders(folder: Path) -> list[Path]:
    """Every folder where a request of the run kept in `folder` may wait: the folder
    itself, then each lane's own run folder (plan order)."""
    state = peek(folder / ".agent-state.json")
    found = [folder]
    if state is not None:
        repo, plan = Path(state.run.repo), Path(state.run.plan)
        for _, lane in sorted(state.run.lanes.items()):
            if lane.status != "integrated":
                found.append(lane_folder(repo, plan, Path(lane.worktree)))
    return found


def _files(plan: PlanView, number: int) -> list[str]:
    session = plan.session(number)
    return [f.path for f in session.files] if session else []


def _lane(number: int, lane: Lane, repo: Path, plan: Path, folder: Path) -> dict[str, Any]:
    mine = peek(lane_folder(repo, plan, Path(lane.worktree)) / ".agent-state.json")
    rec = mine.run.sessions.get(number) if mine else None
    entry = mine.entry(number) if mine else None
    step = rec.step.value if rec else ("committed" if lane.status == "finished" else None)
    return {
        "session": number,
        "status": lane.status,
        "step": step if lane.status == "running" else lane.status,
        "session_status": entry.status if entry else None,
        "worker": lane.worker,
        "worktree": lane.worktree,
        "branch": lane.branch,
        "onto": lane.onto,
        "base": lane.base,
        "started_at": lane.started_at,
        "elapsed_seconds": _since(lane.started_at),
        "driven_by": _driver(folder / LANES_DIR / f"session-{number}.lock"),
        "pending_request": dump(rec.bridge.pending) if rec and rec.bridge.pending else None,
        "waits_for_core": _waits_for_core(repo, number),
        "reason": lane.reason or None,
        "conflicts": lane.conflicts,
        "kept": lane.kept,
        "cleanup": cleanup_command(repo, lane) if lane.kept else None,
    }


def _waits_for_core(repo: Path, number: int) -> bool:
    """The lane's test run waits for one of the machine's cores (`executor.cores`)."""
    from executor.cores import waiting_mark

    git = repo / ".git"
    return git.is_dir() and waiting_mark(git, number).exists()


def _since(stamp: str) -> float | None:
    with contextlib.suppress(ValueError):
        then = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        return round((datetime.now(timezone.utc) - then).total_seconds(), 1)
    return None


def _driver(lock: Path) -> str | None:
    """`pid@host` of the live run driving the lane, None when none does."""
    try:
        holder = lock.read_text("utf-8", "replace").split(" ")[0]
    except OSError:
        return None
    pid, _, _host = holder.partition("@")
    if not pid.isdigit():
        return None
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return None
    except OSError:
        return holder
    return holder
