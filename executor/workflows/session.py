"""The work handlers of the TDD session workflow (`executor.workflows.tdd` is its table;
the human gates are `executor.workflows.gates`).

Each handler does one step's work on the session's record and returns an `Outcome`;
it never picks the next step and never saves (the driver does both). Test results are
measured by running the tests here; nothing an agent reports is trusted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from executor import faults, fsutil
from executor.engine.agents import AgentCall, Waiting
from executor.engine.machine import Outcome
from executor.engine.state import AgentCall as AgentCallLog
from executor.engine.state import now
from executor.errors import DirtyWorktreeError
from executor.workflows import checks
from executor.workflows.brief import render_brief
from executor.workflows.commit import commit_message, commit_subject, trailers
from executor.workflows.context import SessionPart, SessionRun, agent_for
from executor.workflows.gates import Gates
from executor.workflows.tdd import Step

if TYPE_CHECKING:
    from executor.testrun import TestRun

O = Outcome  # noqa: E741 - the handlers read better with one letter


class TddSteps(SessionPart):
    """The handlers, keyed by step (`handlers()`), for one session."""

    def __init__(self, run: SessionRun) -> None:
        super().__init__(run)
        self.gates = Gates(run)
        #: (backup ref, base commit) after a rollback, for the runner's message
        self.rolled_back: tuple[str, str | None] | None = None

    def handlers(self) -> dict[Step, Callable[[], Outcome]]:
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
        head = self.r.repo.head()
        self.rec.blocked_reason = None
        self.rec.base_commit = self.rec.head = head
        self.rec.branch = self.r.repo.branch()
        self.rec.source_hash = self.s.source_hash
        self.rec.started_at = now()
        return O.OK

    # -- checkpoints --------------------------------------------------------------------
    def agent_step(self, role: str) -> Outcome:
        if role in {"red", "refactor"} and self.s.step(role) is None:  # type: ignore[arg-type]
            self._say(f"{role.upper()}: the plan has no {role.upper()} step; skipped")
            return O.SKIP
        while True:
            call = self._agent_call(role)
            self._say(f"{role.upper()}: asking {call.agent_name} (attempt {call.attempt})")
            result = self.r.agents.call(call, self.rec.bridge)
            if isinstance(result, Waiting):
                return O.WAIT
            step = Step(f"{role}_agent")
            message = (result.text if result.ok else result.error_message or "")[:2000]
            self.rec.agent_calls.append(
                AgentCallLog(
                    step=step,
                    attempt=self.rec.attempt,
                    status=result.status,
                    seconds=round(result.seconds, 3),
                    message=message,
                )
            )
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

    def _agent_call(self, role: str) -> AgentCall:
        deps: dict[int, list[str]] = {}
        for d in self.s.dependencies:
            dep = self.r.state.sessions.get(d)
            deps[d] = dep.files_modified if dep else []
        brief = render_brief(
            session=self.s,
            state=self.rec,
            role=role,
            test_command=self._cmd(role),
            suite_command=self.r.suite_command,
            repo_root=self.r.repo.root,
            dependency_files=deps,
        )
        phase = self.r.plan.phase(self.s.phase)
        phase_name = phase.name if phase else f"phase {self.s.phase}"
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
        )

    # -- verification ---------------------------------------------------------------------
    def _run(self, command: str | None) -> TestRun | None:
        if not command:
            return None
        self._say(f"running: {command}")
        run = self.r.run_tests(command)
        self._say(f"  {run.summary()}")
        return run

    def red_verify(self) -> Outcome:
        run = self._run(self._cmd("red"))
        why = checks.red_problem(run)
        if why is None and run is not None:
            changed = self.r.repo.changed_since(
                self.rec.base_commit or "HEAD", ignore=self._ignore()
            )
            self.rec.red = checks.red_facts(run, changed, self.r.repo.root)
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
        suite_run = self._run(suite)
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
        if not verdict.problems:
            passed = [c.id for c in verdict.cases if c.outcome == "passed"]
            if role == "green":
                self.rec.green_passed = passed
            self.rec.tests_written = len(verdict.cases)
            self.rec.tests_passing = len(passed)
            measured = session_run or suite_run
            assert measured is not None
            self.rec.last_summary = f"{role.upper()} verified: {measured.summary()}"
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
            f"{self.r.max_retries} automatic retries: {failure}"
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
            message = commit_message(self.r.plan, self.s, self.rec, self._cmd("green"))
            sha = self.r.repo.commit_all(message, trailers=marks, ignore=self._ignore())
            faults.hit("git.committed")
        self.rec.commit_hash = self.rec.head = sha
        self.rec.branch = self.r.repo.branch()
        self.rec.completed_at = now()
        self._say(f"committed {sha[:12]}: {commit_subject(self.r.plan, self.s)}")
        return O.OK

    # -- when something failed --------------------------------------------------------------
    def rollback(self) -> Outcome:
        base = self.rec.base_commit
        backup = self.r.repo.reset_hard(base, keep=self._ignore()) if base else ""
        self.rolled_back = (backup, base)
        return O.SKIP if self.rec.after_rollback == "skip" else O.OK
