"""A plan run: load the plan and state, check the workspace, pick the sessions in
scope, and drive each through `SessionRunner` under the single-writer lock."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from executor import __version__
from executor.engine.agents import AgentCall, BridgeAgents, CommandAgent
from executor.engine.brief import BRIEF_VERSION
from executor.engine.machine import STEPS, transition
from executor.engine.session import Ctx, SessionRunner
from executor.engine.state import SCHEMA_VERSION, PhaseState, RunState, SessionState, now
from executor.engine.store import StateStore
from executor.errors import (
    BlockedError,
    DefinitionDriftError,
    DirtyWorktreeError,
    NothingToResumeError,
    PlanInvalidError,
    StaleWorkspaceError,
    UserError,
    VerificationFailedError,
)
from executor.plan.models import Plan, Session

if TYPE_CHECKING:
    from executor.prompts import Decision, Option, Prompter
    from executor.testrun import TestRun
    from executor.vcs import GitRepo

DEFINITION_HASH = (
    "sha256:"
    + hashlib.sha256("|".join([*STEPS, BRIEF_VERSION, str(SCHEMA_VERSION)]).encode()).hexdigest()[
        :16
    ]
)

ACTIVE = {"in_progress", "red_phase", "green_phase", "refactor_phase", "awaiting_approval", "error"}
FIXED_FILES = (
    ".agent-state.json",
    ".agent-state.json.bak",
    ".agent-state.lock",
    ".agent-request.json",
    ".agent-response.json",
    ".agent-briefs",
)
CHECKPOINT_SETS = {
    "all": frozenset(
        {"before_start", "after_red", "after_green", "after_refactor", "session_complete"}
    ),
    "session": frozenset({"session_complete"}),
    "none": frozenset(),
}


@dataclass
class RunOptions:
    plan: Path
    scope: str  # phase | session | plan | resume
    number: int | None = None
    phase: int | None = None
    repo: Path | None = None
    resume: bool = False
    yes: bool = False
    checkpoints: str = "all"
    agent_command: str | None = None
    test_command: str | None = None
    max_retries: int = 2
    command_line: str = ""
    #: None: a terminal prompter when stdin and stdout are terminals.
    prompter: Prompter | None = None
    backoff: float = 1.0


@dataclass
class RunResult:
    plan: Plan
    state: RunState
    repo_root: Path
    sessions: list[int] = field(default_factory=list)


def load_valid_plan(path: Path, test_command: str | None) -> Plan:
    from executor.plan import lint, load_plan

    plan = load_plan(path)
    errors = [d for d in lint(plan, project_test_command=test_command) if d.severity == "error"]
    if errors:
        raise PlanInvalidError(
            f"the plan has {len(errors)} error(s); fix them (or run `executor plan validate "
            f"{path}`):\n" + "\n".join(str(d) for d in errors),
            path=errors[0].path,
            line=errors[0].line,
        )
    return plan


def new_state(plan: Plan) -> RunState:
    return RunState(
        tool_version=__version__,
        definition_hash=DEFINITION_HASH,
        run_id=str(uuid.uuid4()),
        project_name=plan.name,
        plan_path=str(plan.folder),
        phases=[PhaseState(number=p.number, name=p.name) for p in plan.phases],
    )


def reconcile(plan: Plan, state: RunState) -> None:
    """Bring new sessions into state; refuse plan edits under a session in progress (P5)."""
    for phase in plan.phases:
        ph = state.phase(phase.number)
        if ph is None:
            ph = PhaseState(number=phase.number, name=phase.name)
            state.phases.append(ph)
        for s in phase.sessions:
            ss = state.session(s.number)
            if ss is None:
                ph.sessions.append(
                    SessionState(
                        number=s.number,
                        title=s.title,
                        phase=s.phase,
                        depends_on=list(s.dependencies),
                    )
                )
                continue
            if ss.status in ACTIVE and ss.source_hash and ss.source_hash != s.source_hash:
                raise DefinitionDriftError(
                    f"session {s.number}'s section ({s.source_file}:{s.line_start}) changed "
                    f"since the session started; its steps so far were verified against the "
                    f"old text. Restore the section, or abort the session "
                    f"(`executor resume-session {s.number} --plan {plan.folder}` then choose "
                    f"abort) to start it again from the new text."
                )
            if ss.status == "not_started":
                ss.title, ss.depends_on = s.title, list(s.dependencies)
    active = [s for s in state.sessions() if s.status in ACTIVE]
    if active and state.definition_hash != DEFINITION_HASH:
        raise DefinitionDriftError(
            f"session {active[0].number} was started by executor {state.tool_version} whose "
            f"workflow definition differs from this version's ({state.definition_hash} vs "
            f"{DEFINITION_HASH}); finish it with that version or abort it."
        )
    state.definition_hash, state.tool_version = DEFINITION_HASH, __version__


def topo_order(sessions: Sequence[Session]) -> list[Session]:
    by_num = {s.number: s for s in sessions}
    done: set[int] = set()
    out: list[Session] = []

    def visit(s: Session) -> None:
        if s.number in done:
            return
        done.add(s.number)
        for d in sorted(s.dependencies):
            if d in by_num:
                visit(by_num[d])
        out.append(s)

    for s in sorted(sessions, key=lambda s: s.number):
        visit(s)
    return out


def select(plan: Plan, opts: RunOptions) -> list[Session]:
    if opts.scope == "plan":
        return topo_order(plan.sessions())
    if opts.scope == "phase":
        phase = plan.phase(opts.number or 0)
        if phase is None:
            raise UserError(
                f"phase {opts.number} is not in the plan (phases: "
                f"{', '.join(str(p.number) for p in plan.phases)})"
            )
        return topo_order(phase.sessions)
    session = plan.session(opts.number or 0)
    if session is None:
        raise UserError(
            f"session {opts.number} is not in the plan (sessions: "
            f"{', '.join(str(s.number) for s in plan.sessions())})"
        )
    if opts.phase is not None and session.phase != opts.phase:
        raise UserError(
            f"session {session.number} belongs to phase {session.phase}, not phase {opts.phase}"
        )
    return [session]


def exclude_executor_files(repo_root: Path, folder: Path) -> None:
    """Hide the executor's files from git via .git/info/exclude (local, never committed)."""
    try:
        rel = folder.resolve().relative_to(repo_root.resolve()).as_posix()
    except ValueError:
        return
    prefix = "" if rel == "." else rel + "/"
    out = subprocess.run(
        ["git", "rev-parse", "--git-path", "info/exclude"],
        cwd=repo_root,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        return
    path = Path(out.stdout.strip())
    path = path if path.is_absolute() else repo_root / path
    lines = [f"/{prefix}.agent-*", f"/{prefix}..agent-*"]
    existing = path.read_text("utf-8") if path.exists() else ""
    missing = [ln for ln in lines if ln not in existing.splitlines()]
    if missing:
        from executor.fsutil import atomic_write_text

        path.parent.mkdir(parents=True, exist_ok=True)
        sep = "" if not existing or existing.endswith("\n") else "\n"
        atomic_write_text(
            path,
            existing + sep + "# plan-executor state and bridge files\n" + "\n".join(missing) + "\n",
            fault="exclude",
        )


class Runner:
    def __init__(self, opts: RunOptions, *, report: Callable[[str], None]) -> None:
        self.opts = opts
        self.report = report

    def execute(self) -> RunResult:
        from executor.vcs import GitRepo

        opts = self.opts
        plan = load_valid_plan(opts.plan, opts.test_command)
        repo = GitRepo.discover(opts.repo or Path.cwd())
        repo.ensure_not_busy()
        store = StateStore(plan.folder)
        with store.locked():
            state = store.load()
            if state is None:
                if opts.resume:
                    raise NothingToResumeError(
                        f"--resume: no state in {store.path}; nothing is pending. Run the "
                        f"command without --resume to start."
                    )
                state = new_state(plan)
            elif opts.resume and state.pending is None:
                raise NothingToResumeError(
                    f"--resume: no request is pending in {store.path} (state: {state.status}). "
                    f"Run the command without --resume, or `executor status --plan {plan.folder}`."
                )
            reconcile(plan, state)
            sessions = select(plan, opts)
            self._check_pending_scope(state, sessions, plan)
            self._check_workspace(state, repo)
            exclude_executor_files(repo.root, plan.folder)
            return self._run(plan, state, store, repo, sessions)

    def _check_pending_scope(self, state: RunState, sessions: list[Session], plan: Plan) -> None:
        if state.pending is None:
            return
        num = state.pending.key.split(".", 1)[0].lstrip("s")
        if num.isdigit() and int(num) not in {s.number for s in sessions}:
            raise UserError(
                f"request {state.pending.request_id} is pending for session {num} "
                f"({plan.folder / '.agent-request.json'}); answer it and continue that session "
                f"with: executor resume-session {num} --plan {plan.folder} --resume"
            )

    def _check_workspace(self, state: RunState, repo: GitRepo) -> None:
        """P12/P19: completed commits must still be in history; HEAD must not move mid-session."""
        # Sessions commit one after another, so checking the latest commit covers the rest
        # with one git call per run, however many sessions are done.
        done = [s for s in state.sessions() if s.status == "completed" and s.commit_hash]
        latest = max(done, key=lambda s: s.completed_at or "", default=None)
        for ss in [latest] if latest else []:
            assert ss.commit_hash is not None
            if not repo.is_ancestor(ss.commit_hash):
                raise StaleWorkspaceError(
                    f"session {ss.number}'s commit {ss.commit_hash[:12]} is no longer in the "
                    f"history of HEAD (reset, rebase or branch switch?). Nothing was changed. "
                    f"Restore that history, or delete {state.plan_path}/.agent-state.json to "
                    f"start the plan run afresh."
                )
        active = [s for s in state.sessions() if s.status in ACTIVE]
        if active and state.head:
            head, branch = repo.head(), repo.branch()
            ss = active[0]
            ours = (
                ss.step == "commit"
                and repo.find_commit_by_trailers(
                    {"Agent-Run": state.run_id, "Agent-Step": f"session-{ss.number}"},
                    since=state.head,
                )
                == head
            )  # our commit, made just before a crash (P20)
            if not ours and (head != state.head or (state.branch and branch != state.branch)):
                raise StaleWorkspaceError(
                    f"session {active[0].number} is in progress from HEAD {state.head[:12]} on "
                    f"{state.branch}, but HEAD is now {head[:12]} on {branch}. Someone committed, "
                    f"reset or switched branches mid-session; nothing was overwritten. Go back "
                    f"(`git switch {state.branch}` / `git reset {state.head[:12]}`) and re-run."
                )

    def _run(
        self, plan: Plan, state: RunState, store: StateStore, repo: GitRepo, sessions: list[Session]
    ) -> RunResult:
        opts = self.opts
        bridge = BridgeAgents(
            plan.folder, save=lambda: save(), state=lambda: state, resume_hint=self._resume_hint()
        )

        def save() -> None:
            store.save(state)
            bridge.flush()

        agents: Any = (
            CommandAgent(opts.agent_command, repo_root=repo.root, folder=plan.folder)
            if opts.agent_command
            else bridge
        )
        ignore = [plan.folder / name for name in FIXED_FILES]
        suite = opts.test_command or (
            "pytest" if any("pytest" in (s.test_command("red") or "") for s in sessions) else None
        )

        def run_tests(command: str) -> TestRun:
            from executor.testrun import run_tests as _run_tests

            return _run_tests(command, cwd=repo.root)

        prompter = opts.prompter if opts.prompter is not None else _terminal_prompter(opts)
        decide = _Decider(opts, bridge, prompter, self.report, plan)
        ran: list[int] = []
        if state.status in {"not_started", "paused", "error"}:
            state.status = "in_progress"
        for i, ps in enumerate(sessions):
            ss = state.session(ps.number)
            assert ss is not None  # reconcile added every plan session
            if ss.status in {"completed", "skipped"} and ss.step == "done":
                continue
            missing = [
                d
                for d in ps.dependencies
                if (dep := state.session(d)) is None or dep.status != "completed"
            ]
            if missing and ss.status in {"not_started", "blocked"}:
                ss.status = transition(ss.status, "block")  # type: ignore[assignment]
                ss.blocked_reason = (
                    "waiting for session(s) " + ", ".join(map(str, missing)) + " to complete"
                )
                save()
                raise BlockedError(
                    f"session {ps.number} ({ps.title}) is blocked: {ss.blocked_reason}. Run "
                    f"them first, e.g. `executor execute-plan --plan {plan.folder}`."
                )
            if ss.status in {"not_started", "blocked"}:
                self._start(ps, ss, state, repo, ignore)
                save()
            state.current_phase, state.current_session = ps.phase, ps.number
            ctx = Ctx(
                plan=plan,
                state=state,
                repo=repo,
                agents=agents,
                decide=decide,
                report=self.report,
                save=save,
                run_tests=run_tests,
                suite_command=suite,
                project_test_command=opts.test_command,
                max_retries=opts.max_retries,
                stops=CHECKPOINT_SETS[opts.checkpoints],
                ignore=ignore,
                is_last=i == len(sessions) - 1,
                backoff=opts.backoff,
            )
            SessionRunner(ctx, ps, ss).run()
            ran.append(ps.number)
        all_done = all(s.status in {"completed", "skipped"} for s in state.sessions())
        state.status = "completed" if all_done else "in_progress"
        state.head, state.branch = repo.head(), repo.branch()
        save()
        return RunResult(plan=plan, state=state, repo_root=repo.root, sessions=ran)

    def _start(
        self, ps: Session, ss: SessionState, state: RunState, repo: GitRepo, ignore: list[Path]
    ) -> None:
        dirty = repo.dirty_files(ignore=ignore)
        if dirty:
            shown = "\n  ".join(dirty[:20]) + ("\n  ..." if len(dirty) > 20 else "")
            raise DirtyWorktreeError(
                f"session {ps.number} must start from a clean worktree so its commit holds only "
                f"its own changes; commit or stash these first (nothing was touched):\n  {shown}",
                files=dirty,
            )
        ss.status = transition(ss.status, "start")  # type: ignore[assignment]
        ss.step, ss.checkpoint = "before_start", None
        ss.base_commit = repo.head()
        ss.source_hash = ps.source_hash
        ss.started_at = now()
        ss.blocked_reason = None
        state.head, state.branch = ss.base_commit, repo.branch()

    def _resume_hint(self) -> str:
        line = self.opts.command_line or "executor ..."
        return line if " --resume" in line else line + " --resume"


def _terminal_prompter(opts: RunOptions) -> Prompter | None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    from executor.prompts import TerminalPrompter

    return TerminalPrompter()


class _Decider:
    """Routes a decision: --yes, a terminal, or the bridge (a `human` request)."""

    def __init__(
        self,
        opts: RunOptions,
        bridge: BridgeAgents,
        prompter: Prompter | None,
        report: Callable[[str], None],
        plan: Plan,
    ) -> None:
        self.opts, self.bridge, self.prompter, self.report, self.plan = (
            opts,
            bridge,
            prompter,
            report,
            plan,
        )

    def __call__(
        self,
        key: str,
        question: str,
        options: Sequence[Option],
        detail: str,
        *,
        checkpoint: str | None,
        session: SessionState,
    ) -> Decision:
        from executor.prompts import Decision, parse_decision

        if checkpoint and self.opts.yes:
            self.report(f"[session {session.number}] {checkpoint}: approved (--yes)")
            self.bridge.supersede(key)
            return Decision(action="approve")
        if self.prompter is not None:
            try:
                decision = self.prompter.ask(question, options, detail=detail)
            except EOFError:
                self.prompter = None
            else:
                self.bridge.supersede(key)
                return decision
        if self.opts.yes:
            raise VerificationFailedError(
                f"{question}\n{detail[-2000:]}\nNo human is available (--yes without a "
                f"terminal), so the run stops here. State is saved; fix the cause and re-run, "
                f"or run on a terminal / through a host to decide."
            )
        context: dict[str, Any] = {
            "question": question,
            "options": [{"value": o.value, "label": o.label} for o in options],
            "detail": detail[-4000:],
            "checkpoint": checkpoint or "escalation",
            "plan": str(self.plan.folder),
            "phase": session.phase,
            "session": session.number,
            "tdd_step": "other",
        }
        values = ", ".join(o.value for o in options)
        prompt = (
            f"{question}\n\n{detail[-4000:]}\n\nAnswer with one of: {values} (or JSON "
            f'{{"decision": "request_changes", "feedback": "..."}}).'
        )
        outcome = self.bridge.call(
            AgentCall(
                key=key,
                agent_name="human",
                kind="human",
                prompt=prompt,
                context=context,
                phase=session.phase,
                phase_name="checkpoint",
            )
        )
        if not outcome.ok:
            self.bridge.consumed(outcome)
            return Decision(action="pause")
        decision = parse_decision(outcome.text, options, path=self.bridge.channel.response_file)
        self.bridge.consumed(outcome)
        return decision
