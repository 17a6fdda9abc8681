"""The TDD session workflow as one table: each step, its handler (a method of one part of
`TddSession`, `part(pick, Part.method)`) and every exit, the choices among them too
(`retried`: an automatic retry or a person). docs/engine.md draws it from here
(`TDD.mermaid()`, a test keeps the two equal) and tells each step in words.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Protocol, TypeVar

from executor.engine.choice import Branch, Choice
from executor.engine.machine import Node, Outcome, Workflow
from executor.workflows.tdd.session.agent_step import AgentStep
from executor.workflows.tdd.session.asking import Asking
from executor.workflows.tdd.session.changed_while_waiting import Settling
from executor.workflows.tdd.session.checks.flaky import Flaky
from executor.workflows.tdd.session.checks.guard import Guard
from executor.workflows.tdd.session.checks.losses import Losses
from executor.workflows.tdd.session.checks.pins import PinJudge
from executor.workflows.tdd.session.checks.strength import Strength
from executor.workflows.tdd.session.context import SessionPart, SessionRun
from executor.workflows.tdd.session.gates import Gates
from executor.workflows.tdd.session.hooks import Hooks
from executor.workflows.tdd.session.testing import Runs
from executor.workflows.tdd.session.verify import Verify
from executor.workflows.tdd.session.work import Work
from executor.workflows.tdd.step import Step

O = Outcome  # noqa: E741 - the table reads better with one letter
S = Step


class TddSession(SessionPart):
    """One session's parts, built once from its run, each given the parts it uses (the
    table names which part's method handles a step)."""

    def __init__(self, run: SessionRun) -> None:
        super().__init__(run)
        self.asking = Asking(run)
        self.pins = PinJudge(run)
        self.strength = Strength(run)
        self.flaky = Flaky(run)
        self.guard = Guard(run, self.pins)
        self.losses = Losses(run, self.guard)
        self.hooks = Hooks(run, self.guard)
        self.settling = Settling(run, self.asking, self.pins)
        self.runs = Runs(run, self.guard)
        self.agent_step = AgentStep(run, self.guard)
        self.verify = Verify(run, self.pins, self.guard, self.flaky, self.losses, self.runs)
        self.work = Work(run, self.guard, self.runs)
        self.gates = Gates(run, self.asking, self.pins, self.strength, self.settling)

    @property
    def unclaimed(self) -> list[str]:
        """Files a person changed that nobody could say were the session's."""
        return self.r.unclaimed

    @property
    def rolled_back(self) -> tuple[str, str | None] | None:
        """(backup ref, base commit) after a rollback."""
        return self.r.rolled_back


Handler = Callable[[TddSession], Outcome]
P = TypeVar("P")
R = TypeVar("R")


def part(pick: Callable[[TddSession], P], method: Callable[[P], R]) -> Callable[[TddSession], R]:
    """`method` called on the part of the session `pick` names: the table says where a
    handler (a condition, an action) lives, and the drawn table names its class."""

    @functools.wraps(method)
    def run(session: TddSession) -> R:
        return method(pick(session))

    return run


def snapshot(handler: Handler) -> Handler:
    """A work step's handler that also records the tree it leaves: the baseline for
    what a person or an agent changes next."""

    @functools.wraps(handler)
    def run(session: TddSession) -> Outcome:
        outcome = handler(session)
        if outcome not in {O.WAIT, O.BLOCKED, O.NO_HUMAN, O.PAUSE}:
            session.take_snapshot()
        return outcome

    return run


def agent(step: Step, handler: Handler, exits: dict[Outcome, Step]) -> Node[Step, TddSession]:
    """An agent step. Going on after Ctrl+C stopped it, what a person changed since is
    settled first (`Settling.settle_stop`): a person may abort the session there."""

    def run(session: TddSession) -> Outcome:
        return session.settling.settle_stop() or handler(session)

    return Node(step, snapshot(functools.wraps(handler)(run)), exits)


class Retries(Protocol):
    """A part that counts its automatic retries."""

    def retries_left(self) -> bool: ...
    def retry(self) -> None: ...
    def give_up(self) -> None: ...


Q = TypeVar("Q", bound=Retries)


