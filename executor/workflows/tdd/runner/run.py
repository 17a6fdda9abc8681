"""A plan run: load the state and the plan, check the workspace, pick the sessions in
scope, and drive each through the TDD workflow under the single-writer lock."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from executor import __version__
from executor.bridge.protocol import BridgeChannel
from executor.engine.agents import BRIDGE_AGENT, Agents, BridgeAgents, Durable
from executor.engine.decisions import Decider
from executor.engine.driver import drive
from executor.engine.layout import Layout
from executor.engine.running import stop_leftover
from executor.errors import (
    ExecutorError,
    Interrupted,
    NothingToResumeError,
)
from executor.plan.cache import PlanView, load_valid
from executor.retry import RetryPolicy
from executor.sandbox import Sandbox
from executor.store import StateStore, exclusive
from executor.words import plural
from executor.workflows.tdd.parking.lot import ParkingLot
from executor.workflows.tdd.record.session import SessionRecord
from executor.workflows.tdd.record.state import (
    RunState,
    SessionArchive,
    SessionEntry,
    project,
    state_store,
)
from executor.workflows.tdd.runner.as_lane import lane_guarded, lane_sandbox, spent_by_all
from executor.workflows.tdd.runner.redo import redo
from executor.workflows.tdd.runner.scope import SessionScope
from executor.workflows.tdd.runner.stops import note_interrupt, stopped
from executor.workflows.tdd.runner.testruns import core_turns, make_measure, make_run_tests
from executor.workflows.tdd.runner.workspace import check_workspace
from executor.workflows.tdd.session.context import SessionRun
from executor.workflows.tdd.step import AGENT_STEPS
from executor.workflows.tdd.table import TDD, TddSession

if TYPE_CHECKING:
    from executor.pinning import Pins
    from executor.prompts import Prompter
    from executor.runoptions import RunOptions
    from executor.vcs import GitRepo
from executor.workflows.tdd.runner.opening import (
    DEFINITION_HASH,
    Opened,
    RunRequest,
    checkouts,
    open_run,
    plan_folder,
    planned,
    refuse_lanes,
    sandbox_of,
)


@dataclass
class RunResult:
    plan: PlanView
    state: RunState
    repo_root: Path
    sessions: list[int] = field(default_factory=list)


class Runner:
    def __init__(self, req: RunRequest, *, report: Callable[[str], None]) -> None:
        self.req = req
        self.report = report
        #: What the run is, once known (for what the CLI says when it stops or ends):
        #: its options as resolved, its project's name, the session it drives.
        self.options: RunOptions | None = None
        self.project: str | None = None
        self.session: int | None = None

    def execute(self) -> RunResult:
        req = self.req
        layout = Layout(plan_folder(req.plan))
        store = state_store(layout)
        from executor.vcs import GitRepo

        repo = GitRepo.discover(req.repo or layout.folder)
        if not layout.lock.exists():  # first run here: hide our files before creating any
            repo.exclude_run_folder(layout.folder)
        # one plan run per worktree at a time: two would each see the other's files
        here = f"holds this worktree ({repo.root})"
        with exclusive(repo.git_dir / "executor-run.lock", what=here, about=str(layout.folder)):
            return self._locked(req, layout, store)

    def _locked(self, req: RunRequest, layout: Layout, store: StateStore[RunState]) -> RunResult:
        with store.locked():
            try:
                return self._execute(req, layout, store)
            except KeyboardInterrupt:  # the CLI says what is saved and how to continue it
                # a second Ctrl+C, or a state that cannot be read: the stop is not noted
                with contextlib.suppress(KeyboardInterrupt, ExecutorError):
                    note_interrupt(store, layout)
                kept = layout.state if layout.state.exists() else None
                raise Interrupted(state=kept) from None

    def _execute(self, req: RunRequest, layout: Layout, store: StateStore[RunState]) -> RunResult:
        """Under the lock: stop an agent a killed run left, load (or start) the state,
        check the workspace, run."""
        left = stop_leftover(layout.folder)
        if left is not None:
            self.report(f"[run] {left}")
        state = store.load()
        if req.resume and (state is None or not _pending(state)):
            started = len(state.run.sessions) if state else 0
            raise NothingToResumeError(
                f"--resume: no request is pending in {layout.state}"
                + (f" (state: {plural(started, 'session')} in progress)" if state else "")
                + "; nothing to apply. Run the command without --resume."
            )
        opened = open_run(req, state, layout, self.report)
        self.options, self.project = opened.state.run.options, opened.state.project_name
        if state is None or not state.run.lane:  # a session's lane runs that session only
            refuse_lanes(opened.state, opened.sessions, layout)
        check_workspace(opened.state, opened.repo, opened.sessions, layout)
        scope = req.scope
        redone = (
            isinstance(scope, SessionScope)
            and scope.redo
            and redo(opened.state, scope.number, opened.repo, layout, self.report)
        )
        if redone:
            store.save(opened.state)
        opened.state.run.tool_version = __version__
        return self._run(opened, store, layout)

    def _agents(
        self, state: RunState, store: StateStore[RunState], repo: GitRepo, layout: Layout
    ) -> tuple[Agents, BridgeAgents, Durable, RetryPolicy]:
        """The bridge, and the agents the options name (the bridge, or a process)."""
        options = state.run.options
        durable = Durable(lambda: store.save(state))
        policy = RetryPolicy()
        channel = BridgeChannel(layout.folder, policy=policy, resume=self.req.resume_argv)
        channel.sweep()
        bridge = BridgeAgents(channel, durable)
        if self.req.agents is not None:
            return self.req.agents, bridge, durable, policy
        if not options.agent_command and options.agent in (None, BRIDGE_AGENT):
            return bridge, bridge, durable, policy
        from executor.engine.process import AgentProcess, OwnFiles, ProcessAgents

        how = AgentProcess.from_options(options.agent_command, options.agent)
        assert how is not None
        own = OwnFiles(
            [layout.state, layout.backup, layout.pinned], cache=layout.plan_cache,
            reclaim=store.reclaim,
        )  # fmt: skip
        walled = state.run.lane is not None and options.sandbox == "auto"
        agents = ProcessAgents(
            how, repo=repo.root, channel=channel, durable=durable, exclude=repo.exclude,
            own_files=own, sandbox=lane_sandbox(Sandbox.of([]), repo, agent=True) if walled
            else None,
        )  # fmt: skip
        return agents, bridge, durable, policy

    def _run(self, opened: Opened, store: StateStore[RunState], layout: Layout) -> RunResult:
        plan, state, repo, sessions = opened.plan, opened.state, opened.repo, opened.sessions
        restored, project_command, config = opened.restored, opened.command, opened.config
        req, options = self.req, state.run.options
        agents, bridge, durable, policy = self._agents(state, store, repo, layout)
        prompter = req.prompter if req.prompter is not None else _terminal_prompter()
        decider = Decider(
            yes=req.yes, prompter=prompter, bridge=bridge, folder=layout.folder, on_ask=req.on_ask
        )
        suite = opened.suite
        link = state.run.lane
        extra = lane_guarded(link) if link is not None else []
        sandbox = sandbox_of(repo, layout, req.plan, extra) if options.sandbox == "auto" else None
        if sandbox is not None and link is not None:  # a lane: the person's checkout too
            sandbox = lane_sandbox(sandbox, repo)
        spent = (lambda: spent_by_all(state)) if link is not None else (lambda: state.run.spent)
        turn = core_turns(repo, link, self.report)
        run_tests = make_run_tests(req, options, repo, config, sandbox, turn)
        measure = make_measure(repo, config, sandbox, turn)

        measuring = req.measure or (measure if req.run_tests is None else None)
        pins = self._pins(opened, layout, sandbox)
        archive = SessionArchive(layout.archive)
        ran: list[int] = []
        lot = ParkingLot(
            state, repo=repo, layout=layout, decider=decider, definition=DEFINITION_HASH,
            save=durable.save, report=self.report,
        )  # fmt: skip
        lot.settle()
        index = state.index()
        for i, number in enumerate(sessions):
            if state.finished(number, index) or lot.passes(number):
                if isinstance(req.scope, SessionScope) and state.finished(number, index):
                    self.report(_done_already(index[number]))
                continue
            ps = plan.session(number)
            assert ps is not None
            rec = state.run.sessions.setdefault(number, SessionRecord())
            rec.paused = False
            self.session = number
            session = TddSession(
                SessionRun(
                    plan=plan,
                    session=ps,
                    rec=rec,
                    state=state,
                    options=options,
                    repo=repo,
                    layout=layout,
                    agents=agents,
                    decider=decider,
                    durable=durable,
                    report=self.report,
                    run_tests=run_tests,
                    suite_command=suite,
                    project_test_command=project_command,
                    is_last=i == len(sessions) - 1,
                    policy=policy,
                    activity=req.activity,
                    next_session=_next_title(plan, sessions, i),
                    reload_plan=lambda: load_valid(
                        req.plan,
                        cache=layout.plan_cache,
                        test_command=project_command,
                        tag=options.tag,
                    ),
                    pins=pins,
                    backoff=req.backoff,
                    restored_plan=restored.get(number),
                    entry_step=rec.step.value,
                    archive=archive,
                    reclaim=store.reclaim,
                    spent=spent,
                    sandbox=sandbox,
                    measure=measuring,
                    position=(i + 1, len(sessions)),
                )
            )
            ended = drive(
                TDD,
                session,
                rec,
                durable,
                save_before=lambda step: step in AGENT_STEPS and agents is not bridge,
            )
            plan = session.r.plan  # re-read if a plan file was put back
            if ended in {"done", "skipped"}:
                _finish(state, number, rec, archive)
                durable.save()
                ran.append(number)
                self._phase_done(state, number)
                continue
            if lot.goes_on(ended, session):
                continue
            unsaved = ["--yes"] if req.yes else []  # what the saved options do not carry
            raise lot.also(stopped(
                ended, state, number, session, req.scope, layout, unsaved=unsaved,
                save=durable.save,
            ), sessions, plan)  # fmt: skip
        durable.save()
        lot.end(sessions, plan)
        return RunResult(plan=plan, state=state, repo_root=repo.root, sessions=ran)

    def _phase_done(self, state: RunState, number: int) -> None:
        """`--pr`: the session finished its phase (every session of it is finished)."""
        hook = self.req.on_phase_done
        if hook is None or not state.run.options.pr:
            return
        phase = next((p for p in state.phases if any(e.number == number for e in p.sessions)),
                     None)  # fmt: skip
        if phase is not None and phase.status == "completed":
            hook(phase.number)

    def _pins(self, opened: Opened, layout: Layout, sandbox: Sandbox | None) -> Pins:
        """What the run pinned before any agent step
        (`executor.workflows.tdd.session.checks.pins`); a session's lane takes its parallel
        run's, pinned once for every lane."""
        from executor.testrun import DEFAULT_TEST_TIMEOUT
        from executor.workflows.tdd.session.checks.pins import pin_run

        state, repo = opened.state, opened.repo
        outline = opened.plan.outline()
        return pin_run(
            state, repo, layout, commands=[opened.command, *(o.red_command for o in outline)],
            suite=opened.suite, planned=lambda: planned(opened.plan), checkouts=checkouts(repo),
            report=self.report,
            test_timeout=state.run.options.test_timeout or DEFAULT_TEST_TIMEOUT, sandbox=sandbox,
        )  # fmt: skip


