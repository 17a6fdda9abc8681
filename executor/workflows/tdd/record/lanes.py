"""What a run's state keeps about sessions that run in worktrees of their own.

In the main run's `.agent-state.json`, `run.lanes` holds one `Lane` per session that
runs (or ran, and whose worktree was kept) in a worktree: where, on which branch, as
which worker, from which commit, and how far its integration got. The session's own
progress (its step, its bridge requests, what its checks measured) is in the state of
its own run, in its worktree's plan folder; that state carries a `LaneLink` back to
the main run.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from executor.bridge.models import Ledger
from executor.datamodel import Strict

#: running: its own run goes on in its worktree (or waits for an answer); finished: its
#: session is committed there and waits to be integrated; blocked: its integration
#: conflicts or fails the suite, a person decides; integrated: its commit is on the main
#: branch and only its kept worktree remains.
LaneStatus = Literal["running", "finished", "blocked", "integrated"]


class Lane(Strict):
    """One session in a worktree of its own (in the main run's state)."""

    worktree: str = Field(description="the worktree's folder (absolute)")
    branch: str = Field(description="its branch, executor/session-<n>")
    worker: int = Field(ge=0, description="EXECUTOR_WORKER of its processes")
    base: str = Field(description="the commit its worktree started from")
    onto: str = Field(description="the branch its commit is integrated into")
    started_at: str
    status: LaneStatus = "running"
    commit: str | None = Field(
        default=None,
        description="the commit to integrate: the one its run verified, or a person's resolution",
    )
    verified: str | None = Field(
        default=None,
        description="the commit the session's own run verified and made (as that run said it)",
    )
    tip: str | None = Field(
        default=None, description="the main branch's tip its commit was last replayed onto"
    )
    reason: str = Field(default="", description="why it is blocked")
    conflicts: list[str] = Field(default_factory=list, description="files its replay conflicts in")
    shown: str | None = Field(
        default=None,
        description="the worktree's files (a tree) as the executor left them when it blocked: "
        "what a person's resolution is told from",
    )
    kept: list[str] = Field(
        default_factory=list,
        description="integrated, but its worktree was kept: the files that were not clean",
    )
    bridge: Ledger = Field(
        default_factory=Ledger, description="the question about its integration, if asked"
    )
    asks: int = Field(default=0, description="questions asked about it (each gets its own key)")


class LaneLink(Strict):
    """In a session's own run (in its worktree): the run it is a lane of."""

    plan: str = Field(description="the main run's plan, as named (its state is beside it)")
    session: int
    worker: int = Field(ge=0)
