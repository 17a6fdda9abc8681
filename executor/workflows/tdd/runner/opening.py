"""Opening a plan run: the request, the checks before anything is touched (the plan's
owner, the repository, plan files an agent changed), the options, the plan and the
sessions in scope. A sequential run and a parallel one open a run the same way."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from executor import __version__
from executor.bridge.protocol import BridgeChannel
from executor.engine.agents import Agents
from executor.engine.layout import Layout
from executor.errors import (
    PathNotFoundError,
    UserError,
)
from executor.fsutil import quote
from executor.plan.cache import PlanView, load_valid, plan_files
from executor.project_config import ProjectConfig, load_project_config
from executor.runoptions import Overrides, resolve
from executor.sandbox import Sandbox
from executor.stamps import new_id
from executor.workflows.tdd.record.state import (
    SCHEMA_VERSION,
    RunRecord,
    RunState,
)
from executor.workflows.tdd.runner.scope import Scope, select
from executor.workflows.tdd.runner.stops import continue_words
from executor.workflows.tdd.runner.workspace import check_plan_owner, reconcile
from executor.workflows.tdd.session.brief import BRIEF_VERSION
from executor.workflows.tdd.session.checks.put_back import restore_plan
from executor.workflows.tdd.session.context import Progress, PutBack
from executor.workflows.tdd.step import AGENT_STEPS, Step
from executor.workflows.tdd.table import TDD

if TYPE_CHECKING:
    from executor.choices import Question
    from executor.prompts import Prompter
    from executor.strength.job import Job
    from executor.strength.runner import Measured
    from executor.testrun import TestRun
    from executor.vcs import GitRepo


DEFINITION_HASH = (
    "sha256:"
    + hashlib.sha256(
        "|".join([TDD.fingerprint(), BRIEF_VERSION, str(SCHEMA_VERSION)]).encode()
    ).hexdigest()[:16]
)


FINISHED = frozenset({Step.DONE, Step.SKIPPED})


@dataclass
class RunRequest:
    plan: Path
    scope: Scope
    repo: Path | None = None
    resume: bool = False
    yes: bool = False
    overrides: Overrides = field(default_factory=Overrides)
    #: The command line that continues this run after exit 42 (a host may run it, and
    #: `executor bridge respond --resume` does): written into every request's context.
    resume_argv: list[str] | None = None
    #: None: a terminal prompter when stdin and stdout are terminals.
    prompter: Prompter | None = None
    #: Multiplier for retry backoff sleeps (0 in tests).
    backoff: float = 1.0
    #: Seams for the engine's own unit tests: an agent and a test runner to use instead
    #: of the bridge/command and real test runs.
    agents: Agents | None = None
    run_tests: Callable[[str, Path], TestRun] | None = None
    #: The seam for the mutation step (`executor.workflows.tdd.session.checks.strength`): None runs
    #: `executor.strength.runner` for real, unless `run_tests` is a fake.
    measure: Callable[[Job], Measured] | None = None
    #: A live progress line for agent calls and test runs (None: plain report lines).
    activity: Callable[[str], Progress] | None = None
    #: Called before a person is asked at the terminal (`Decider.on_ask`).
    on_ask: Callable[[Question], None] | None = None
    #: Called with a phase's number when a session finished it, if the run asks for a
    #: pull request per phase (`--pr`).
    on_phase_done: Callable[[int], None] | None = None


def plan_folder(path: Path) -> Path:
    path = Path(path).absolute()
    if not path.exists():  # before its parent is taken for the repository
        raise PathNotFoundError(f"plan not found: {path}", path=path)
    return path if path.is_dir() else path.parent


def plan_digest(path: Path) -> str:
    """The plan's files as the run read them (seed 004's `plan_version`)."""
    digest = hashlib.sha256()
    for f in plan_files(path):
        digest.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()[:16]


def _repo(state: RunState | None, req: RunRequest, folder: Path) -> GitRepo:
    from executor.vcs import GitRepo

    if state is not None and not req.repo:
        return GitRepo(Path(state.run.repo))
    return GitRepo.discover(req.repo or folder)


def planned(plan: PlanView) -> list[str]:
    """Every file the plan's sessions list (what they make, or change)."""
    sessions = (plan.session(o.number) for o in plan.outline())
    return [f.path for s in sessions if s is not None for f in s.files]


def checkouts(repo: GitRepo) -> list[Path]:
    """The checkouts whose environment a run's tests use: the repository's, and for a
    linked worktree (a session's lane) the person's checkout too."""
    common = repo.common_dir()
    main = common.parent if common.name == ".git" else None
    here = repo.root.resolve()
    return [here] + ([main] if main is not None and main != here else [])


