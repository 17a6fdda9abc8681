"""A parallel run (`--parallel N`): sessions whose dependencies are complete run side by
side, each in a worktree of its own, and are integrated one at a time, in plan order
(docs/parallel.md). It keeps no lock while sessions work (`Shared.turn`), so another
terminal can run other sessions of the same plan beside it."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from executor import __version__, faults
from executor.engine.layout import Layout
from executor.errors import (
    Interrupted,
    NothingToResumeError,
    UserError,
)
from executor.exitcodes import ExitCode
from executor.fsutil import quote
from executor.sandbox import bubblewrap
from executor.workflows.tdd.parallel.asking import ask_in_terminal
from executor.workflows.tdd.parallel.children import Child, Launcher
from executor.workflows.tdd.parallel.ends import Ends
from executor.workflows.tdd.parallel.fence import Fence
from executor.workflows.tdd.parallel.lanes import (
    LANES_DIR,
    WORKTREES,
    Places,
    ensure_worktree,
    new_lane,
    plan_committed,
    seed,
)
from executor.workflows.tdd.parallel.pinned import pin_lanes
from executor.workflows.tdd.parallel.proof import unproven
from executor.workflows.tdd.parallel.watch import Watch
from executor.workflows.tdd.parallel.waves import completed, may_start
from executor.workflows.tdd.record.lanes import Lane
from executor.workflows.tdd.record.state import state_store
from executor.workflows.tdd.runner.as_lane import peek
from executor.workflows.tdd.runner.opening import RunRequest, open_run, plan_folder
from executor.workflows.tdd.runner.run import RunResult
from executor.workflows.tdd.runner.workspace import check_workspace
from executor.workflows.tdd.step import ACTIVE

if TYPE_CHECKING:
    from executor.runoptions import RunOptions

#: Seconds between looks at the lanes' processes while they work.
POLL = 0.1
#: Seconds between looks at the shared state while nothing here changed.
LOOK_EVERY = 2.0


def wanted(req: RunRequest) -> bool:
    """Whether `req` runs sessions side by side: `--parallel N` given now, else the run's
    saved option, else `parallel` in `[tool.executor]`; never for a session's own lane."""
    from executor.project_config import find_root, load_project_config

    state = peek(Layout(plan_folder(req.plan)).state)
    if state is not None and state.run.lane is not None:
        return False
    for value in (
        req.overrides.get("parallel"),
        state.run.options.parallel if state is not None else None,
        load_project_config(find_root(req.repo or req.plan)).defaults.get("parallel"),
    ):
        if value is not None:
            return bool(value)
    return False


