"""Which sessions may run side by side: waves from the plan's dependencies and the files
each session lists.

A session may start once every session it depends on is complete (integrated into the
main branch), and never beside a session that lists one of the same files: two agents
writing one file at once make a conflict nobody can merge well. `waves` draws the
schedule this gives (what `executor status` shows); `may_start` is the same rule applied
while the run goes, where sessions finish at their own pace.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from executor.plan.models import Outline
from executor.workflows.tdd.record.state import FINISHED, RunState
from executor.workflows.tdd.step import status_of


def normal(path: str) -> str:
    """A listed file as the plan names it, compared across sessions."""
    return path.strip().removeprefix("./").strip("/")


def overlap(a: Collection[str], b: Collection[str]) -> list[str]:
    """The files two sessions both list."""
    return sorted({normal(p) for p in a} & {normal(p) for p in b})


def waves(
    ordered: Sequence[Outline], files: Mapping[int, Sequence[str]], done: Collection[int] = ()
) -> list[list[int]]:
    """The sessions of `ordered` (dependencies first) not yet `done`, in waves: each
    session goes into the first wave after the waves of its dependencies that holds no
    session listing one of its files. A dependency outside `ordered` that is not done
    counts as never done: the session is left out (it is blocked, not scheduled)."""
    placed: dict[int, int] = {}
    drawn: list[list[int]] = []
    known = {o.number for o in ordered}
    for o in ordered:
        if o.number in done:
            continue
        deps = [d for d in o.dependencies if d not in done]
        if any(d not in known or (d not in placed and d not in done) for d in deps):
            continue
        at = max((placed[d] + 1 for d in deps), default=0)
        mine = files.get(o.number, ())
        while at < len(drawn) and any(overlap(mine, files.get(m, ())) for m in drawn[at]):
            at += 1
        if at == len(drawn):
            drawn.append([])
        drawn[at].append(o.number)
        placed[o.number] = at
    return drawn


def may_start(
    session: Outline,
    files: Mapping[int, Sequence[str]],
    *,
    complete: Collection[int],
    running: Collection[int],
    left_out: Collection[int] = (),
) -> tuple[list[int], list[int]]:
    """Why `session` may not start now: the dependencies not yet complete, and the
    running sessions that list one of its files. Both empty: it may start."""
    waiting = [d for d in session.dependencies if d not in complete and d not in left_out]
    mine = files.get(session.number, ())
    sharing = [
        r for r in sorted(running) if r != session.number and overlap(mine, files.get(r, ()))
    ]
    return waiting, sharing


def completed(state: RunState) -> set[int]:
    """The sessions a dependent may count on: committed (or adopted) or skipped, in one
    pass over the state (`RunState.complete`, for every session at once)."""
    done = set()
    for entry in state.entries():
        rec = state.run.sessions.get(entry.number)
        status = status_of(rec.step) if rec is not None else entry.status
        if status in FINISHED:
            done.add(entry.number)
    return done
