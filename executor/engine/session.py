"""One session, step by step: before_start → RED → after_red → GREEN → after_green →
REFACTOR → after_refactor → evidence → commit → session_complete.

Every step ends with a durable save of `.agent-state.json`, so a process killed at any
moment re-enters the same step. Test results are measured by running the tests here;
nothing an agent reports is trusted.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from executor import faults
from executor.engine.agents import AgentCall, Outcome
from executor.engine.brief import render_brief
from executor.engine.machine import transition
from executor.engine.state import RunState, SessionState, now
from executor.errors import Paused, UserCancelled, VerificationFailedError
from executor.plan.models import Plan, Session

if TYPE_CHECKING:
    from executor.prompts import Decision, Option
    from executor.testrun import TestRun
    from executor.vcs import GitRepo

MAX_AGENT_FAILURES = 3


class Agents(Protocol):
    def call(self, call: AgentCall) -> Outcome: ...
    def consumed(self, outcome: Outcome) -> None: ...


class Decider(Protocol):
    """Asks a human (or answers for one); `checkpoint=False` marks an escalation."""

    def __call__(
        self,
        key: str,
        question: str,
        options: Sequence[Option],
        detail: str,
        *,
        checkpoint: str | None,
        session: SessionState,
    ) -> Decision: ...


@dataclass
class Ctx:
    """Everything one session needs; built by the runner."""

    plan: Plan
    state: RunState
    repo: GitRepo
    agents: Agents
    decide: Decider
    report: Callable[[str], None]
    save: Callable[[], None]
    run_tests: Callable[[str], TestRun]
    suite_command: str | None
    project_test_command: str | None
    max_retries: int
    stops: frozenset[str]  # checkpoints at which to stop
    ignore: Sequence[Path]
    is_last: bool
    #: Multiplier for the retry backoff (0 in tests).
    backoff: float = 1.0


def _opt(value: str, label: str) -> Option:
    from executor.prompts import Option

    return Option(value=value, label=label)


def _sha(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def _module_prefix(path: str) -> str:
    p = path[:-3] if path.endswith(".py") else path
    return p.replace("/", ".")


def agent_for(phase_name: str) -> str:
    name = phase_name.lower()
    for word, agent in (
        ("frontend", "frontend-builder"),
        ("mobile", "mobile-builder"),
        ("integration", "integration-tester"),
        ("e2e", "integration-tester"),
    ):
        if word in name:
            return agent
    return "backend-builder"


class SessionRunner:
    def __init__(self, ctx: Ctx, session: Session, ss: SessionState) -> None:
        self.c = ctx
        self.ps = session
        self.ss = ss

    # -- helpers ------------------------------------------------------------------
    def _event(self, event: str) -> None:
        self.ss.status = transition(self.ss.status, event)  # type: ignore[assignment]

    def _goto(self, step: str) -> None:
        self.ss.step = step  # type: ignore[assignment]
        self.c.save()

    def _cmd(self, role: str) -> str | None:
        return self.ps.test_command(role, self.c.project_test_command)  # type: ignore[arg-type]

    def _say(self, msg: str) -> None:
        self.c.report(f"[session {self.ps.number}] {msg}")

    # -- the loop -----------------------------------------------------------------
    def run(self) -> None:
        steps: dict[str, Callable[[], None]] = {
            "before_start": self.before_start,
            "red_agent": lambda: self.agent_step("red"),
            "red_verify": self.red_verify,
            "after_red": self.after_red,
            "green_agent": lambda: self.agent_step("green"),
            "green_verify": lambda: self.pass_verify("green"),
            "after_green": self.after_green,
            "refactor_agent": lambda: self.agent_step("refactor"),
            "refactor_verify": lambda: self.pass_verify("refactor"),
            "after_refactor": self.after_refactor,
            "evidence": self.evidence,
            "commit": self.commit,
            "session_complete": self.session_complete,
        }
        while self.ss.step != "done":
            steps[self.ss.step]()

    # -- checkpoints ----------------------------------------------------------------
    def checkpoint(
        self, name: str, question: str, extra: Sequence[Option], detail: str
    ) -> Decision:
        """Stop for a human if this checkpoint is on; otherwise approve."""
        from executor.prompts import Decision

        self.ss.checkpoint = name  # type: ignore[assignment]
        if name not in self.c.stops:
            return Decision(action="approve")
        if self.ss.status not in {"awaiting_approval", "completed"}:
            self._event("ask")
        options = [
            _opt("approve", "Approve"),
            *extra,
            _opt("pause", "Pause (save and stop)"),
            _opt("abort", "Abort session (roll back)"),
        ]
        while True:
            key = f"s{self.ps.number}.{name}.q{self.ss.asks}"
            decision = self.c.decide(
                key, question, options, detail, checkpoint=name, session=self.ss
            )
            self.ss.asks += 1
            if decision.action == "pause":
                self.pause()
            if decision.action == "abort":
                self.abort("aborted at checkpoint " + name)
            if decision.action.startswith("show_"):
                detail = self.show(decision.action)
                continue
            return decision

    def show(self, what: str) -> str:
        base = self.ss.base_commit or "HEAD"
        if what == "show_tests":
            files = self.ss.red_test_files
            parts = []
            for f in files[:5]:
                try:
                    parts.append(f"--- {f}\n" + (self.c.repo.root / f).read_text("utf-8")[:4000])
                except OSError as e:
                    parts.append(f"--- {f}: {e}")
            text = "\n".join(parts) or "(no test files recorded)"
        else:
            text = self.c.repo.diff_text(base, ignore=self.c.ignore) or "(no changes)"
        self.c.report(text)
        return text

    def pause(self) -> None:
        self.c.state.status = "paused"
        self.c.save()
        raise Paused(
            f"Paused at session {self.ps.number} ({self.ss.step}); state saved in "
            f"{self.c.plan.folder / '.agent-state.json'}. Resume with: executor resume-session "
            f"{self.ps.number} --plan {self.c.plan.folder}"
        )

    def abort(self, why: str) -> None:
        backup = ""
        base = self.ss.base_commit
        if base:
            backup = self.c.repo.reset_hard(base, keep=self.c.ignore)
        self._reset_session()
        self.c.save()
        raise UserCancelled(
            f"Session {self.ps.number} {why}: the worktree was reset to "
            f"{(base or 'its start')[:12]}"
            + (f"; everything it held is saved in {backup}" if backup else "")
            + f". Start again with: executor resume-session {self.ps.number} --plan "
            f"{self.c.plan.folder}"
        )

    def _reset_session(self) -> None:
        keep = {"number", "title", "phase", "depends_on"}
        fresh = SessionState(
            number=self.ss.number,
            title=self.ss.title,
            phase=self.ss.phase,
            depends_on=self.ss.depends_on,
        )
        for field in SessionState.model_fields:
            if field not in keep:
                setattr(self.ss, field, getattr(fresh, field))
        self.c.state.pending = None

    # -- steps ------------------------------------------------------------------------
    def before_start(self) -> None:
        lines = [f"Session {self.ps.number}: {self.ps.title}", "", "Objectives:"]
        lines += [f"- {o.text}" for o in self.ps.objectives] or ["- (none listed)"]
        lines += ["", "Files:"] + ([f"- {f.path}" for f in self.ps.files] or ["- (none listed)"])
        lines += ["", "Test commands the executor will run:"]
        lines += [
            f"- {r.upper()}: {self._cmd(r) or '(none)'}" for r in ("red", "green", "refactor")
        ]
        if self.c.suite_command:
            lines.append(f"- whole suite: {self.c.suite_command}")
        d = self.checkpoint(
            "before_start",
            f"Start session {self.ps.number}: {self.ps.title}?",
            [_opt("request_changes", "Request changes (feedback for the agent)")],
            "\n".join(lines),
        )
        if d.feedback:
            self.ss.feedback.append(d.feedback)
        self._event("red")
        self.ss.attempt = 1
        self._goto("red_agent")

    def agent_step(self, role: str) -> None:
        if self.ss.status != f"{role}_phase":
            self._event(role)
        while True:
            call = self._agent_call(role, self.ss.agent_failures)
            self._say(f"{role.upper()}: asking {call.agent_name} (attempt {self.ss.attempt})")
            outcome = self.c.agents.call(call)
            self.c.agents.consumed(outcome)
            if outcome.ok:
                self.ss.feedback = []
                self.ss.agent_failures = 0
                self._say(f"{role.upper()}: agent answered: {outcome.text[:200]}")
                self._goto(f"{role}_verify")
                return
            self.ss.agent_failures += 1
            msg = f"agent {call.agent_name} {outcome.status}: {outcome.error_message or ''}"
            self.ss.errors.append(msg)
            self.c.save()
            self._say(msg)
            retryable = outcome.status in {"error", "timeout"} and outcome.error_type not in {
                "PARSE_ERROR",
                "VALIDATION_ERROR",
                "AGENT_NOT_FOUND",
            }
            if retryable and self.ss.agent_failures < MAX_AGENT_FAILURES:
                time.sleep(min(8.0, 0.5 * 2**self.ss.agent_failures) * self.c.backoff)
                continue
            self.ss.agent_failures = 0
            self.escalate(
                f"The agent failed for the {role.upper()} step: {msg}", retry_step=f"{role}_agent"
            )
            return

    def _agent_call(self, role: str, failures: int) -> AgentCall:
        deps: dict[int, list[str]] = {}
        for d in self.ps.dependencies:
            dep = self.c.state.session(d)
            deps[d] = dep.files_modified if dep else []
        brief = render_brief(
            session=self.ps,
            state=self.ss,
            role=role,
            test_command=self._cmd(role),
            suite_command=self.c.suite_command,
            repo_root=self.c.repo.root,
            dependency_files=deps,
        )
        phase = self.c.plan.phase(self.ps.phase)
        phase_name = phase.name if phase else f"phase {self.ps.phase}"
        briefs = self.c.plan.folder / ".agent-briefs"
        briefs.mkdir(exist_ok=True)
        key = f"s{self.ps.number}.{role}.a{self.ss.attempt}.f{failures}"
        prompt_file = briefs / f"{key}.md"
        from executor.fsutil import atomic_write_text

        atomic_write_text(prompt_file, brief, fault="brief")
        context: dict[str, Any] = {
            "plan": str(self.c.plan.folder),
            "phase": self.ps.phase,
            "session": self.ps.number,
            "tdd_step": role,
            "prompt_file": str(prompt_file),
            "repo": str(self.c.repo.root),
            "attempt": self.ss.attempt,
        }
        prompt = (
            f"Session {self.ps.number} ({self.ps.title}), {role.upper()} step: read the "
            f"brief at {prompt_file} and do only what it says."
        )
        return AgentCall(
            key=key,
            agent_name=agent_for(phase_name),
            prompt=prompt,
            context=context,
            phase=self.ps.phase,
            phase_name=phase_name,
        )

    def _run(self, command: str | None) -> TestRun | None:
        if not command:
            return None
        self._say(f"running: {command}")
        run = self.c.run_tests(command)
        self._say(f"  {run.summary()}")
        return run

    def red_verify(self) -> None:
        cmd = self._cmd("red")
        run = self._run(cmd)
        if run is not None and run.verdict == "red":
            changed = self.c.repo.changed_since(self.ss.base_commit or "HEAD", ignore=self.c.ignore)
            tests = [f for f in changed if _is_test_file(f)]
            self.ss.red_test_files = tests
            self.ss.red_file_hashes = {f: _sha(self.c.repo.root / f) for f in tests}
            # real tests only: a collection failure is reported as a case without "::"
            self.ss.red_test_ids = [
                c.id for c in run.cases if c.outcome in {"failed", "error"} and "::" in c.id
            ]
            self.ss.tests_written = run.collected or None
            self.ss.tests_passing = run.passed
            self.ss.last_summary = f"RED verified: {run.summary()}"
            self.ss.last_failure = ""
            self._goto("after_red")
            return
        why = (
            "no test command is known for this session"
            if run is None
            else f"the tests did not fail, so this is not RED: {run.summary()}"
            if run.verdict == "green"
            else f"no tests ran (empty run), so this is not RED: {run.summary()}"
        )
        self.ss.last_failure = why + ("\n" + run.output_tail if run else "")
        self.escalate(
            f"Session {self.ps.number} RED check failed: {why}",
            retry_step="red_agent",
            feedback=f"RED check failed: {why}. Write tests that exist and fail.",
        )

    def after_red(self) -> None:
        d = self.checkpoint(
            "after_red",
            "Tests fail as expected. Implement (GREEN)?",
            [
                _opt("request_changes", "Request changes to the tests"),
                _opt("show_tests", "Show tests"),
            ],
            self.ss.last_summary,
        )
        if d.action == "request_changes":
            self.ss.feedback.append(d.feedback)
            self.ss.attempt += 1
            self._event("red")
            self._goto("red_agent")
            return
        self._event("green")
        self.ss.attempt = 1
        self.ss.retry_count = 0
        self._goto("green_agent")

    def pass_verify(self, role: str) -> None:
        problems: list[str] = []
        output = ""
        run = self._run(self._cmd(role))
        if run is None:
            problems.append("no test command is known for this session")
        elif run.verdict != "green":
            problems.append(f"session tests are not green: {run.summary()}")
            output = run.output_tail
        else:
            problems += self._tamper(run, role)
        if not problems and self.c.suite_command and self.c.suite_command != self._cmd(role):
            suite = self._run(self.c.suite_command)
            if suite is not None and suite.verdict == "red":
                problems.append(f"the whole suite regressed: {suite.summary()}")
                output = suite.output_tail
        if not problems and run is not None:
            ids = [c.id for c in run.cases if c.outcome == "passed"]
            if role == "green":
                self.ss.green_test_ids = ids
            self.ss.tests_written = run.collected
            self.ss.tests_passing = run.passed
            self.ss.last_summary = f"{role.upper()} verified: {run.summary()}"
            self.ss.last_failure = ""
            self.ss.retry_count = 0
            self._goto(f"after_{role}")
            return
        failure = "; ".join(problems)
        self.ss.last_failure = failure + ("\n" + output if output else "")
        self.ss.errors.append(f"{role}: {failure}")
        if self.ss.retry_count < self.c.max_retries:
            self.ss.retry_count += 1
            self.ss.attempt += 1
            self._say(
                f"{role.upper()} not verified ({failure}); automatic retry "
                f"{self.ss.retry_count}/{self.c.max_retries} with the failure output"
            )
            self._goto(f"{role}_agent")
            return
        self.escalate(
            f"Session {self.ps.number} {role.upper()} could not be verified after "
            f"{self.c.max_retries} automatic retries: {failure}",
            retry_step=f"{role}_agent",
        )

    def _tamper(self, run: TestRun, role: str) -> list[str]:
        problems = []
        root = self.c.repo.root
        for f in self.ss.red_test_files:
            if not (root / f).exists():
                problems.append(f"test file {f} written in RED was deleted")
            elif role == "green" and self.ss.red_file_hashes.get(f) not in (None, _sha(root / f)):
                problems.append(f"test file {f} written in RED was modified during GREEN")
        passed = {c.id for c in run.cases if c.outcome == "passed"}
        must = set(self.ss.red_test_ids) | (
            set(self.ss.green_test_ids) if role == "refactor" else set()
        )
        missing = sorted(must - passed)
        if missing:
            problems.append(
                f"{len(missing)} test(s) seen earlier no longer pass or exist: "
                + ", ".join(missing[:5])
            )
        prefixes = tuple(_module_prefix(f) for f in self.ss.red_test_files)
        dodged = [
            c.id
            for c in run.cases
            if c.outcome in {"skipped", "xfailed", "xpassed"}
            and (not prefixes or c.id.startswith(prefixes))
        ]
        if dodged:
            problems.append(
                f"{len(dodged)} session test(s) are skipped or xfail: " + ", ".join(dodged[:5])
            )
        return problems

    def after_green(self) -> None:
        d = self.checkpoint(
            "after_green",
            "All tests pass. Refactor?",
            [
                _opt("request_changes", "Request changes to the implementation"),
                _opt("skip_refactor", "Skip refactor"),
                _opt("show_diff", "Show diff"),
            ],
            self.ss.last_summary,
        )
        if d.action == "request_changes":
            self.ss.feedback.append(d.feedback)
            self.ss.attempt += 1
            self._event("green")
            self._goto("green_agent")
            return
        self.ss.attempt = 1
        if d.action == "skip_refactor":
            self._goto("evidence")
            return
        self._event("refactor")
        self._goto("refactor_agent")

    def after_refactor(self) -> None:
        d = self.checkpoint(
            "after_refactor",
            "Refactored, tests still pass. Commit?",
            [_opt("request_changes", "Request changes"), _opt("show_diff", "Show diff")],
            self.ss.last_summary,
        )
        if d.action == "request_changes":
            self.ss.feedback.append(d.feedback)
            self.ss.attempt += 1
            self._event("refactor")
            self._goto("refactor_agent")
            return
        self._goto("evidence")

    def evidence(self) -> None:
        base = self.ss.base_commit or "HEAD"
        changed = set(self.c.repo.changed_since(base, ignore=self.c.ignore))
        problems = []
        for f in self.ps.files:
            path = f.path.rstrip("/")
            if not (self.c.repo.root / path).exists():
                problems.append(f"{path} (listed in the plan) does not exist")
            elif not any(c == path or c.startswith(path + "/") for c in changed):
                problems.append(f"{path} (listed in the plan) is not changed by this session")
        if problems:
            failure = "evidence check failed: " + "; ".join(problems)
            self.ss.last_failure = failure
            self.ss.errors.append(failure)
            self.escalate(
                f"Session {self.ps.number} {failure}", retry_step="green_agent", feedback=failure
            )
            return
        self.ss.files_modified = sorted(changed)
        self._goto("commit")

    def commit(self) -> None:
        trailers = {
            "Plan": self.c.plan.name,
            "Session": str(self.ps.number),
            "Agent-Run": self.c.state.run_id,
            "Agent-Step": f"session-{self.ps.number}",
        }
        base = self.ss.base_commit or "HEAD"
        sha = self.c.repo.find_commit_by_trailers(trailers, since=base)
        if sha:
            self._say(f"adopting commit {sha[:12]} made before an interruption")
        else:
            sha = self.c.repo.commit_all(self._message(), trailers=trailers, ignore=self.c.ignore)
            faults.hit("git.committed")
        self.ss.commit_hash = sha
        self.ss.completed_at = now()
        self.ss.checkpoint = "session_complete"
        if self.ss.status != "completed":
            self._event("complete")
        self.c.state.head = sha
        self.c.state.branch = self.c.repo.branch()
        self._say(f"committed {sha[:12]}: {self._subject()}")
        self._goto("session_complete")

    def _subject(self) -> str:
        return f"feat({self._scope()}): {self.ps.title}"

    def _scope(self) -> str:
        for f in self.ps.files:
            first = f.path.strip("/").split("/")[0]
            if (
                "/" in f.path
                and not _is_test_file(f.path)
                and first not in {"tests", "test", "src"}
            ):
                return first
        slug = "".join(ch if ch.isalnum() else "-" for ch in self.c.plan.name.lower()).strip("-")
        return slug or "plan"

    def _message(self) -> str:
        body = [self._subject(), ""]
        body += [f"- {o.text}" for o in self.ps.objectives]
        body += [
            "",
            f"Tests (measured by the executor): {self.ss.tests_passing or 0} passing of "
            f"{self.ss.tests_written or 0} in `{self._cmd('green') or ''}`.",
            "",
            f"Session {self.ps.number} complete.",
        ]
        return "\n".join(body)

    def session_complete(self) -> None:
        if not self.c.is_last:
            d = self.checkpoint(
                "session_complete",
                f"Session {self.ps.number} complete. Continue to the next session?",
                [_opt("show_diff", "Review (show the commit)")],
                f"Commit {self.ss.commit_hash}: {self._subject()}",
            )
            if d.action not in {"approve", "continue"}:
                self.pause()
        self._goto("done")

    # -- escalation ---------------------------------------------------------------
    def escalate(self, problem: str, *, retry_step: str, feedback: str | None = None) -> None:
        """Ask a human what to do; with nobody to ask, stop with VERIFICATION_FAILED."""
        self._say(problem)
        options = [
            _opt("retry", "Retry (the agent gets the failure output)"),
            _opt("show_diff", "Show code"),
            _opt("rollback", "Roll back the session"),
            _opt("pause", "Pause"),
        ]
        while True:
            key = f"s{self.ps.number}.{self.ss.step}.escalate.q{self.ss.asks}"
            try:
                d = self.c.decide(
                    key,
                    problem + " What now?",
                    options,
                    self.ss.last_failure[-3000:],
                    checkpoint=None,
                    session=self.ss,
                )
            except VerificationFailedError:
                self.ss.errors.append(problem)
                self.c.state.status = "error"
                self.c.save()
                raise
            self.ss.asks += 1
            if d.action == "show_diff":
                self.show("show_diff")
                continue
            break
        if d.action == "pause":
            self.pause()
        if d.action in {"rollback", "abort"}:
            self.abort("rolled back after: " + problem)
        self.ss.retry_count = 0
        self.ss.attempt += 1
        if d.feedback:
            self.ss.feedback.append(d.feedback)
        if feedback:
            self.ss.feedback.append(feedback)
        self._goto(retry_step)


def _is_test_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (
        (name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")))
        or "/tests/" in f"/{path}"
        or path.startswith("tests/")
    )