class Parallel(Ends):
    def __init__(
        self,
        req: RunRequest,
        *,
        report: Callable[[str], None],
        force: bool = False,
    ) -> None:
        self.req = req
        self.report = report
        self.force = force
        # lanes' agents wait on remote models; their test runs take turns on the cores
        self.cores = 0 if force else os.cpu_count() or 1
        self.layout = Layout(plan_folder(req.plan))
        self.store = state_store(self.layout)
        self.launcher = Launcher(report)
        self.claims = contextlib.ExitStack()
        self.claimed, self.waiting, self.decided = set(), set(), set()
        self.children: dict[int, Child] = {}
        self.stops: dict[int, tuple[int, str]] = {}
        self.ran: list[int] = []
        #: sessions that may not start, and why (dependencies elsewhere, a lane held)
        self.held: dict[int, str] = {}
        #: What the run is, once known (for what the CLI says when it stops or ends): its
        #: options as resolved, its project's name.
        self.options: RunOptions | None = None
        self.project: str | None = None
        self.session = None
        self.proven: set[tuple[int, str]] = set()
        self.fence = Fence(
            self.store, self.layout.folder / LANES_DIR / "turn", claimed=self.claimed,
            prove=lambda state: unproven(state, self.repo, self.proven), report=report,
        )  # fmt: skip
        self.watch = None

    def execute(self) -> RunResult:
        from executor.vcs import GitRepo

        self.repo = GitRepo.discover(self.req.repo or self.layout.folder)
        if not self.layout.lock.exists():  # first run here: hide our files before any
            self.repo.exclude_run_folder(self.layout.folder)
        self.repo.exclude([f"/{WORKTREES}/"])
        try:
            with self.claims:
                self._open()
                try:
                    self._loop()
                except KeyboardInterrupt:
                    self.launcher.stop(list(self.children.values()))
                    raise Interrupted(state=self.layout.state) from None
                except BaseException:  # every session saves and stops before the error shows
                    self.launcher.stop(list(self.children.values()))
                    raise
                self.put_away()
                self.look()
                return self.result()
        finally:
            self.launcher.close()

    # -- opening ---------------------------------------------------------------------------
    def _open(self) -> None:
        from executor.workflows.tdd.runner.run import _terminal_prompter

        with self.store.locked(wait=300):
            state = self.store.load()
            opened = open_run(self.req, state, self.layout, self.report)
            state = opened.state
            self.plan, self.sessions = opened.plan, opened.sessions
            self.options, self.project = state.run.options, state.project_name
            here = [n for n in self.sessions if n in state.run.parked or (
                (r := state.run.sessions.get(n)) and (r.step in ACTIVE or r.paused))]  # fmt: skip
            if here:
                raise UserError(
                    f"session {here[0]} is in progress in this checkout (started without "
                    f"--parallel): finish it there first (executor resume-session {here[0]} "
                    f"--parallel 0 --plan {quote(self.req.plan)}). Nothing was touched."
                )
            check_workspace(state, self.repo, self.sessions, self.layout)
            self.places = Places(self.repo.root, Path(state.run.plan).absolute(), self.layout)
            plan_committed(self.repo, self.places, self.layout)
            for number, why in unproven(state, self.repo, self.proven).items():
                self.say(number, f"the state says it is completed, but {why}: it is not "
                                 f"counted completed, and runs")  # fmt: skip
                state.forget(number)
                if (lane := state.run.lanes.get(number)) and lane.status == "integrated":
                    state.run.lanes.pop(number)
            state.run.tool_version = __version__
            self.prompter = (
                self.req.prompter if self.req.prompter is not None else (_terminal_prompter())
            )
            self.pins = pin_lanes(opened, self.repo, self.layout, self.report,
                                  prompter=None if self.req.yes else self.prompter)  # fmt: skip
            self.fence.save(state)
        self.suite_command = opened.suite
        if not (state.run.options.sandbox == "auto" and bubblewrap() is not None):
            self.watch = Watch(self.repo, self.layout.owned(), self.report)
        self.width = self._width(state.run.options.parallel or 1)
        self.outline = {o.number: o for o in self.plan.outline()}
        self.left_out = {n for n, o in self.outline.items() if o.left_out}
        self.files = {n: [f.path for f in s.files] for n in self.sessions
                      if (s := self.plan.session(n)) is not None}  # fmt: skip
        waiting = [n for n in self.sessions if self._pending(n) is not None]
        answered = [n for n in waiting if self._answered(n)]
        if self.req.resume and not waiting:
            raise NothingToResumeError(
                f"--resume: no request is pending for the sessions of this run "
                f"({self.layout.state}); nothing to apply. Run the command without --resume."
            )
        #: with --resume, lanes with no answer wait; when no answer was written at all,
        #: each is asked again (its own run counts the emissions and gives up at its cap)
        self.ask_again = not self.req.resume or not answered
        self.recheck = {n for n, lane in self.now().run.lanes.items() if lane.status == "blocked"}
        for n, lane in sorted(self.now().run.lanes.items()):
            if n not in self.sessions and lane.status != "integrated":
                continue  # another run's business, or a later one's
            if not self.claim(n):
                self.held[n] = f"its lane is driven by another executor run ({self.holder(n)})"
            elif lane.status == "integrated":
                self.tidy(n)  # a kept worktree cleaned meanwhile, or a crash before cleanup

    def _width(self, asked: int) -> int:
        if asked > self.cores > 0:
            self.report(
                f"--parallel {asked}: {asked} sessions side by side; their test runs take "
                f"turns on the machine's {self.cores} cores (--force-parallel: no turns)"
            )
        return asked

    # -- the loop --------------------------------------------------------------------------
    def _loop(self) -> None:
        """Until nothing is left to do: lanes that ended are settled at once; what may
        start (or be integrated) is looked at again then, and every LOOK_EVERY seconds
        meanwhile (another run may have integrated a dependency)."""
        look = 0.0
        while True:
            moved = self._reap()
            if moved or not self.children or time.monotonic() >= look:
                moved = self._settle() or moved
                if not self.stops:
                    moved = self._start() or moved
                look = time.monotonic() + LOOK_EVERY
            if not self.children and not moved:
                return
            if not moved:
                time.sleep(POLL)

    def _reap(self) -> bool:
        done = [n for n, c in self.children.items() if c.proc.poll() is not None]
        if done:
            self.look()
        for n in done:
            child = self.children.pop(n)
            try:
                self._after(n, child.wait(), child)
            finally:
                child.close()
        return bool(done)

    def _after(self, number: int, code: int, child: Child) -> None:
        """A lane's own run ended with `code`."""
        lane = self.now().run.lanes[number]
        if code == ExitCode.SUCCESS:
            self._finished(number, lane, child.report())
        elif code == ExitCode.NEED_AGENT:
            if not self._ask_here(number, lane):
                self.waiting.add(number)
        else:
            why = child.reason() or f"its run exited {code}"
            self.stops[number] = (code, why)
            self.say(number, f"stopped (exit {code}): {why}")

    def _finished(self, number: int, lane: Lane, said: dict[str, object] | None) -> None:
        """Lane `number`'s run ended its session, and said how over its own pipe: the
        commit it verified is recorded, and is what is integrated (by id)."""
        status, commit = (said or {}).get("status"), (said or {}).get("commit")
        if status not in ("completed", "skipped") or not isinstance(commit, str | None):
            self.stops[number] = (
                int(ExitCode.INTERNAL_ERROR),
                "its run ended, its session did not",
            )
            return
        if status == "skipped" or (said or {}).get("adopted") or commit is None:
            self.integrated(number, commit, status=str(status))  # nothing to integrate
            return
        with self.turn() as state:
            mine = state.run.lanes[number]
            mine.status, mine.commit, mine.verified = "finished", commit, commit
        faults.hit("lane.finished")
        self.say(number, f"committed {commit[:12]} on {lane.branch}")

    def _settle(self) -> bool:
        """Integrate the first finished lane (plan order) no earlier running lane of this
        run comes before; decide on blocked ones."""
        lanes = self.now().run.lanes
        for n in sorted(self.claimed & set(lanes), key=self.order):
            lane = lanes[n]
            if any(self.order(m) < self.order(n) for m in self.children):
                return False  # an earlier session still runs: plan order
            if lane.status == "finished":
                self.integrate_one(n)
                return True
            if lane.status == "blocked" and n not in self.decided and n not in self.waiting:
                self.decide(n)
                return True
        return False

    def _start(self) -> bool:
        state = self.now()
        started = False
        for n in self.sessions:  # lanes recorded before: take each up where it stopped
            lane = state.run.lanes.get(n)
            if lane is None or n in self.children or n in self.waiting or n in self.stops:
                continue
            if n in self.claimed and lane.status == "running":
                started = self._resume(n, lane) or started
        running = {m for m, lane in state.run.lanes.items() if lane.status != "integrated"}
        complete = completed(state)
        index = state.index()
        for n in self.sessions:
            mine = [m for m in self.claimed if state.run.lanes.get(m, None) is not None
                    and state.run.lanes[m].status == "running"]  # fmt: skip
            if len(mine) >= self.width:
                break
            if n in state.run.lanes or state.finished(n, index):
                continue
            deps, sharing = may_start(
                self.outline[n], self.files, complete=complete, running=running,
                left_out=self.left_out,
            )  # fmt: skip
            if deps or sharing:
                self.held[n] = self._why_held(state.run.lanes, deps, sharing)
                continue
            if not self.claim(n):
                continue
            self.held.pop(n, None)
            self._open_lane(n)
            running.add(n)
            state = self.now()
            index = state.index()
            started = True
        return started

    def _why_held(self, lanes: dict[int, Lane], deps: list[int], sharing: list[int]) -> str:
        if deps:
            where = [f"session {d} runs in {lanes[d].worktree} ({self.holder(d) or 'waiting'})"
                     for d in deps if d in lanes]  # fmt: skip
            return f"waiting for session(s) {', '.join(map(str, deps))} to complete" + (
                f" ({'; '.join(where)})" if where else ""
            )
        return f"session(s) {', '.join(map(str, sharing))} list the same files and run now"

    def _open_lane(self, number: int) -> None:
        with self.turn() as state:
            lane = new_lane(state, self.repo, self.places, number)
            main = state.model_copy(deep=True)
        ensure_worktree(self.repo, self.places, number, lane, self.report)
        seed(main, lane, number, self.places)
        self.launch(number, lane, resume=False)

    def _resume(self, number: int, lane: Lane) -> bool:
        """Take lane `number`'s own run up again: with the answer written for it, else
        by asking the person here, else (a plain run, or a --resume that applies no
        answer at all) by running it again; otherwise it keeps waiting."""
        ensure_worktree(self.repo, self.places, number, lane, self.report)
        seed(self.now(), lane, number, self.places)
        if self._pending(number) is None:
            self.launch(number, lane, resume=False)
            return True
        if self._answered(number) or self._ask_here(number, lane, launch=False):
            self.launch(number, lane, resume=True)
            return True
        if self.ask_again:
            self.launch(number, lane, resume=self.req.resume)
            return True
        self.waiting.add(number)
        return False

    def _pending(self, number: int) -> str | None:
        """The id of the request lane `number` waits on, if any: its own run's, or the
        question about its integration."""
        lane = self.now().run.lanes.get(number)
        if lane is not None and lane.status == "blocked" and lane.bridge.pending is not None:
            return lane.bridge.pending.request_id
        if lane is None or lane.status != "running":
            return None
        theirs = peek(self.lane_layout(lane).state)
        if theirs is None:
            return None
        pending = [r.bridge.pending for r in theirs.run.sessions.values() if r.bridge.pending]
        return pending[0].request_id if pending else None

    def _answered(self, number: int) -> bool:
        lane = self.now().run.lanes[number]
        return self.lane_layout(lane).response.exists()

    def _ask_here(self, number: int, lane: Lane, *, launch: bool = True) -> bool:
        """A lane waits for a person and this run has a terminal: ask here, write the
        answer as a host would, and (`launch`) take the lane up again with it."""
        if self.prompter is None:
            return False
        try:
            asked = ask_in_terminal(
                self.prompter, self.lane_layout(lane).folder, number,
                phase=self.outline[number].phase, on_ask=self.req.on_ask,
            )  # fmt: skip
        except EOFError:  # the terminal went away: the request waits for a host
            self.prompter = None
            return False
        if asked and launch:
            self.launch(number, lane, resume=True)
        return asked
