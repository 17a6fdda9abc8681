"""What a plan run in the checkout does with questions nobody can answer now: it parks
the session that asks (`--yes`, no terminal), passes by the sessions that wait on a
parked one, takes a parked session up again when someone can answer (a terminal, or a
host over the bridge), and ends incomplete while any question of its scope waits."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from executor.engine.decisions import Decider
from executor.engine.layout import Layout
from executor.errors import ExecutorError, QuestionsWaiting
from executor.workflows.tdd.parking.park import clear, park
from executor.workflows.tdd.parking.questions import is_question, waiting_lines
from executor.workflows.tdd.parking.takeup import take_up
from executor.workflows.tdd.record.state import RunState
from executor.workflows.tdd.step import ACTIVE

if TYPE_CHECKING:
    from executor.plan.cache import PlanView
    from executor.vcs import GitRepo
    from executor.workflows.tdd.table import TddSession


class ParkingLot:
    """The parked sessions of one plan run in the checkout, as its loop meets them."""

    def __init__(
        self,
        state: RunState,
        *,
        repo: GitRepo,
        layout: Layout,
        decider: Decider,
        definition: str,
        save: Callable[[], None],
        report: Callable[[str], None],
    ) -> None:
        self.state, self.repo, self.layout, self.decider = state, repo, layout, decider
        self.definition, self.save, self.report = definition, save, report
        #: a session of a parallel run's lane is its run's own: it never parks there
        self.on = state.run.lane is None
        #: sessions this run passed by, and the parked sessions each waits on
        self.waiting: dict[int, list[int]] = {}
        #: why a question of this run was not asked (the end of the run says it)
        self.why: str | None = None

    def settle(self) -> None:
        """Finish a parking a killed run left half done: files still in the checkout."""
        for number, parked in sorted(self.state.run.parked.items()):
            if not parked.cleared:
                clear(self.state, number, repo=self.repo, layout=self.layout, save=self.save,
                      report=self.report)  # fmt: skip

    def passes(self, number: int) -> bool:
        """Whether the run passes session `number` by: parked, with nobody to answer. A
        parked session is taken up again when someone can answer; then it is driven."""
        if number not in self.state.run.parked:
            return False
        if self.decider.unattended:
            self.why = "nobody could give one (--yes without a terminal)"
            self.report(f"[session {number}] waits for a person's answer (parked): passed by")
            return True
        busy = [n for n, r in sorted(self.state.run.sessions.items()) if r.step in ACTIVE]
        if busy:  # its work comes back into the checkout, which that session's work holds
            self.why = (
                f"session {busy[0]} was in progress in the checkout when the run came to it "
                f"(that one goes first: run the command below again)"
            )
            self.report(f"[session {number}] waits for a person's answer (parked); session "
                        f"{busy[0]} is in progress in the checkout and goes first")  # fmt: skip
            return True
        take_up(self.state, number, repo=self.repo, layout=self.layout,
                definition=self.definition, save=self.save, report=self.report)  # fmt: skip
        return False

    def goes_on(self, ended: str, session: TddSession) -> bool:
        """Whether the run goes on past a drive that ended `ended` (not done, not
        skipped): the session asked what only a person can answer and is parked now, or
        it waits on a parked session."""
        number = session.s.number
        question = self.decider.unanswered
        asked = question is not None and question.session == number
        if ended == "no_human" and self.on and asked and is_question(question, session.rec):
            assert question is not None
            park(self.state, number, question, repo=self.repo, layout=self.layout,
                 definition=self.definition, save=self.save, report=self.report)  # fmt: skip
            return True
        if ended != "blocked":
            return False
        missing = _missing(session, self.state)
        parked = self.state.run.parked
        if not missing or not all(d in parked or d in self.waiting for d in missing):
            return False
        self.waiting[number] = sorted(
            {r for d in missing for r in ([d] if d in parked else self.waiting[d])}
        )
        on = ", ".join(map(str, self.waiting[number]))
        self.report(f"[session {number}] waits on session(s) {on}, parked: not started")
        return True

    def end(self, sessions: Sequence[int], plan: PlanView) -> None:
        """The run is incomplete while a question of its scope waits (or a session waits
        on one): QuestionsWaiting lists them, with the command that answers each."""
        asked = [n for n in sessions if n in self.state.run.parked]
        if not asked and not self.waiting:
            return
        raise QuestionsWaiting(
            "\n".join(self._lines(sessions, plan)),
            sessions=sorted({*asked, *(r for rs in self.waiting.values() for r in rs)}),
        )

    def also(self, error: ExecutorError, sessions: Sequence[int], plan: PlanView) -> ExecutorError:
        """`error`, a stop of another session, saying too what waits for a person."""
        asked = [n for n in sessions if n in self.state.run.parked]
        if asked or self.waiting:
            error.args = ("\n".join([str(error), *self._lines(sessions, plan)]),)
        return error

    def _lines(self, sessions: Sequence[int], plan: PlanView) -> list[str]:
        titles = {o.number: o.title for o in plan.outline()}
        why = self.why or (
            "nobody could give one (--yes without a terminal)" if self.decider.unattended
            else "this run does not include it: the command below asks it"
        )  # fmt: skip
        return waiting_lines(self.state, sessions, self.waiting, lambda n: titles.get(n, "?"),
                             self.layout.folder, why=why)  # fmt: skip


def _missing(session: TddSession, state: RunState) -> list[int]:
    """The session's dependencies that are not complete (`Work.start`'s reading)."""
    left_out = {o.number for o in session.r.plan.outline() if o.left_out}
    return [d for d in session.s.dependencies if d not in left_out and not state.complete(d)]