def retried(
    pick: Callable[[TddSession], Q], kind: type[Q], again: Step, person: Step
) -> Choice[Step, TddSession]:
    """A check the agent's work did not pass: the agent goes again while retries are left
    (`retry` counts it and says "automatic retry k/n"), else a person decides (`give_up`
    records the problem they are shown)."""
    return Choice(
        Branch(again, "retries left", part(pick, kind.retries_left), part(pick, kind.retry)),
        Branch(person, on=part(pick, kind.give_up)),
    )


def escalation(step: Step, retry: Step, recheck: Step) -> Node[Step, TddSession]:
    """A person decides after a failure: retry the agent, check again (an unattended
    re-run after the cause was fixed), roll back, or skip (roll back, then skipped)."""
    exits = {O.RETRY: retry, O.OK: recheck, O.ABORT: S.ROLLBACK, O.SKIP: S.ROLLBACK}
    return Node(step, part(lambda s: s.gates, Gates.escalated), exits, decision=True)


TDD: Workflow[Step, TddSession] = Workflow(
    name="tdd",
    start=S.NOT_STARTED,
    nodes=(
        Node(
            S.NOT_STARTED,
            snapshot(part(lambda s: s.work, Work.start)),
            {O.OK: S.BEFORE_START, O.BLOCKED: S.BLOCKED, O.ADOPT: S.DONE},
            final="rolled_back",
        ),
        Node(
            S.BLOCKED,
            snapshot(part(lambda s: s.work, Work.start)),
            {O.OK: S.BEFORE_START, O.BLOCKED: S.BLOCKED, O.ADOPT: S.DONE},
            final="blocked",
        ),
        Node(
            S.BEFORE_START,
            part(lambda s: s.gates, Gates.before_start),
            {O.APPROVE: S.RED_AGENT, O.CHANGES: S.RED_AGENT, O.ABORT: S.ROLLBACK},
            decision=True,
        ),
        agent(
            S.RED_AGENT,
            part(lambda s: s.agent_step, AgentStep.red_agent),
            {
                O.OK: S.RED_VERIFY,
                O.SKIP: S.GREEN_AGENT,
                O.FAILED: S.RED_ESCALATED,
                O.ABORT: S.ROLLBACK,
            },
        ),
        Node(
            S.RED_VERIFY,
            snapshot(part(lambda s: s.verify, Verify.red_verify)),
            {O.OK: S.AFTER_RED, O.FAILED: S.RED_ESCALATED},
        ),
        escalation(S.RED_ESCALATED, retry=S.RED_AGENT, recheck=S.RED_VERIFY),
        # recheck (each gate after a verification): files changed while it waited
        Node(
            S.AFTER_RED,
            part(lambda s: s.gates, Gates.after_red),
            {
                O.APPROVE: S.GREEN_AGENT,
                O.CHANGES: S.RED_AGENT,
                O.ABORT: S.ROLLBACK,
                O.RECHECK: S.RED_VERIFY,
            },
            decision=True,
        ),
        agent(
            S.GREEN_AGENT,
            part(lambda s: s.agent_step, AgentStep.green_agent),
            # skip: a session that only writes failing tests (the plan implements them later)
            {
                O.OK: S.GREEN_VERIFY,
                O.SKIP: S.HOOKS,
                O.FAILED: S.GREEN_ESCALATED,
                O.ABORT: S.ROLLBACK,
            },
        ),
        Node(
            S.GREEN_VERIFY,
            snapshot(part(lambda s: s.verify, Verify.green_verify)),
            {
                O.OK: S.GREEN_STRENGTH,
                O.FAILED: retried(lambda s: s.verify, Verify, S.GREEN_AGENT, S.GREEN_ESCALATED),
                O.NEEDS_PERSON: S.GREEN_ESCALATED,
            },
        ),
        # mutants of the changed lines against the session's tests (docs/test-strength.md)
        Node(
            S.GREEN_STRENGTH,
            part(lambda s: s.strength, Strength.green_strength),
            {
                O.OK: S.AFTER_GREEN,
                O.FAILED: retried(lambda s: s.strength, Strength, S.GREEN_AGENT, S.GREEN_ESCALATED),
                O.NEEDS_PERSON: S.GREEN_ESCALATED,
            },
        ),
        escalation(S.GREEN_ESCALATED, retry=S.GREEN_AGENT, recheck=S.GREEN_VERIFY),
        Node(
            S.AFTER_GREEN,
            part(lambda s: s.gates, Gates.after_green),
            {
                O.APPROVE: S.REFACTOR_AGENT,
                O.SKIP: S.HOOKS,
                O.CHANGES: S.GREEN_AGENT,
                O.ABORT: S.ROLLBACK,
                O.RECHECK: S.GREEN_VERIFY,
            },
            decision=True,
        ),
        agent(
            S.REFACTOR_AGENT,
            part(lambda s: s.agent_step, AgentStep.refactor_agent),
            {O.OK: S.REFACTOR_VERIFY, O.FAILED: S.REFACTOR_ESCALATED, O.ABORT: S.ROLLBACK},
        ),
        Node(
            S.REFACTOR_VERIFY,
            snapshot(part(lambda s: s.verify, Verify.refactor_verify)),
            {
                O.OK: S.REFACTOR_STRENGTH,
                O.FAILED: retried(
                    lambda s: s.verify, Verify, S.REFACTOR_AGENT, S.REFACTOR_ESCALATED
                ),
                O.NEEDS_PERSON: S.REFACTOR_ESCALATED,
            },
        ),
        Node(
            S.REFACTOR_STRENGTH,
            part(lambda s: s.strength, Strength.refactor_strength),
            {
                O.OK: S.HOOKS,
                O.FAILED: retried(
                    lambda s: s.strength, Strength, S.REFACTOR_AGENT, S.REFACTOR_ESCALATED
                ),
                O.NEEDS_PERSON: S.REFACTOR_ESCALATED,
            },
        ),
        escalation(S.REFACTOR_ESCALATED, retry=S.REFACTOR_AGENT, recheck=S.REFACTOR_VERIFY),
        Node(
            S.HOOKS,
            snapshot(part(lambda s: s.hooks, Hooks.person_hooks)),
            # recheck: a hook changed files; they are tested before they are taken in
            {
                O.OK: S.AFTER_REFACTOR,
                O.FAILED: retried(lambda s: s.hooks, Hooks, S.REFACTOR_AGENT, S.REFACTOR_ESCALATED),
                O.NEEDS_PERSON: S.REFACTOR_ESCALATED,
                O.RECHECK: S.REFACTOR_VERIFY,
            },
        ),
        Node(
            S.AFTER_REFACTOR,
            part(lambda s: s.gates, Gates.after_refactor),
            {
                O.APPROVE: S.EVIDENCE,
                O.CHANGES: S.REFACTOR_AGENT,
                O.ABORT: S.ROLLBACK,
                O.RECHECK: S.REFACTOR_VERIFY,
            },
            decision=True,
        ),
        Node(
            S.EVIDENCE,
            snapshot(part(lambda s: s.work, Work.evidence)),
            {O.OK: S.COMMIT, O.FAILED: S.EVIDENCE_ESCALATED},
        ),
        # what a person added for the evidence check is tested before it is committed
        escalation(S.EVIDENCE_ESCALATED, retry=S.GREEN_AGENT, recheck=S.REFACTOR_VERIFY),
        Node(S.COMMIT, part(lambda s: s.work, Work.commit), {O.OK: S.SESSION_COMPLETE}),
        Node(
            S.SESSION_COMPLETE,
            part(lambda s: s.gates, Gates.session_complete),
            {O.APPROVE: S.DONE, O.ABORT: S.ROLLBACK},
            decision=True,
        ),
        Node(
            S.ROLLBACK,
            part(lambda s: s.work, Work.rollback),
            {O.OK: S.NOT_STARTED, O.SKIP: S.SKIPPED},
        ),
        Node(S.DONE, None, final="done"),
        Node(S.SKIPPED, None, final="skipped"),
    ),
)


def drawn() -> str:
    """The table as docs/engine.md shows it: a Mermaid diagram, then each step."""
    return f"```mermaid\n{TDD.mermaid()}\n```\n\n{TDD.markdown()}"


if __name__ == "__main__":  # python -m executor.workflows.tdd.table
    print(drawn())