@dataclass
class Opened:
    """A run loaded (or started) and checked, under its lock: what it runs."""

    state: RunState
    plan: PlanView
    repo: GitRepo
    sessions: list[int]
    #: plan files put back before parsing, by session (an agent changed them)
    restored: dict[int, PutBack]
    #: the project's test command (the suite), if it has one
    command: str | None
    #: the project's settings (`[tool.executor]` or `.executor.toml`)
    config: ProjectConfig

    @property
    def suite(self) -> str | None:
        """What runs the whole suite: the project's command, else `pytest` when the plan
        tests with it (None: each session's own command)."""
        return self.command or (
            "pytest" if any("pytest" in (o.red_command or "") for o in self.plan.outline())
            else None
        )  # fmt: skip


def open_run(
    req: RunRequest, state: RunState | None, layout: Layout, report: Callable[[str], None]
) -> Opened:
    """Check the plan's owner and the repository, put back plan files an agent changed,
    resolve the options, read the plan, start the state if there is none, and pick the
    sessions in scope (a sequential run and a parallel one open a run the same way)."""
    named = Path(req.plan).absolute()
    check_plan_owner(state, named, layout)
    repo = _repo(state, req, layout.folder)
    repo.ensure_not_busy()
    restored = _restore_plan(state, repo, layout, named)
    config = load_project_config(repo.root)
    options = resolve(req.overrides, state.run.options if state else None, config)
    if state is not None and state.run.lane is not None:
        options = options.replace(
            parallel=None
        )  # a session's lane runs in its worktree, one session
    command = options.test_command or config.test_command
    plan = load_valid(req.plan, cache=layout.plan_cache, test_command=command, tag=options.tag)
    if state is None:
        record = RunRecord(
            tool_version=__version__,
            definition_hash=DEFINITION_HASH,
            run_id=new_id(),
            repo=str(repo.root),
            plan=str(named),
        )
        state = RunState(project_name=plan.name, plan_version="", run=record)
    state.run.plan = state.run.plan or str(named)
    state.run.options = options
    state.run.scope = continue_words(req.scope)  # what `status` offers to continue
    reconcile(plan, state, DEFINITION_HASH, plan_digest(req.plan))
    sessions = select(plan, req.scope)
    _clear_stale_requests(state, layout, report)
    return Opened(state, plan, repo, sessions, restored, command, config)


def refuse_lanes(state: RunState, sessions: Sequence[int], layout: Layout) -> None:
    """A run in this checkout leaves a session that runs in a worktree of its own alone."""
    laned = [
        n for n in sessions if (lane := state.run.lanes.get(n)) and lane.status != "integrated"
    ]
    if laned:
        n = laned[0]
        raise UserError(
            f"session {n} runs in its own worktree ({state.run.lanes[n].worktree}), started "
            f"by a parallel run: continue it with --parallel (executor status --plan "
            f"{quote(layout.folder)} shows where each session runs). Nothing was touched."
        )


def _restore_plan(
    state: RunState | None, repo: GitRepo, layout: Layout, named: Path
) -> dict[int, PutBack]:
    """Before the plan is read: an agent answering over the bridge may have changed
    it during its step. Put it back first, after a backup (so a broken plan cannot stop
    the run that reports it); the agent step then fails as tampering."""
    restored: dict[int, PutBack] = {}
    for number, rec in (state.run.sessions if state else {}).items():
        if rec.step in AGENT_STEPS and rec.bridge.pending is not None:
            put = restore_plan(repo, layout, rec, named)
            if put.paths:
                restored[number] = put
    return restored


def _clear_stale_requests(state: RunState, layout: Layout, report: Callable[[str], None]) -> None:
    """A request left pending by a session that has finished never blocks (9.2)."""
    for number, rec in state.run.sessions.items():
        if rec.bridge.pending is not None and rec.step in FINISHED:
            rid = rec.bridge.pending.request_id
            rec.bridge.pending = None
            BridgeChannel(layout.folder).drop_request(rid)
            report(f"[session {number}] cleared request {rid}: the session is finished")


def sandbox_of(repo: GitRepo, layout: Layout, plan: Path, extra: Sequence[Path] = ()) -> Sandbox:
    """What a test run may not write (`executor.sandbox`): git's folders (a linked
    worktree's and the repository's), the executor's own files and the plan's, and
    `extra` (a session's lane: the main run's files and plan)."""
    git_dirs = [repo.git_dir]
    common = repo.git_dir / "commondir"
    if common.is_file():
        git_dirs.append((repo.git_dir / common.read_text("utf-8").strip()).resolve())
    own = [layout.state, layout.backup, layout.archive, layout.plan_cache, layout.pinned]
    return Sandbox.of([*git_dirs, *own, *plan_files(plan), *extra])
