"""When the main run's state may say a session is completed: its commit is on the branch
and is that session's.

The state is a file any program of the person's user can write, checksum and all (the
checksum catches a torn file or a hand edit, not a program that read the executor's
source). A session counts completed only when git says so too: its commit is reachable
from the main checkout's HEAD and carries the run's trailers for it (`Agent-Run`,
`Agent-Step`). A session adopted (ticked as done in the plan, and its tests passed
here) has no commit of its own and is taken as the state says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from executor.workflows.tdd.parallel.integrate import marks

if TYPE_CHECKING:
    from executor.vcs import GitRepo
    from executor.workflows.tdd.record.state import RunState


def unproven(state: RunState, repo: GitRepo, known: set[tuple[int, str]]) -> dict[int, str]:
    """The sessions `state` says are completed that git does not show, with why. `known`:
    (session, commit) pairs proven before (not asked again; proven ones are added)."""
    found = {}
    wanted = {k.lower(): v for k, v in marks(state.run.run_id, 0).items()}
    for entry in state.entries():
        if entry.status != "completed" or entry.adopted:
            continue
        commit = entry.commit_hash
        if commit is not None and (entry.number, commit) in known:
            continue
        wanted["agent-step"] = f"session-{entry.number}"
        if commit is None:
            found[entry.number] = "it names no commit"
        elif repo.resolve(commit) is None or not repo.is_ancestor(commit, "HEAD"):
            found[entry.number] = f"its commit {commit[:12]} is not on the branch"
        elif any(repo.trailers(commit).get(k) != v for k, v in wanted.items()):
            found[entry.number] = (
                f"its commit {commit[:12]} is not this run's commit of session {entry.number} "
                f"(its Agent-Run / Agent-Step trailers say otherwise)"
            )
        else:
            known.add((entry.number, commit))
    return found
