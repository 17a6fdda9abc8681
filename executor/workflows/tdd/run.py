"""A plan run: load the state and the plan, check the workspace, pick the sessions in
scope, and drive each through the TDD workflow under the single-writer lock."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from executor import __version__
from executor.bridge.models import new_id
from executor.bridge.protocol import BridgeChannel
from executor.datamodel import dump, validate
from executor.engine.agents import BRIDGE_AGENT, Agents, BridgeAgents, Durable
from executor.engine.decisions import Decider
from executor.engine.driver import drive
from executor.engine.layout import Layout
from executor.errors import (
    BlockedError,
    BudgetSpent,
    Interrupted,
    NothingToResumeError,
    PathNotFoundError,
    Paused,
    UserCancelled,
    VerificationFailedError,
)
from executor.plan.cache import PlanView, load_valid
from executor.project_config import ProjectConfig, load_project_config, map_test_command
from executor.retry import RetryPolicy
from executor.store import StateStore
from executor.words import plural
from executor.workflows.tdd import budget
from executor.workflows.tdd.brief import BRIEF_VERSION
from executor.workflows.tdd.context import Progress, SessionRun
from executor.workflows.tdd.scope import PhaseScope, PlanScope, Scope, select
from executor.workflows.tdd.state import SCHEMA_VERSION, RunOptions, RunState, SessionRecord
from executor.workflows.tdd.step import AGENT_STEPS, Step
from executor.workflows.tdd.table import TDD, TddSession
from executor.workflows.tdd.tamper import restore_plan
from executor.workflows.tdd.workspace import check_plan_owner, check_workspace, reconcile

if TYPE_CHECKING:
    from executor.prompts import Prompter
    from executor.testrun import TestRun
    from executor.vcs import GitRepo

DEFINITION_HASH = (
    "sha256:"
    + hashlib.sha256(
        "|".join([TDD.fingerprint(), BRIEF_VERSION, str(SCHEMA_VERSION)]).encode()
    ).hexdigest()[:16]
)

CHECKPOINT_SETS = {
    "all": frozenset(
        {"before_start", "after_red", "after_green", "after_refactor", "session_complete"}
    ),
    "session": frozenset({"session_complete"}),
    "none": frozenset(),
}
FINISHED = frozenset({Step.DONE, Step.SKIPPED})


@dataclass
class Overrides:
    """Run options given on this command line (None: not given, use the saved value)."""

    agent_command: str | None = None
    agent: str | None = None
    agent_timeout: int | None = None
    checkpoints: str | None = None
    max_retries: int | None = None
    test_command: str | None = None
    budget_usd: float | None = None
    budget_tokens: int | None = None
    budget_minutes: float | None = None

    def apply(self, saved: RunOptions) -> RunOptions:
        """The saved options with this command line's on top. Naming an agent (command,
        preset, or `bridge`: no agent process) replaces the saved one of either kind."""
        given = {k: v for k, v in vars(self).items() if v is not None}
        if "agent_command" in given or "agent" in given:
            given.setdefault("agent_command", None)
            given.setdefault("agent", None)
        return validate(RunOptions, {**dump(saved), **given})


@dataclass
class RunRequest:
    plan: Path
    scope: Scope
    repo: Path | None = None
    resume: bool = False
    yes: bool = False
    overrides: Overrides = field(default_factory=Overrides)
    #: None: a terminal prompter when stdin and stdout are terminals.
    prompter: Prompter | None = None
    #: Multiplier for retry backoff sleeps (0 in tests).
    backoff: float = 1.0
    #: Seams for the engine's own unit tests: an agent and a test runner to use instead
    #: of the bridge/command and real test runs.
    agents: Agents | None = None
    run_tests: Callable[[str, Path], TestRun] | None = None
    #: A live progress line for agent calls and test runs (None: plain report lines).
    activity: Callable[[str], Progress] | None = None


@dataclass
class RunResult:
    plan: PlanView
    state: RunState
    repo_root: Path
    sessions: list[int] = field(default_factory=list)


def plan_folder(path: Path) -> Path:
    path = Path(path).absolute()
    if not path.exists():  # before its parent is taken for the repository
        raise PathNotFoundError(f"plan not found: {path}", path=path)
    return path if path.is_dir() else path.parent


def state_store(layout: Layout) -> StateStore[RunState]:
    return StateStore(layout.state, model=RunState, version=SCHEMA_VERSION, lock=layout.lock)


def _repo(state: RunState | None, req: RunRequest, folder: Path) -> GitRepo:
    from executor.vcs import GitRepo

    if state is not None and not req.repo:
        return GitRepo(Path(state.repo))
    return GitRepo.discover(req.repo or folder)


class Runner:
    def __init__(self, req: RunRequest, *, report: Callable[[str], None]) -> None:
        self.req = req
        self.report = report

    def execute(self) -> RunResult:
        req = self.req
        layout = Layout(plan_folder(req.plan))
        store = state_store(layout)
        if not layout.lock.exists():  # first run here: hide our files before creating any
            from executor.vcs import GitRepo

            GitRepo.discover(req.repo or layout.folder).exclude_run_folder(layout.folder)
        with store.locked():
            try:
                return self._execute(req, layout, store)
            except KeyboardInterrupt:  # the CLI says what is saved and how to continue it
                kept = layout.state if layout.state.exists() else None
                raise Interrupted(state=kept) from None

    def _execute(self, req: RunRequest, layout: Layout, store: StateStore[RunState]) -> RunResult:
        """Under the lock: load (or start) the state, check the workspace, run."""
        state = store.load()
        if req.resume and (state is None or not _pending(state)):
            raise NothingToResumeError(
                f"--resume: no request is pending in {layout.state}"
                + (f" (state: {plural(len(state.sessions), 'session')} recorded)" if state else "")
                + "; nothing to apply. Run the command without --resume."
            )
        named = Path(req.plan).absolute()
        check_plan_owner(state, named, layout)
        options = req.overrides.apply(state.options if state else RunOptions())
        repo = _repo(state, req, layout.folder)
        repo.ensure_not_busy()
        restored = self._restore_plan(state, repo, layout, named)
        config = load_project_config(repo.root)
        project_command = options.test_command or config.test_command
        plan = load_valid(req.plan, cache=layout.plan_cache, test_command=project_command)
        if state is None:
            state = RunState(
                tool_version=__version__,
                definition_hash=DEFINITION_HASH,
                run_id=new_id(),
                repo=str(repo.root),
            )
        state.plan = state.plan or str(named)
        state.options = options
        reconcile(plan, state, DEFINITION_HASH)
        sessions = select(plan, req.scope)
        self._clear_stale_requests(state, layout)
        check_workspace(state, repo, sessions, layout)
        state.tool_version = __version__
        return self._run(plan, state, store, repo, layout, sessions, restored, config)

    def _restore_plan(
        self, state: RunState | None, repo: GitRepo, layout: Layout, named: Path
    ) -> dict[int, list[str]]:
        """Before the plan is read: an agent answering over the bridge may have changed
        it during its step. Put it back first (so a broken plan cannot stop the run
        that reports it); the agent step then fails as tampering."""
        restored: dict[int, list[str]] = {}
        for number, rec in (state.sessions if state else {}).items():
            if rec.step in AGENT_STEPS and rec.bridge.pending is not None:
                touched = restore_plan(repo, layout, rec, named)
                if touched:
                    restored[number] = touched
        return restored

    def _clear_stale_requests(self, state: RunState, layout: Layout) -> None:
        """A request left pending by a session that has finished never blocks (9.2)."""
        for number, rec in state.sessions.items():
            if rec.bridge.pending is not None and rec.step in FINISHED:
                rid = rec.bridge.pending.request_id
                rec.bridge.pending = None
                BridgeChannel(layout.folder).drop_request(rid)
                self.report(f"[session {number}] cleared request {rid}: the session is finished")

    def _run(
        self,
        plan: PlanView,
        state: RunState,
        store: StateStore[RunState],
        repo: GitRepo,
        layout: Layout,
        sessions: Sequence[int],
        restored: dict[int, list[str]],
        config: ProjectConfig,
    ) -> RunResult:
        req, options = self.req, state.options
        project_command = options.test_command or config.test_command
        durable = Durable(lambda: store.save(state))
        policy = RetryPolicy()
        channel = BridgeChannel(layout.folder, policy=policy)
        channel.sweep()
        bridge = BridgeAgents(channel, durable)
        agents: Agents = req.agents or bridge
        if req.agents is None and (
            options.agent_command or options.agent not in (None, BRIDGE_AGENT)
        ):
            from executor.engine.process import AgentProcess, ProcessAgents

            how = AgentProcess.from_options(options.agent_command, options.agent)
            assert how is not None
            from executor.engine.process import OwnFiles

            own = OwnFiles(layout.state, layout.backup, layout.plan_cache, store.reclaim)
            agents = ProcessAgents(
                how,
                repo=repo.root,
                channel=channel,
                durable=durable,
                exclude=repo.exclude,
                own_files=own,
            )
        prompter = req.prompter if req.prompter is not None else _terminal_prompter()
        decider = Decider(yes=req.yes, prompter=prompter, bridge=bridge, folder=layout.folder)
        suite = project_command or (
            "pytest" if any("pytest" in (s.red_command or "") for s in plan.outline()) else None
        )

        def run_tests(
            command: str, coverage: bool, on_line: Callable[[str], None] | None
        ) -> TestRun:
            command = map_test_command(command, config)  # [tool.executor] test_command_map
            if req.run_tests is not None:
                return req.run_tests(command, repo.root)
            from executor.testrun import run_tests as _run_tests

            return _run_tests(command, cwd=repo.root, coverage=coverage, on_line=on_line)

        #: what this command line had that the saved options do not carry
        unsaved = ["--yes"] if req.yes else []
        ran: list[int] = []
        for i, number in enumerate(sessions):
            ps = plan.session(number)
            assert ps is not None
            rec = state.sessions.setdefault(number, SessionRecord())
            if rec.step in FINISHED:
                continue
            rec.paused = False
            session = TddSession(
                SessionRun(
                    plan=plan,
                    session=ps,
                    rec=rec,
                    state=state,
                    repo=repo,
                    layout=layout,
                    agents=agents,
                    decider=decider,
                    durable=durable,
                    report=self.report,
                    run_tests=run_tests,
                    suite_command=suite,
                    project_test_command=project_command,
                    max_retries=options.max_retries,
                    stops=CHECKPOINT_SETS[options.checkpoints],
                    is_last=i == len(sessions) - 1,
                    policy=policy,
                    activity=req.activity,
                    next_session=_next_title(plan, sessions, i),
                    reload_plan=lambda: load_valid(
                        req.plan, cache=layout.plan_cache, test_command=project_command
                    ),
                    backoff=req.backoff,
                    restored_plan=restored.get(number, []),
                    entry_step=rec.step.value,
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
                ran.append(number)
                continue
            go_on = continue_words(req.scope, number)
            if ended == "blocked":
                raise BlockedError(
                    f"session {number} ({ps.title}) is blocked: {rec.blocked_reason}. Run "
                    f"those first (execute-plan runs every session in dependency order)."
                )
            if ended == "rolled_back":
                backup, base = session.rolled_back or ("", None)
                del state.sessions[number]
                durable.save()
                raise UserCancelled(
                    f"Session {number} was rolled back: the worktree was reset to "
                    f"{(base or 'its start')[:12]}"
                    + (
                        f"; everything it held is saved in {backup}. To get those files "
                        f"back: git checkout {backup} -- ."
                        if backup
                        else "."
                    ),
                    session=number,
                    plan=layout.folder,
                    backup_ref=backup or None,
                    resume_flags=unsaved,
                    continue_with=go_on,
                )
            if ended == "budget":
                over = budget.exceeded(state.options, budget.spent(state))
                raise BudgetSpent(
                    f"Budget spent before session {number}'s next agent call: {rec.problem}. "
                    f"State saved; nothing else was touched.",
                    session=number,
                    plan=layout.folder,
                    spent=rec.problem,
                    resume_flags=[*unsaved, *((over.flag, over.larger) if over else ())],
                    continue_with=go_on,
                )
            if ended == "pause":
                raise Paused(
                    f"Paused at session {number} ({rec.step.value}); state saved in "
                    f"{layout.state}.",
                    session=number,
                    plan=layout.folder,
                    resume_flags=unsaved,
                    continue_with=go_on,
                )
            raise VerificationFailedError(
                f"{rec.problem}\n{rec.last_failure[-2000:]}\nNo human is available (--yes "
                f"without a terminal), so the run stops here. State is saved. Fix the cause and "
                f"run the same command again: it checks again (files you change meanwhile "
                f"become part of the session, and the run says which); or run on a "
                f"terminal / through a host to decide (retry the agent, roll back, skip)."
            )
        durable.save()
        return RunResult(plan=plan, state=state, repo_root=repo.root, sessions=ran)


def continue_words(scope: Scope, number: int) -> list[str]:
    """The subcommand that continues a stopped run over the same scope: a plan or phase
    run goes on past this session; a session run finishes this session."""
    if isinstance(scope, PlanScope):
        return ["execute-plan"]
    if isinstance(scope, PhaseScope):
        return ["execute-phase", str(scope.number)]
    return ["resume-session", str(number)]


def _next_title(plan: PlanView, sessions: Sequence[int], i: int) -> str | None:
    """ "Session N: Title" of the run's next session, None after the last one."""
    if i + 1 >= len(sessions):
        return None
    following = next((o for o in plan.outline() if o.number == sessions[i + 1]), None)
    return f"Session {following.number}: {following.title}" if following else None


def _pending(state: RunState) -> bool:
    return any(rec.bridge.pending is not None for rec in state.sessions.values())


def _terminal_prompter() -> Prompter | None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    from executor.prompts import TerminalPrompter

    return TerminalPrompter()
