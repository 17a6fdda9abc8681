"""What the parts of a parallel run share: its places, its turns at the shared state,
the lanes it drives, and how a lane's own run is started.

Several runs may drive lanes of one plan at once (two terminals). They share the main
run's `.agent-state.json` by short turns (`turn`: wait for its lock, read it as it is
now, change it, save it), never by holding it while a session works. A run drives a
lane while it holds the lane's lock (`.agent-lanes/session-<n>.lock` in the run
folder): no other run touches that lane meanwhile, and one that finds it held says the
session runs elsewhere.

The state is held as a sequential run holds it (P17): each turn first compares the file
with this run's own last write. A change no executor run made (none held the state's
lock when the turn began, and no other parallel run of the plan is alive: a session's
agent, say, that rewrote it checksum and all) is put back as this run last wrote it, the
changed file kept aside; a change another run made is taken, except for the lanes this
run drives (no other run writes those) and for sessions it says are completed that git
does not show (`proof`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from executor import fsutil
from executor.engine.layout import Layout
from executor.errors import LockedError
from executor.plan.cache import PlanView
from executor.store import StateStore, exclusive
from executor.workflows.tdd.parallel.child import peek
from executor.workflows.tdd.parallel.children import STOP_GRACE, Child, Launcher
from executor.workflows.tdd.parallel.lanes import Places, sync_options, worker_env
from executor.workflows.tdd.parallel.models import Lane
from executor.workflows.tdd.parallel.proof import unproven
from executor.workflows.tdd.state import RunState, SessionEntry

if TYPE_CHECKING:
    from executor.prompts import Prompter
    from executor.vcs import GitRepo
    from executor.workflows.tdd.run import RunRequest

#: Seconds a run waits for its turn at the shared state (another run's turn is short;
#: a run in this checkout without --parallel holds it until it ends).
TURN_WAIT = 300.0


class Shared:
    """A parallel run's context: set up by `Parallel` before its loop starts."""

    req: RunRequest
    report: Callable[[str], None]
    layout: Layout
    store: StateStore[RunState]
    repo: GitRepo
    places: Places
    plan: PlanView
    sessions: list[int]
    prompter: Prompter | None
    launcher: Launcher
    claims: contextlib.ExitStack
    #: lanes this run drives (holds the lock of)
    claimed: set[int]
    #: lane processes running now
    children: dict[int, Child]
    #: lanes that wait for an answer on the bridge (not started again in this run)
    waiting: set[int]
    #: lanes that stopped this run: session -> (exit code, why)
    stops: dict[int, tuple[int, str]]
    #: sessions integrated by this run
    ran: list[int]
    #: the session started or integrated last (None: none yet; the CLI names it when the
    #: run stops or ends, and says nothing of a run that never started one)
    session: int | None
    #: the state as this run last wrote it (None: not yet written)
    kept: RunState | None
    #: (session, commit) pairs git showed completed (`proof.unproven`)
    proven: set[tuple[int, str]]
    #: the lock this run holds while it runs (`.agent-lanes/run-<pid>.lock`)
    run_lock: Path

    def order(self, number: int) -> int:
        """Where session `number` is in the run's (plan) order."""
        return self.sessions.index(number) if number in self.sessions else len(self.sessions)

    @contextlib.contextmanager
    def turn(self) -> Iterator[RunState]:
        """A turn at the shared state: its lock, the state as it is now (checked), saved
        after."""
        busy = self._lock_busy()
        with self.store.locked(wait=TURN_WAIT):
            state = self._checked(busy)
            yield state
            self._save(state)

    def now(self) -> RunState:
        """The shared state as it is, read without its lock (for decisions a turn then
        checks again) while it is this run's last write; else checked in a turn."""
        state = peek(self.layout.state) if self.store.unchanged() else None
        if state is None:
            with self.turn() as state:
                pass
        return state

    def _save(self, state: RunState) -> None:
        self.store.save(state)
        self.kept = state.model_copy(deep=True)

    def _lock_busy(self) -> bool:
        """Whether another process holds the state's lock now (a run's turn, or a run in
        the main checkout that holds it while it runs)."""
        try:
            with exclusive(self.store.lock_path, what="holds the state", wait=0):
                return False
        except LockedError:
            return True

    def _checked(self, busy: bool) -> RunState:
        """The state, loaded under its lock; a change since this run's last write is
        judged first (another run's is taken, anything else's is put back)."""
        foreign = self.kept is not None and not self.store.unchanged()
        state = self.store.load()
        assert state is not None, "a parallel run's state exists once it has started"
        if not foreign or self.kept is None:
            return state
        if not (busy or self._others_alive()):
            return self._put_back(self.kept)
        for number in self.claimed:  # what this run drives, no other run writes
            mine = self.kept.run.lanes.get(number)
            if mine is None:
                state.run.lanes.pop(number, None)
            else:
                state.run.lanes[number] = mine.model_copy(deep=True)
        for number, why in unproven(state, self.repo, self.proven).items():
            self.say(number, f"the state says it is completed, but {why}: not counted")
            self._restore_entry(state, number)
        return state

    def _put_back(self, kept: RunState) -> RunState:
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        aside = self.layout.state.with_name(f"{self.layout.state.name}.foreign-{stamp}")
        with contextlib.suppress(OSError):
            fsutil.atomic_write_bytes(aside, self.layout.state.read_bytes(), fault="quarantine")
        self.store.reclaim()
        state = kept.model_copy(deep=True)
        self._save(state)
        self.report(
            f"the main run's state {self.layout.state} was changed by another program while "
            f"sessions worked (no executor run was writing it): put back as this run last "
            f"wrote it; the changed file is kept as {aside}"
        )
        return state

    def _restore_entry(self, state: RunState, number: int) -> None:
        """Session `number`'s entry as this run last wrote it (not started if it never
        wrote one)."""
        before = self.kept.entry(number) if self.kept is not None else None
        for phase in state.phases:
            for i, entry in enumerate(phase.sessions):
                if entry.number == number:
                    phase.sessions[i] = (
                        before.model_copy(deep=True) if before and before.status != "completed"
                        else SessionEntry(number=number, title=entry.title)
                    )  # fmt: skip

    def _others_alive(self) -> bool:
        """Whether another parallel run of this plan is alive (it holds its run lock)."""
        for path in self.places.lock_folder().glob("run-*.lock"):
            if path == self.run_lock:
                continue
            try:
                with exclusive(path, what="runs this plan", wait=0):
                    pass
            except LockedError:
                return True
        return False

    def claim(self, number: int) -> bool:
        """Drive lane `number`: hold its lock (False: another run holds it)."""
        if number in self.claimed:
            return True
        self.places.lock_folder()
        try:
            self.claims.enter_context(
                exclusive(self.places.claim(number), what=f"drives session {number}'s lane")
            )
        except LockedError:
            return False
        self.claimed.add(number)
        return True

    def holder(self, number: int) -> str:
        """Who drives lane `number` (`pid@host`), as its lock file says."""
        try:
            return self.places.claim(number).read_text("utf-8", "replace").split(" ")[0]
        except OSError:
            return ""

    def lane_layout(self, lane: Lane) -> Layout:
        return self.places.layout_in(Path(lane.worktree))

    def launch(self, number: int, lane: Lane, *, resume: bool) -> None:
        """Start lane `number`'s own run (its worktree's run lock free first: a lane
        stopped by a run that died may still be saving)."""
        from executor.vcs import GitRepo

        worktree = Path(lane.worktree)
        lock = GitRepo(worktree).git_dir / "executor-run.lock"
        with exclusive(lock, what=f"holds {worktree}", wait=STOP_GRACE):
            sync_options(self.now(), lane, self.places)
        self.session = number
        self.children[number] = self.launcher.start(
            number,
            plan=self.places.plan_in(worktree),
            cwd=worktree,
            env=worker_env(lane.worker),
            continue_with=self.req.resume_argv or [],
            resume=resume,
            yes=self.req.yes,
        )
        self.report(f"[session {number}] running in {worktree} (worker {lane.worker})")

    def say(self, number: int, text: str) -> None:
        self.report(f"[session {number}] {text}")
