"""The agent steps of a session: the brief written, the agent called, its call recorded."""

from __future__ import annotations

import time

from executor import fsutil
from executor.engine.agents import (
    DEFAULT_AGENT_TIMEOUT,
    MESSAGE_CHARS,
    AgentCall,
    AgentResult,
    BridgeAgents,
    Waiting,
)
from executor.engine.machine import Outcome
from executor.workflows.tdd.record.session import AgentCall as AgentCallLog
from executor.workflows.tdd.session import budget
from executor.workflows.tdd.session.brief import digest, render_brief, usage_line
from executor.workflows.tdd.session.checks.guard import Guard
from executor.workflows.tdd.session.checks.put_back import note_settings
from executor.workflows.tdd.session.context import SessionPart, SessionRun, agent_for
from executor.workflows.tdd.step import Step

O = Outcome  # noqa: E741 - the handlers read better with one letter


class AgentStep(SessionPart):
    """Calls the agent for RED, GREEN or REFACTOR within the budgets, retrying what the
    retry policy allows; what it changed is judged by the guard."""

    def __init__(self, run: SessionRun, guard: Guard) -> None:
        super().__init__(run)
        self.guard = guard

    def red_agent(self) -> Outcome:
        return self.agent_step("red")

    def green_agent(self) -> Outcome:
        return self.agent_step("green")

    def refactor_agent(self) -> Outcome:
        return self.agent_step("refactor")

    def agent_step(self, role: str) -> Outcome:
        if role == "red" and self.s.step("red") is None:
            self._say("RED: the plan has no RED step; skipped")
            return O.SKIP
        if role == "green" and self.s.is_checkpoint:
            self._say("a checkpoint of the plan: no agent; the suite is checked, you confirm")
            return O.OK
        if role == "green" and self.s.green is None and self.s.red is not None:
            self._say("GREEN: the plan makes these tests pass in a later session; skipped")
            return O.SKIP
        if role == "refactor" and self.s.step("refactor") is None:
            if not (self.rec.feedback or self.rec.last_failure):  # nothing asked of it
                self._say("REFACTOR: the plan has none and nothing was asked; checking again")
                return O.OK
            self._say("REFACTOR: the plan has none; the agent does what was asked")
        while True:
            over = budget.exceeded(self.r.options, self.r.spent_now())
            if over:
                self.rec.problem = over.text
                return O.BUDGET
            call = self._agent_call(role)
            if self.r.position is not None:
                self.r.report(progress_header(self.s.number, self.r.position, role, call.attempt))
            asking = f"{role.upper()}: asking {call.agent_name} (attempt {call.attempt})"
            act = self.r.activity(f"[session {self.s.number}] {asking}") if (
                self.r.activity is not None and not isinstance(self.r.agents, BridgeAgents)
            ) else None  # fmt: skip
            if act is None:
                self._say(asking)
            if self.rec.bridge.pending is None:  # a new request: what the agent may not change
                self.rec.settings = note_settings(self.r.repo)
            result = self.r.agents.call(call, self.rec.bridge)
            if act is not None:
                act.close("waiting for the bridge" if isinstance(result, Waiting) else
                          getattr(result, "status", ""))  # fmt: skip
            if isinstance(result, Waiting):
                return O.WAIT
            self._log_call(role, result)
            tampered = self.guard.after_agent_step(role)
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

    def _log_call(self, role: str, result: AgentResult) -> None:
        message = (result.text if result.ok else result.error_message or "")[:MESSAGE_CHARS]
        call = AgentCallLog(
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
        self.rec.agent_calls.append(call)
        self.r.state.run.spent.add(call)
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
            digest=digest(self.r.plan, self.r.state, self.r.archive, self.s.dependencies),
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
            timeout=self.r.options.agent_timeout or DEFAULT_AGENT_TIMEOUT,
            test_command=self._cmd(role),
            test_commands=self._test_commands(),
            log=fsutil.ensure_private_dir(self.r.layout.logs, inside=self.r.layout.folder)
            / f"{key}.log",
        )

    def _test_commands(self) -> tuple[str, ...]:
        """Every test command the session and the project use (an agent may run them)."""
        return tuple(dict.fromkeys(c for c in self.commands() if c))


def progress_header(number: int, position: tuple[int, int], role: str, attempt: int) -> str:
    """`-- session 2 of 5, GREEN, attempt 1 --`: where a long run is (the session's place in
    the run when its number in the plan is another)."""
    place, total = position
    where = f"session {number} of {total}" if number == place else (
        f"session {number} ({place} of {total})")  # fmt: skip
    return f"-- {where}, {role.upper()}, attempt {attempt} --"
