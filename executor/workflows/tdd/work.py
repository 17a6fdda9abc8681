"""The work handlers of the TDD session workflow (`executor.workflows.tdd.step` is its table;
the human gates are `executor.workflows.tdd.gates`).

Each handler does one step's work on the session's record and returns an `Outcome`;
it never picks the next step and never saves (the driver does both). Test results are
measured by running the tests here; nothing an agent reports is trusted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from executor import faults, fsutil
from executor.engine.agents import (
    DEFAULT_AGENT_TIMEOUT,
    MESSAGE_CHARS,
    AgentCall,
    AgentResult,
    BridgeAgents,
    Waiting,
)
from executor.engine.machine import Outcome
from executor.errors import DirtyWorktreeError, UserError
from executor.words import plural
from executor.workflows.tdd import budget, checks, guards
from executor.workflows.tdd.brief import digest, render_brief, usage_line
from executor.workflows.tdd.commit import commit_message, commit_subject, trailers
from executor.workflows.tdd.context import LiveCount, SessionPart, SessionRun, agent_for
from executor.workflows.tdd.gates import Gates
from executor.workflows.tdd.state import AgentCall as AgentCallLog
from executor.workflows.tdd.state import now
from executor.workflows.tdd.step import Step
from executor.workflows.tdd.tamper import after_agent_step, tampering

if TYPE_CHECKING:
    from executor.testrun import TestRun

O = Outcome  # noqa: E741 - the handlers read better with one letter
_WORK = (
    Step.RED_AGENT,
    Step.RED_VERIFY,
    Step.GREEN_AGENT,
    Step.GREEN_VERIFY,
    Step.REFACTOR_AGENT,
    Step.REFACTOR_VERIFY,
    Step.EVIDENCE,
)


class TddSteps(SessionPart):
    """The handlers, keyed by step (`handlers()`), for one session."""

    def __init__(self, run: SessionRun) -> None:
        super().__init__(run)
        self.gates = Gates(run)
        #: (backup ref, base commit) after a rollback, for the runner's message
        self.rolled_back: tuple[str, str | None] | None = None

    def handlers(self) -> dict[Step, Callable[[], Outcome]]:
        """Every step's handler; a work step's also records the tree it leaves (the
        baseline for what a person or an agent changes next)."""
        table = self._handlers()
        for step in (*_WORK, Step.NOT_STARTED, Step.BLOCKED):
            table[step] = self._snapshotting(table[step])
        return table

    def _snapshotting(self, handler: Callable[[], Outcome]) -> Callable[[], Outcome]:
        def run() -> Outcome:
            outcome = handler()
            if outcome not in {O.WAIT, O.BLOCKED}:
                self.take_snapshot()
            return outcome

        return run

    def _handlers(self) -> dict[Step, Callable[[], Outcome]]:
        return {
            Step.NOT_STARTED: self.start,
            Step.BLOCKED: self.start,
            Step.BEFORE_START: self.gates.before_start,
            Step.RED_AGENT: lambda: self.agent_step("red"),
            Step.RED_VERIFY: self.red_verify,
            Step.RED_ESCALATED: self.gates.escalated,
            Step.AFTER_RED: self.gates.after_red,
            Step.GREEN_AGENT: lambda: self.agent_step("green"),
            Step.GREEN_VERIFY: lambda: self.pass_verify("green"),
            Step.GREEN_ESCALATED: self.gates.escalated,
            Step.AFTER_GREEN: self.gates.after_green,
            Step.REFACTOR_AGENT: lambda: self.agent_step("refactor"),
            Step.REFACTOR_VERIFY: lambda: self.pass_verify("refactor"),
            Step.REFACTOR_ESCALATED: self.gates.escalated,
            Step.AFTER_REFACTOR: self.gates.after_refactor,
            Step.EVIDENCE: self.evidence,
            Step.EVIDENCE_ESCALATED: self.gates.escalated,
            Step.COMMIT: self.commit,
            Step.SESSION_COMPLETE: self.gates.session_complete,
            Step.ROLLBACK: self.rollback,
        }

    # -- helpers ------------------------------------------------------------------------
    def start(self) -> Outcome:
        """Dependencies complete and a clean worktree; record where the session starts."""
        missing = [
            d
            for d in self.s.dependencies
            if (dep := self.r.state.sessions.get(d)) is None
            or dep.step not in {Step.SESSION_COMPLETE, Step.DONE, Step.SKIPPED}
        ]
        if missing:
            self.rec.blocked_reason = (
                "waiting for session(s) " + ", ".join(map(str, missing)) + " to complete"
            )
            return O.BLOCKED
        dirty = self.r.repo.dirty_files(ignore=self._ignore())
        if dirty:
            shown = "\n  ".join(dirty[:20]) + ("\n  ..." if len(dirty) > 20 else "")
            raise DirtyWorktreeError(
                f"session {self.s.number} must start from a clean worktree so its commit holds "
                f"only its own changes; commit or stash these first (nothing was touched):"
                f"\n  {shown}",
                files=dirty,
            )
        if not (self._cmd("green") or self._cmd("red") or self.r.suite_command):
            raise UserError(
                f"session {self.s.number} has no test command: its plan section names none "
                f"and the project has none, so nothing could verify it. Give one with "
                f"--test-command, or test_command in [tool.executor] (pyproject.toml) or "
                f".executor.toml (docs/plan-format.md). Nothing was touched."
            )
        self.r.repo.ensure_identity()
        head = self.r.repo.head()
        self.rec.blocked_reason = None
        if self.s.claimed_done:
            doubt = self._prove_claim()
            if not doubt:
                self.rec.adopted = True
                self.rec.commit_hash = self.rec.head = head
                self.rec.started_at = self.rec.completed_at = now()
                self._say("ticked as done in the plan, and its tests pass here: adopted")
                return O.ADOPT
            self._say(f"ticked as done in the plan, but {doubt}: running it")
        self.rec.base_commit = self.rec.head = head
        self.rec.ignored = self.r.repo.ignored_entries(ignore=self._ignore())
        self.rec.branch = self.r.repo.branch()
        self.rec.source_hash = self.s.source_hash
        self.rec.started_at = now()
        return O.OK

    # -- checkpoints --------------------------------------------------------------------
    def agent_step(self, role: str) -> Outcome:
        if role == "red" and self.s.step("red") is None:
            self._say("RED: the plan has no RED step; skipped")
            return O.SKIP
        if role == "refactor" and self.s.step("refactor") is None:
            if not (self.rec.feedback or self.rec.last_failure):  # nothing asked of it
                self._say("REFACTOR: the plan has none and nothing was asked; checking again")
                return O.OK
            self._say("REFACTOR: the plan has none; the agent does what was asked")
        while True:
            over = budget.exceeded(self.r.state.options, budget.spent(self.r.state))
            if over:
                self.rec.problem = over.text
                return O.BUDGET
            call = self._agent_call(role)
            asking = f"{role.upper()}: asking {call.agent_name} (attempt {call.attempt})"
            act = self.r.activity(f"[session {self.s.number}] {asking}") if (
                self.r.activity is not None and not isinstance(self.r.agents, BridgeAgents)
            ) else None  # fmt: skip
            if act is None:
                self._say(asking)
            result = self.r.agents.call(call, self.rec.bridge)
            if act is not None:
                act.close("waiting for the bridge" if isinstance(result, Waiting) else
                          getattr(result, "status", ""))  # fmt: skip
            if isinstance(result, Waiting):
                return O.WAIT
            self._log_call(role, result)
            tampered = after_agent_step(self, role)
            if result.tampered:
                tampered = (
                    f"the agent changed the executor's own files ({', '.join(result.tampered)}"
                    f"); they were put back, and this step failed as tampering. " + tampered
                ).strip()
            if tampered:
                self.rec.problem = f"Session {self.s.number} {role.upper()}: {tampered}"
                self.rec.last_failure = self.rec.problem
                self.rec.errors.append(tampered)
                self.rec.feedback.append(tampered + " Do not do that again.")
                return O.FAILED
            if result.ok:
                self.rec.feedback = []
                self.rec.agent_failures = 0
                self._say(f"{role.upper()}: agent answered: {result.text[:200]}")
                return O.OK
            self.rec.agent_failures += 1
            msg = f"agent {call.agent_name} {result.status}: {result.error_message or ''}"
            self.rec.errors.append(msg)
            self._say(msg)
            failures = self.rec.agent_failures
            if self.r.policy.should_retry(result.status, result.retry_type, failures):
                time.sleep(self.r.policy.delay(failures) * self.r.backoff)
                continue
            self.rec.agent_failures = 0
            self.rec.problem = f"The agent failed for the {role.upper()} step: {msg}"
            self.rec.last_failure = msg
            return O.FAILED

    def _prove_claim(self) -> str:
        """Why a session the plan ticks as done is not (""): its files must exist and
        its tests, run here at HEAD, must pass."""
        missing = [f.path for f in self.s.files if not (self.r.repo.root / f.path).exists()]
        if missing:
            return f"{guards.describe(missing)} do(es) not exist"
        command = self._cmd("green") or self._cmd("red")
        run = self._run(command)
        if run is None:
            return "no test command is known to prove it"
        if run.verdict != "green":
            return f"its tests do not pass ({run.summary()})"
        return ""

    def _log_call(self, role: str, result: AgentResult) -> None:
        message = (result.text if result.ok else result.error_message or "")[:MESSAGE_CHARS]
        self.rec.agent_calls.append(
            AgentCallLog(
                step=Step(f"{role}_agent"),
                attempt=self.rec.attempt,
                status=result.status,
                seconds=round(result.seconds, 3),
                message=message,
                cost_usd=result.cost_usd,
                input_tokens=result.input_tokens,
                output_tokens=result.output_tokens,
                turns=result.turns,
                log=str(result.log) if result.log else None,
            )
        )
        usage = usage_line(result)
        if usage:
            self._say(f"{role.upper()}: {usage}")

    def _agent_call(self, role: str) -> AgentCall:
        brief = render_brief(
            session=self.s,
            state=self.rec,
            role=role,
            test_command=self._cmd(role),
            suite_command=self.r.suite_command,
            repo_root=self.r.repo.root,
            digest=digest(self.r.plan, self.r.state, self.s.dependencies),
        )
        phase_name = self.r.plan.phase_names().get(self.s.phase, f"phase {self.s.phase}")
        key = f"s{self.s.number}.{role}.a{self.rec.attempt}.f{self.rec.agent_failures}"
        briefs = fsutil.ensure_private_dir(self.r.layout.briefs, inside=self.r.layout.folder)
        prompt_file = briefs / f"{key}.md"
        fsutil.atomic_write_text(prompt_file, brief, fault="brief")
        return AgentCall(
            key=key,
            agent_name=agent_for(phase_name),
            prompt=(
                f"Session {self.s.number} ({self.s.title}), {role.upper()} step: read the "
                f"brief at {prompt_file} and do only what it says."
            ),
            brief=prompt_file,
            phase=self.s.phase,
            phase_name=phase_name,
            session=self.s.number,
            tdd_step=role,
            attempt=self.rec.attempt,
            context={"plan": str(self.r.plan.folder), "repo": str(self.r.repo.root)},
            timeout=self.r.state.options.agent_timeout or DEFAULT_AGENT_TIMEOUT,
            test_command=self._cmd(role),
            log=fsutil.ensure_private_dir(self.r.layout.logs, inside=self.r.layout.folder)
            / f"{key}.log",
        )

    # -- verification ---------------------------------------------------------------------
    def _run(self, command: str | None, *, coverage: bool = False) -> TestRun | None:
        if not command:
            return None
        label = f"[session {self.s.number}] running: {command}"
        if self.r.activity is None:
            self.r.report(label)
            run = self.r.run_tests(command, coverage, None)
            self._say(f"  {run.summary()}")
            return run
        act = self.r.activity(label)
        run = self.r.run_tests(command, coverage, LiveCount(act))
        act.close(run.summary())
        return run

    def red_verify(self) -> Outcome:
        run = self._run(self._cmd("red"))
        why = checks.red_problem(run)
        if why is None and run is not None:
            changed = self.r.repo.changed_since(
                self.rec.base_commit or "HEAD", ignore=self._ignore()
            )
            self.rec.red = checks.red_facts(run, changed, self.r.repo.root)
            self.rec.red.infra = guards.infra_fingerprint(self.r.repo.root, changed)
            self.rec.tests_written = run.collected or None
            self.rec.tests_passing = run.passed
            self.rec.last_summary = f"RED verified: {run.summary()}"
            self.rec.last_failure = ""
            return O.OK
        assert why is not None
        self.rec.last_failure = why + ("\n" + run.output_tail if run else "")
        self.rec.problem = f"Session {self.s.number} RED check failed: {why}"
        self.rec.feedback.append(f"RED check failed: {why}. Write tests that exist and fail.")
        return O.FAILED

    def pass_verify(self, role: str) -> Outcome:
        command = self._cmd(role)
        suite = self.r.suite_command if self.r.suite_command != command else None
        suite_run = self._run(suite, coverage=True)
        session_run = None
        if suite_run is None or not checks.collects(suite_run, self.rec.red):
            if suite_run is not None:
                self._say("  the suite does not collect this session's tests; running them too")
            session_run = self._run(command)
        verdict = checks.pass_verdict(
            role,
            session_run=session_run,
            suite_run=suite_run,
            red=self.rec.red,
            green_passed=self.rec.green_passed,
            root=self.r.repo.root,
        )
        # the run of the whole suite: the session's own when its command is the suite
        whole = suite_run or (session_run if command == self.r.suite_command else None)
        verdict.problems += tampering(self, role, whole)
        if not verdict.problems:
            passed = [c.id for c in verdict.cases if c.outcome == "passed"]
            if role == "green":
                self.rec.green_passed = passed
            self.rec.tests_written = len(verdict.cases)
            self.rec.tests_passing = len(passed)
            self.rec.last_summary = checks.verified_summary(
                role, verdict.cases, session_run, suite_run, command
            )
            run = suite_run or session_run
            self.rec.coverage = run.coverage if run is not None else None
            self.rec.last_failure = ""
            self.rec.retries = 0
            return O.OK
        failure = "; ".join(verdict.problems)
        self.rec.last_failure = failure + ("\n" + verdict.output if verdict.output else "")
        self.rec.errors.append(f"{role}: {failure}")
        if self.rec.retries < self.r.max_retries:
            self.rec.retries += 1
            self.rec.attempt += 1
            self._say(
                f"{role.upper()} not verified ({failure}); automatic retry "
                f"{self.rec.retries}/{self.r.max_retries} with the failure output"
            )
            return O.RETRY
        self.rec.problem = (
            f"Session {self.s.number} {role.upper()} could not be verified after "
            f"{plural(self.r.max_retries, 'automatic retry', 'automatic retries')}: {failure}"
        )
        return O.FAILED

    def evidence(self) -> Outcome:
        base = self.rec.base_commit or "HEAD"
        changed = set(self.r.repo.changed_since(base, ignore=self._ignore()))
        problems = checks.evidence_problems(
            [f.path for f in self.s.files], changed, self.r.repo.root
        )
        if problems:
            failure = "evidence check failed: " + "; ".join(problems)
            self.rec.last_failure = failure
            self.rec.errors.append(failure)
            self.rec.feedback.append(failure)
            self.rec.problem = f"Session {self.s.number} {failure}"
            return O.FAILED
        self.rec.files_modified = sorted(changed)
        return O.OK

    def commit(self) -> Outcome:
        marks = trailers(self.r.plan, self.s, self.r.state.run_id)
        base = self.rec.base_commit or "HEAD"
        sha = self.r.repo.find_commit_by_trailers(marks, since=base)
        if sha:
            self._say(f"adopting commit {sha[:12]} made before an interruption")
        else:
            ticked = self._tick()
            message = commit_message(self.r.plan, self.s, self.rec, self._cmd("green"))
            sha = self.r.repo.commit_all(message, trailers=marks, ignore=self._ignore())
            faults.hit("git.committed")
            if ticked:
                self._say(f"ticked the session's boxes in {guards.describe(ticked)}")
        self.rec.commit_hash = self.rec.head = sha
        self.rec.branch = self.r.repo.branch()
        self.rec.completed_at = now()
        self._say(f"committed {sha[:12]}: {commit_subject(self.r.plan, self.s)}")
        return O.OK

    def _tick(self) -> list[str]:
        """Mark this session done in the plan, in the format's own way (boxes, a Task
        Master status), in the session's own commit, so the plan stays a true ledger."""
        from executor.plan.ticks import apply_edits, tick_session

        return [str(p.relative_to(self.r.repo.root)) for p in apply_edits(tick_session(self.s))
                if p.is_relative_to(self.r.repo.root)]  # fmt: skip

    # -- when something failed --------------------------------------------------------------
    def rollback(self) -> Outcome:
        """Back to the session's base commit, after a backup of everything. Refused when
        it would drop a commit that is pushed, a merge, or not this session's own."""
        base = self.rec.base_commit
        if base is None:
            return O.SKIP if self.rec.after_rollback == "skip" else O.OK
        refused = self.gates.rollback_refusal()  # checked when asked; git may have moved
        if refused is not None:
            raise refused
        backup = self.r.repo.reset_hard(base, keep=self._ignore())
        self.rolled_back = (backup, base)
        return O.SKIP if self.rec.after_rollback == "skip" else O.OK
