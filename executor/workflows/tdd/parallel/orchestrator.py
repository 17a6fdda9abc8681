"""A parallel run (`--parallel N`): sessions whose dependencies are complete run side by
side, each in a worktree of its own, and are integrated one at a time, in plan order
(docs/parallel.md). It keeps no lock while sessions work (`Shared.turn`), so another
terminal can run other sessions of the same plan beside it."""

from __future__ import annotations

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
from executor.workflows.tdd.parallel.children import Child
from executor.workflows.tdd.parallel.ends import Ends
from executor.workflows.tdd.parallel.lanes import (
    WORKTREES,
    Places,
    ensure_worktree,
    plan_committed,
    seed,
)
from executor.workflows.tdd.parallel.pinned import pin_lanes
from executor.workflows.tdd.parallel.proof import unproven
from executor.workflows.tdd.parallel.settle import Settle
from executor.workflows.tdd.parallel.shared import Shared
from executor.workflows.tdd.parallel.watch import Watch
from executor.workflows.tdd.parallel.waves import completed, may_start
from executor.workflows.tdd.record.lanes import Lane
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


class Parallel:
    """The run's loop, composed of parts built once: `shared` (its context and helpers),
    `settle` (integration, blocked lanes) and `ends` (how it ends)."""

    def __init__(
        self,
        req: RunRequest,
        *,
        report: Callable[[str], None],
        force: bool = False,
    ) -> None:
        self.req = req
        # lanes' agents wait on remote models; their test runs take turns on the cores
        self.shared = Shared(req, report, cores=0 if force else os.cpu_count() or 1)
        self.settle = Settle(self.shared)
        self.ends = Ends(self.shared, force=force)
        #: What the run is, once known (for what the CLI says when it stops or ends): its
        #: options as resolved, its project's name.
        self.options: RunOptions | None = None
        self.project: str | None = None

    @property
    def session(self) -> int | None:
        """The session started or integrated last (`Shared.session`)."""
        return self.shared.session

    def execute(self) -> RunResult:
        from executor.vcs import GitRepo

        shared = self.shared
        shared.repo = GitRepo.discover(self.req.repo or shared.layout.folder)
        if not shared.layout.lock.exists():  # first run here: hide our files before any
            shared.repo.exclude_run_folder(shared.layout.folder)
        shared.repo.exclude([f"/{WORKTREES}/"])
        try:
            with shared.claims:
                self._open()
                try:
                    self._loop()
                except KeyboardInterrupt:
                    shared.launcher.stop(list(shared.children.values()))
                    raise Interrupted(state=shared.layout.state) from None
                except BaseException:  # every session saves and stops before the error shows
                    shared.launcher.stop(list(shared.children.values()))
                    raise
                self.ends.put_away()
                shared.look()
                return self.ends.result()
        finally:
            shared.launcher.close()

    # -- opening ---------------------------------------------------------------------------
    def _open(self) -> None:
        from executor.workflows.tdd.runner.run import _terminal_prompter

        shared = self.shared
        with shared.store.locked(wait=300):
            state = shared.store.load()
            opened = open_run(self.req, state, shared.layout, shared.report)
            state = opened.state
            shared.plan, shared.sessions = opened.plan, opened.sessions
            self.options, self.project = state.run.options, state.project_name
            here = [n for n in shared.sessions if n in state.run.parked or (
                (r := state.run.sessions.get(n)) and (r.step in ACTIVE or r.paused))]  # fmt: skip
            if here:
                raise UserError(
                    f"session {here[0]} is in progress in this checkout (started without "
                    f"--parallel): finish it there first (executor resume-session {here[0]} "
                    f"--parallel 0 --plan {quote(self.req.plan)}). Nothing was touched."
                )
            check_workspace(state, shared.repo, shared.sessions, shared.layout)
            shared.places = Places(shared.repo.root, Path(state.run.plan).absolute(), shared.layout)
            plan_committed(shared.repo, shared.places, shared.layout)
            for number, why in unproven(state, shared.repo, shared.proven).items():
                shared.say(number, f"the state says it is completed, but {why}: it is not "
                                   f"counted completed, and runs")  # fmt: skip
                state.forget(number)
                if (lane := state.run.lanes.get(number)) and lane.status == "integrated":
                    state.run.lanes.pop(number)
            state.run.tool_version = __version__
            shared.prompter = (
                self.req.prompter if self.req.prompter is not None else (_terminal_prompter())
            )
            shared.pins = pin_lanes(opened, shared.repo, shared.layout, shared.report,
                                    prompter=None if self.req.yes else shared.prompter)  # fmt: skip
            shared.fence.save(state)
        shared.suite_command = opened.suite
        if not (state.run.options.sandbox == "auto" and bubblewrap() is not None):
            shared.watch = Watch(shared.repo, shared.layout.owned(), shared.report)
        self.width = self._width(state.run.options.parallel or 1)
        self.outline = {o.number: o for o in shared.plan.outline()}
        self.left_out = {n for n, o in self.outline.items() if o.left_out}
        self.files = {n: [f.path for f in s.files] for n in shared.sessions
                      if (s := shared.plan.session(n)) is not None}  # fmt: skip
        waiting = [n for n in shared.sessions if self._pending(n) is not None]
        answered = [n for n in waiting if self._answered(n)]
        if self.req.resume and not waiting:
            raise NothingToResumeError(
                f"--resume: no request is pending for the sessions of this run "
                f"({shared.layout.state}); nothing to apply. Run the command without --resume."
            )
        #: with --resume, lanes with no answer wait; when no answer was written at all,
        #: each is asked again (its own run counts the emissions and gives up at its cap)
        self.ask_again = not self.req.resume or not answered
        blocked = {n for n, lane in shared.now().run.lanes.items() if lane.status == "blocked"}
        self.settle.recheck = blocked
        for n, lane in sorted(shared.now().run.lanes.items()):
            if n not in shared.sessions and lane.status != "integrated":
                continue  # another run's business, or a later one's
            if not shared.claim(n):
                shared.held[n] = f"its lane is driven by another executor run ({shared.holder(n)})"
            elif lane.status == "integrated":
                self.settle.tidy(n)  # a kept worktree cleaned meanwhile, or a crash before cleanup

    def _width(self, asked: int) -> int:
        if asked > self.shared.cores > 0:
            self.shared.report(
                f"--parallel {asked}: {asked} sessions side by side; their test runs take "
                f"turns on the machine's {self.shared.cores} cores (--force-parallel: no turns)"
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
            if moved or not self.shared.children or time.monotonic() >= look:
                moved = self._settle() or moved
                if not self.shared.stops:
                    moved = self._start() or moved
                look = time.monotonic() + LOOK_EVERY
            if not self.shared.children and not moved:
                return
            if not moved:
                time.sleep(POLL)

    def _reap(self) -> bool:
        done = [n for n, c in self.shared.children.items() if c.proc.poll() is not None]
        if done:
            self.shared.look()
        for n in done:
            child = self.shared.children.pop(n)
            try:
                self._after(n, child.wait(), child)
            finally:
                child.close()
        return bool(done)

    def _after(self, number: int, code: int, child: Child) -> None:
        """A lane's own run ended with `code`."""
        lane = self.shared.now().run.lanes[number]
        if code == ExitCode.SUCCESS:
            self._finished(number, lane, child.report())
        elif code == ExitCode.NEED_AGENT:
            if not self._ask_here(number, lane):
                self.shared.waiting.add(number)
        else:
            why = child.reason() or f"its run exited {code}"
            self.shared.stops[number] = (code, why)
            self.shared.say(number, f"stopped (exit {code}): {why}")

    def _finished(self, number: int, lane: Lane, said: dict[str, object] | None) -> None:
        """Lane `number`'s run ended its session, and said how over its own pipe: the
        commit it verified is recorded, and is what is integrated (by id)."""
        status, commit = (said or {}).get("status"), (said or {}).get("commit")
        if status not in ("completed", "skipped") or not isinstance(commit, str | None):
            self.shared.stops[number] = (
                int(ExitCode.INTERNAL_ERROR),
                "its run ended, its session did not",
            )
            return
        if status == "skipped" or (said or {}).get("adopted") or commit is None:
            self.settle.integrated(number, commit, status=str(status))  # nothing to integrate
            return
        with self.shared.turn() as state:
            mine = state.run.lanes[number]
            mine.status, mine.commit, mine.verified = "finished", commit, commit
        faults.hit("lane.finished")
        self.shared.say(number, f"committed {commit[:12]} on {lane.branch}")

    def _settle(self) -> bool:
        """Integrate the first finished lane (plan order) no earlier running lane of this
        run comes before; decide on blocked ones."""
        shared = self.shared
        lanes = shared.now().run.lanes
        for n in sorted(shared.claimed & set(lanes), key=shared.order):
            lane = lanes[n]
            if any(shared.order(m) < shared.order(n) for m in shared.children):
                return False  # an earlier session still runs: plan order
            if lane.status == "finished":
                self.settle.integrate_one(n)
                return True
            if lane.status == "blocked" and n not in self.settle.decided | shared.waiting:
                self.settle.decide(n)
                return True
        return False

    def _start(self) -> bool:
        shared = self.shared
        state = shared.now()
        started = False
        for n in shared.sessions:  # lanes recorded before: take each up where it stopped
            lane = state.run.lanes.get(n)
            if lane is None or n in shared.children or n in shared.waiting or n in shared.stops:
                continue
            if n in shared.claimed and lane.status == "running":
                started = self._resume(n, lane) or started
        running = {m for m, lane in state.run.lanes.items() if lane.status != "integrated"}
        complete = completed(state)
        index = state.index()
        for n in shared.sessions:
            mine = [m for m in shared.claimed if state.run.lanes.get(m, None) is not None
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
                shared.held[n] = self._why_held(state.run.lanes, deps, sharing)
                continue
            if not shared.claim(n):
                continue
            shared.held.pop(n, None)
            shared.open_lane(n)
            running.add(n)
            state = shared.now()
            index = state.index()
            started = True
        return started

    def _why_held(self, lanes: dict[int, Lane], deps: list[int], sharing: list[int]) -> str:
        if deps:
            holder = self.shared.holder
            where = [f"session {d} runs in {lanes[d].worktree} ({holder(d) or 'waiting'})"
                     for d in deps if d in lanes]  # fmt: skip
            return f"waiting for session(s) {', '.join(map(str, deps))} to complete" + (
                f" ({'; '.join(where)})" if where else ""
            )
        return f"session(s) {', '.join(map(str, sharing))} list the same files and run now"

    def _resume(self, number: int, lane: Lane) -> bool:
        """Take lane `number`'s own run up again: with the answer written for it, else
        by asking the person here, else (a plain run, or a --resume that applies no
        answer at all) by running it again; otherwise it keeps waiting."""
        shared = self.shared
        ensure_worktree(shared.repo, shared.places, number, lane, shared.report)
        seed(shared.now(), lane, number, shared.places)
        if self._pending(number) is None:
            self.shared.launch(number, lane, resume=False)
            return True
        if self._answered(number) or self._ask_here(number, lane, launch=False):
            self.shared.launch(number, lane, resume=True)
            return True
        if self.ask_again:
            self.shared.launch(number, lane, resume=self.req.resume)
            return True
        self.shared.waiting.add(number)
        return False

    def _pending(self, number: int) -> str | None:
        """The id of the request lane `number` waits on, if any: its own run's, or the
        question about its integration."""
        lane = self.shared.now().run.lanes.get(number)
        if lane is not None and lane.status == "blocked" and lane.bridge.pending is not None:
            return lane.bridge.pending.request_id
        if lane is None or lane.status != "running":
            return None
        theirs = peek(self.shared.lane_layout(lane).state)
        if theirs is None:
            return None
        pending = [r.bridge.pending for r in theirs.run.sessions.values() if r.bridge.pending]
        return pending[0].request_id if pending else None

    def _answered(self, number: int) -> bool:
        lane = self.shared.now().run.lanes[number]
        return self.shared.lane_layout(lane).response.exists()

    def _ask_here(self, number: int, lane: Lane, *, launch: bool = True) -> bool:
        """A lane waits for a person and this run has a terminal: ask here, write the
        answer as a host would, and (`launch`) take the lane up again with it."""
        if self.shared.prompter is None:
            return False
        try:
            asked = ask_in_terminal(
                self.shared.prompter, self.shared.lane_layout(lane).folder, number,
                phase=self.outline[number].phase, on_ask=self.req.on_ask,
            )  # fmt: skip
        except EOFError:  # the terminal went away: the request waits for a host
            self.shared.prompter = None
            return False
        if asked and launch:
            self.shared.launch(number, lane, resume=True)
        return asked
