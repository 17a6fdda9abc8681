"""What the parts of a parallel run share: its places, its turns at the shared state,
the lanes it drives, and how a lane's own run is started.

Several runs may drive lanes of one plan at once (two terminals). They share the main
run's `.agent-state.json` by short turns (`turn`: wait for its lock, read it as it is
now, change it, save it), never by holding it while a session works. A run drives a
lane while it holds the lane's lock (`.agent-lanes/session-<n>.lock` in the run
folder): no other run touches that lane meanwhile, and one that finds it held says the
session runs elsewhere.

The state is held as a sequential run holds it (P17): each turn compares it with this
run's own last write (`fence`). `Shared` is the one object the run's parts (`Settle`,
`Ends`, `Parallel`) are given: none of them keeps a copy of what it holds.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from executor.cores import CORES_ENV
from executor.engine.layout import Layout
from executor.errors import LockedError
from executor.plan.cache import PlanView
from executor.store import StateStore, exclusive
from executor.workflows.tdd.parallel.children import STOP_GRACE, Child, Launcher
from executor.workflows.tdd.parallel.fence import TURN_WAIT, Fence
from executor.workflows.tdd.parallel.lanes import (
    LANES_DIR,
    Places,
    ensure_worktree,
    new_lane,
    seed,
    sync_options,
    worker_env,
)
from executor.workflows.tdd.parallel.proof import unproven
from executor.workflows.tdd.record.lanes import Lane
from executor.workflows.tdd.record.state import RunState, state_store
from executor.workflows.tdd.runner.opening import plan_folder

if TYPE_CHECKING:
    from executor.pinning import Pins
    from executor.prompts import Prompter
    from executor.vcs import GitRepo
    from executor.workflows.tdd.parallel.watch import Watch
    from executor.workflows.tdd.runner.opening import RunRequest


class Shared:
    """What the parts of a parallel run share: its context, its lanes' bookkeeping and
    the small helpers every part calls. Built by `Parallel`; what the run opens (the
    repository, the plan, the pins) is set by `Parallel` before its loop starts."""

    repo: GitRepo
    places: Places
    plan: PlanView
    sessions: list[int]
    prompter: Prompter | None
    #: what the run pinned before any lane started: every lane's, and the integration's
    pins: Pins
    #: the suite's command, when the project has one (else each session's own)
    suite_command: str | None

    def __init__(self, req: RunRequest, report: Callable[[str], None], *, cores: int) -> None:
        self.req = req
        self.report = report
        #: how many test runs of the run's lanes and integrations run at once (0: no limit)
        self.cores = cores
        self.layout = Layout(plan_folder(req.plan))
        self.store: StateStore[RunState] = state_store(self.layout)
        self.launcher = Launcher(report)
        self.claims = contextlib.ExitStack()
        #: lanes this run drives (holds the lock of)
        self.claimed: set[int] = set()
        #: lane processes running now
        self.children: dict[int, Child] = {}
        #: lanes that wait for an answer on the bridge (not started again in this run)
        self.waiting: set[int] = set()
        #: lanes that stopped this run: session -> (exit code, why)
        self.stops: dict[int, tuple[int, str]] = {}
        #: sessions that may not start, and why (dependencies elsewhere, a lane held)
        self.held: dict[int, str] = {}
        #: sessions integrated by this run
        self.ran: list[int] = []
        #: the session started or integrated last (None: none yet; the CLI names it when
        #: the run stops or ends, and says nothing of a run that never started one)
        self.session: int | None = None
        #: sessions (and commits) proven completed in this run (`proof.unproven`)
        self.proven: set[tuple[int, str]] = set()
        #: the shared state, held as this run's own
        self.fence = Fence(
            self.store, self.layout.folder / LANES_DIR / "turn", claimed=self.claimed,
            prove=lambda state: unproven(state, self.repo, self.proven), report=report,
        )  # fmt: skip
        #: the person's checkout, watched where no sandbox keeps sessions out of it
        self.watch: Watch | None = None
        #: this run holds `moving_checkout` now
        self._moving = False

    def order(self, number: int) -> int:
        """Where session `number` is in the run's (plan) order."""
        return self.sessions.index(number) if number in self.sessions else len(self.sessions)

    @contextlib.contextmanager
    def turn(self) -> Iterator[RunState]:
        """A turn at the shared state (`Fence.turn`)."""
        with self.fence.turn() as state:
            yield state

    def now(self) -> RunState:
        """The shared state as it is (`Fence.now`)."""
        return self.fence.now()

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

    def open_lane(self, number: int) -> None:
        """Start session `number` in a new lane: a worktree from the main tip, seeded with
        the main state."""
        with self.turn() as state:
            lane = new_lane(state, self.repo, self.places, number)
            main = state.model_copy(deep=True)
        ensure_worktree(self.repo, self.places, number, lane, self.report)
        seed(main, lane, number, self.places)
        self.launch(number, lane, resume=False)

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
            env={**worker_env(lane.worker), CORES_ENV: str(self.cores)},
            continue_with=self.req.resume_argv or [],
            resume=resume,
            yes=self.req.yes,
        )
        self.report(f"[session {number}] running in {worktree} (worker {lane.worker})")

    def look(self) -> None:
        """Where no sandbox keeps sessions out of the person's checkout: put back what
        they wrote there (`watch`); and everywhere, compare what the run pinned."""
        if self.watch is not None:
            with self.moving_checkout("looks at your checkout"):
                self.watch.check()
        self.check_pins()

    @contextlib.contextmanager
    def moving_checkout(self, what: str) -> Iterator[None]:
        """The lock every run of the plan takes to move the person's checkout (an
        integration) or to look at it: a look between another run's move of HEAD and of
        the files took its integration for a session's writes and put it back."""
        if self._moving:
            yield
            return
        self.places.lock_folder()
        with exclusive(self.places.integrating, what=what, wait=TURN_WAIT * 4):
            self._moving = True
            try:
                yield
            finally:
                self._moving = False

    def check_pins(self) -> None:
        """What the run pinned for every lane and the integration (`executor.pinning`),
        as sessions left it: git's own files a session changed are put back; a changed
        environment stops the run before anything more is integrated (every lane and
        the integration suite run with it), and stays the sessions' change until it is
        as pinned again or a person takes it in."""
        from executor.errors import VerificationFailedError
        from executor.pinning import shown
        from executor.workflows.tdd.trust.verdicts import describe

        env = self.pins.pinned.environment
        changes = self.pins.changes(env.python if env else None)
        if changes is None:
            raise VerificationFailedError(
                f"the executor's record of what the run pinned ({self.pins.path}) changed "
                f"while sessions worked: nothing more is integrated (tampering)."
            )
        if changes.git:
            self.pins.put_back_git(list(changes.git))
            self.report(f"[run] git's own files changed while sessions worked: "
                        f"{describe(shown(changes.git, self.repo.root))}; put back")  # fmt: skip
        if not changes.environment:
            return
        with self.turn() as state:
            if state.run.pinned is not None:
                state.run.pinned.unsettled = changes.environment
        self.pins.pinned.unsettled = changes.environment
        from executor.workflows.tdd.parallel.pinned import unsettled_message

        raise VerificationFailedError(unsettled_message(self.pins, self.repo.root))

    def say(self, number: int, text: str) -> None:
        self.report(f"[session {number}] {text}")
