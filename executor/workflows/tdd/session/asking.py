"""How a session puts one question to a person, and the texts a question shows."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from executor.choices import Decision, Option, Question
from executor.engine.agents import Waiting
from executor.engine.decisions import NoHuman
from executor.engine.machine import Outcome
from executor.workflows.tdd.record.session import Answered
from executor.workflows.tdd.session import detail
from executor.workflows.tdd.session.context import SessionPart, opt
from executor.workflows.tdd.step import Step

O = Outcome  # noqa: E741 - the handlers read better with one letter


class Asking(SessionPart):
    """Asks until the answer is not "show ...": a stop (wait, nobody, pause) is the
    table's outcome; a rollback asks once more on a terminal."""

    def question(
        self,
        what: str,
        text: str,
        options: Sequence[Option],
        info: str,
        checkpoint: str | None,
        shows: Callable[[str], str] | None = None,
    ) -> Decision | Outcome:
        """Ask until the person answers something other than "show ..."; a stop outcome
        (WAIT, NO_HUMAN, PAUSE) or the decision. `shows`: what "show ..." shows, when
        not the session's tests or diff."""
        while True:
            key = f"s{self.s.number}.{what}.q{self.rec.asks}"
            got = self.r.decider.ask(
                Question(
                    key=key,
                    text=text,
                    options=tuple(options),
                    detail=info,
                    checkpoint=checkpoint,
                    session=self.s.number,
                    phase=self.s.phase,
                    detail_file=self.r.layout.logs / f"{key}.md",
                ),
                self.rec.bridge,
            )
            if isinstance(got, Waiting):
                return O.WAIT
            if isinstance(got, NoHuman):
                return O.NO_HUMAN
            assert isinstance(got, Decision)
            self.rec.asks += 1
            if got.action in {"show_diff", "show_tests"}:
                info = (shows or self.show)(got.action) + "\n\n" + info
                continue
            self.rec.add_answer(answered(self.rec.step, got))
            if got.action == "pause":
                self.rec.paused = True
                return O.PAUSE
            return got

    def refused(self, what: str) -> str | None:
        """None when the session may be rolled back now (`what`: abort, rollback, skip);
        else why not, for the question asked again: git refuses (a pushed, merged or
        foreign commit would be dropped: said, and nothing changed), or the person on a
        terminal did not confirm (an empty note)."""
        refused = self.rollback_refusal()
        if refused is not None:
            self._say(str(refused))
            return f"{refused}\n\n"
        return None if self._confirmed(what) else ""

    def _confirmed(self, what: str) -> bool:
        """On a terminal, a second question before anything is undone (a host or `--yes`
        already decided on purpose)."""
        if not self.r.decider.interactive:
            return True
        base = (self.rec.base_commit or "its start")[:12]
        got = self.question(
            "confirm",
            f"{what.capitalize()} session {self.s.number}: reset the worktree to {base}? "
            f"Everything it holds is saved under a backup ref first.",
            [opt("yes", f"Yes, {what}"), opt("no", "No, back to the question")],
            self.diff_stat(),
            None,
        )
        return isinstance(got, Decision) and got.action == "yes"

    def show(self, what: str) -> str:
        """The tests or the diff, for the same question asked again (shown once: with it)."""
        if what == "show_tests":
            return detail.test_files_text(self.r.repo.root, self.rec.red.files)
        base = self.rec.base_commit or "HEAD"
        return self.r.repo.diff_text(base, ignore=self._ignore()) or "(no changes)"

    def commit_text(self) -> str:
        """The session's commit as `git show` would: its message, then its diff."""
        base = self.rec.base_commit or "HEAD"
        ours = next(
            (c for c in self.r.repo.commits_since(base) if c.sha == self.rec.commit_hash), None
        )
        message = ours.message if ours else "(the session's commit is not on this branch)"
        head = f"commit {self.rec.commit_hash}\n\n{message}\n\n"
        return head + (self.r.repo.diff_text(base, ignore=self._ignore()) or "(no changes)")

    def diff_stat(self) -> str:
        base = self.rec.base_commit or "HEAD"
        return self.r.repo.diff_text(base, ignore=self._ignore(), stat=True).rstrip()


def answered(step: Step, got: Decision) -> Answered:
    """The record of an answer: what, when, how (terminal, bridge, --yes), how long it took."""
    from executor.stamps import utc_now

    return Answered(
        step=step, action=got.action, via=got.via or "terminal",
        at=utc_now(), waited=got.seconds, feedback=got.feedback[:2000],
    )  # fmt: skip
