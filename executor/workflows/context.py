"""What the handlers of one TDD session share: the run's context and small helpers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from executor.engine.agents import Agents, Durable
from executor.engine.decisions import Decider, Option
from executor.engine.layout import Layout
from executor.engine.state import RunState, SessionRecord
from executor.plan.cache import PlanView
from executor.plan.models import Session
from executor.records import Record, field
from executor.retry import RetryPolicy

if TYPE_CHECKING:
    from executor.testrun import TestRun
    from executor.vcs import GitRepo


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


class SessionRun(Record, kw_only=False):
    """Everything the handlers of one session need; built by the plan runner."""

    plan: PlanView
    session: Session
    rec: SessionRecord
    state: RunState
    repo: GitRepo
    layout: Layout
    agents: Agents
    decider: Decider
    durable: Durable
    report: Callable[[str], None]
    run_tests: Callable[[str], TestRun]
    suite_command: str | None
    project_test_command: str | None
    max_retries: int
    stops: frozenset[str]
    is_last: bool
    policy: RetryPolicy
    #: Parse the plan again (after the executor put a plan file back); returns it.
    reload_plan: Callable[[], PlanView]
    #: Multiplier for retry backoff sleeps (0 in tests).
    backoff: float = 1.0
    #: Plan files the runner put back before parsing (an agent changed them over the
    #: bridge); the agent step reports them as tampering.
    restored_plan: list[str] = field(default_factory=list)

    def reload(self) -> None:
        self.plan = self.reload_plan()
        session = self.plan.session(self.session.number)
        assert session is not None, "the restored plan lost the session"
        self.session = session


def opt(value: str, label: str) -> Option:
    return Option(value=value, label=label)


class SessionPart:
    """Base of the handler groups: the run, the plan's session and its record."""

    def __init__(self, run: SessionRun) -> None:
        self.r = run
        self.rec = run.rec

    @property
    def s(self) -> Session:
        """The plan's session (re-read when the executor restored a plan file)."""
        return self.r.session

    def _say(self, msg: str) -> None:
        self.r.report(f"[session {self.s.number}] {msg}")

    def _cmd(self, role: str) -> str | None:
        return self.s.test_command(role, self.r.project_test_command)  # type: ignore[arg-type]

    def _ignore(self) -> list[Path]:
        return self.r.layout.owned()