def _finish(state: RunState, number: int, rec: SessionRecord, archive: SessionArchive) -> None:
    """A finished session leaves the state's records: its entry keeps the seed facts, its
    whole record goes to the archive (written before the save that drops it)."""
    entry = state.entry(number)
    if entry is not None:
        project(entry, rec)
    archive.put(number, rec)
    del state.run.sessions[number]


def _next_title(plan: PlanView, sessions: Sequence[int], i: int) -> str | None:
    """ "Session N: Title" of the run's next session, None after the last one."""
    if i + 1 >= len(sessions):
        return None
    following = next((o for o in plan.outline() if o.number == sessions[i + 1]), None)
    return f"Session {following.number}: {following.title}" if following else None


def _pending(state: RunState) -> bool:
    return any(rec.bridge.pending is not None for rec in state.run.sessions.values())


def _terminal_prompter() -> Prompter | None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    from executor.prompts import TerminalPrompter

    return TerminalPrompter()


def _done_already(entry: SessionEntry) -> str:
    """One line for a session asked for by number that is finished: nothing runs."""
    how = (
        f"committed as {entry.commit_hash[:12]}" if entry.commit_hash
        else "adopted: ticked in the plan, its tests pass" if entry.adopted
        else entry.status
    )  # fmt: skip
    return (
        f"session {entry.number} is done ({how}); nothing ran. To run it again: "
        f"execute-session {entry.number} --redo (its commit is undone by a new one first)"
    )
