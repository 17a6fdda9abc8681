"""The human gates of the TDD workflow: checkpoints and escalations, each returning
the table's outcome for the person's answer."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from executor.choices import Option
from executor.engine.machine import Outcome
from executor.stamps import utc_now as now
from executor.vcs.repo import with_trailers
from executor.workflows.tdd.record.commit import (
    commit_message,
    commit_subject,
    person_checks,
    person_trailer,
    trailers,
    unchecked_trailer,
)
from executor.workflows.tdd.record.session import Answered
from executor.workflows.tdd.session import detail
from executor.workflows.tdd.session.asking import Asking
from executor.workflows.tdd.session.changed_while_waiting import Settling
from executor.workflows.tdd.session.checks.pins import PinJudge
from executor.workflows.tdd.session.checks.strength import Strength, strength_trailer
from executor.workflows.tdd.session.context import SessionPart, SessionRun, opt
from executor.workflows.tdd.step import Step, checkpoint_of
from executor.workflows.tdd.trust import tampering, verdicts

O = Outcome  # noqa: E741 - the handlers read better with one letter


class Gates(SessionPart):
    """Asks a person at a checkpoint or after a failure (or approves a checkpoint
    `--checkpoints` leaves out), once what changed while the session waited is settled."""

    def __init__(
        self,
        run: SessionRun,
        asking: Asking,
        pins: PinJudge,
        strength: Strength,
        settling: Settling,
    ) -> None:
        super().__init__(run)
        self.asking, self.pins, self.strength, self.settling = asking, pins, strength, settling

    def _ask(
        self, step: Step, text: str, options: Sequence[Option], info: str, *, asking: bool = True
    ) -> Outcome | str:
        """A gate's question, after settling what changed while the session waited (the
        plan's text, a person's edits), and again when the answer was asked live (it
        took a while). `asking`
        False: approve without asking (a checkpoint `--checkpoints` leaves out)."""
        name = checkpoint_of(step)
        while True:
            settled = self.settling.settle()
            if settled is not None:
                return settled
            if self.rec.held_action is not None:
                action, self.rec.held_action = self.rec.held_action, None
                return action
            if not asking:
                self.rec.add_answer(
                    Answered(step=step, action="approve", via="not_asked", at=now())
                )
                return "approve"
            got = self.asking.question(name or step.value, text, options, info, name)
            if isinstance(got, Outcome):
                return got
            if got.feedback:
                self.rec.feedback.append(got.feedback)
            if not got.waited:
                return got.action
            # a person answered at length: what changed meanwhile is settled first
            self.r.pins_settled = False
            self.rec.held_action = got.action

    def checkpoint(self, step: Step, text: str, extra: Sequence[Option], info: str) -> Outcome:
        name = checkpoint_of(step)
        assert name is not None
        options = [
            opt("approve", "Approve"),
            *extra,
            opt("pause", "Pause (save and stop)"),
            opt("abort", "Abort session (roll back)"),
        ]
        while True:
            got = self._ask(step, text, options, info, asking=name in self.r.stops)
            if isinstance(got, Outcome):
                return got
            refused = self.asking.refused("abort") if got == "abort" else None
            if refused is None:
                break
            info = refused + info
        return {
            "approve": O.APPROVE,
            "request_changes": O.CHANGES,
            "skip_refactor": O.SKIP,
            "abort": O.ABORT,
        }[got]

    def before_start(self) -> Outcome:
        question = (
            f"Checkpoint {self.s.number}: {self.s.title}. Check it now (the suite runs "
            f"first); go on?"
            if self.s.is_checkpoint
            else f"Start session {self.s.number}: {self.s.title}?"
        )
        outcome = self.checkpoint(
            Step.BEFORE_START,
            question,
            [opt("request_changes", "Request changes (feedback for the agent)")],
            detail.before_start(self.s, self._cmd, self.r.suite_command, self.r.state),
        )
        if outcome in {O.APPROVE, O.CHANGES}:
            self.rec.attempt = 1
        return outcome

    def after_red(self) -> Outcome:
        outcome = self.checkpoint(
            Step.AFTER_RED,
            "Tests fail as expected. Implement (GREEN)?",
            [
                opt("request_changes", "Request changes to the tests"),
                opt("show_tests", "Show tests"),
            ],
            self._since_changes() + detail.after_red(self.r.repo.root, self.rec),
        )
        self._next_attempt(outcome)
        return outcome

    def after_green(self) -> Outcome:
        if self.s.step("refactor") is None:  # the commit question comes next, with the same
            return Outcome.SKIP  # diff stat: one question, as before_start said
        outcome = self.checkpoint(
            Step.AFTER_GREEN,
            "All tests pass. Refactor?",
            [
                opt("request_changes", "Request changes to the implementation"),
                opt("skip_refactor", "Skip refactor"),
                opt("show_diff", "Show diff"),
            ],
            self._since_changes()
            + detail.after_green(self.rec, self.asking.diff_stat(), hint=self._coverage_hint()),
        )
        self._next_attempt(outcome)
        return outcome

    def _coverage_hint(self) -> str | None:
        """Once a run: why a pytest suite shows no coverage (pytest-cov is missing from
        the project's environment, where the tests run: `executor.projectenv`)."""
        hinted = self.r.state.run.hinted
        command = self.r.suite_command or self._cmd("green") or ""
        env = self.rec.environment
        if self.rec.coverage is not None or "coverage" in hinted or "pytest" not in command:
            return None
        if env is None or env.coverage:
            return None
        hinted.append("coverage")
        return (
            f"Coverage: not measured: pytest-cov is not installed in {env.source}, where the "
            f"tests run ({shlex.quote(env.python)} -m pip install pytest-cov to see it here)"
        )

    def after_refactor(self) -> Outcome:
        if self.s.is_checkpoint:
            question = "The suite passes. Mark the checkpoint done in the plan (a commit)?"
        elif self.s.green is None and self.s.red is not None:
            question = "The tests fail as planned (a later session implements them). Commit?"
        else:
            question = "Tests still pass. Commit?"
        # a person's checks approved with nobody looking are committed as not verified
        nobody = "after_refactor" not in self.r.stops or self.r.decider.yes
        unchecked = person_checks(self.s) if nobody else []
        outcome = self.checkpoint(
            Step.AFTER_REFACTOR,
            question,
            [opt("request_changes", "Request changes"), opt("show_diff", "Show diff")],
            self._since_changes()
            + detail.after_refactor(
                self.s,
                self.rec,
                self.asking.diff_stat(),
                with_trailers(
                    commit_message(self.r.plan, self.s, self.rec, self._cmd("green")),
                    {
                        **trailers(self.r.plan, self.s, self.r.state.run.run_id),
                        **strength_trailer(self.rec),
                        **unchecked_trailer(unchecked),
                        **person_trailer(self.rec.person_edited),
                    },
                ),
            ),
        )
        if outcome is O.APPROVE:
            self.rec.unchecked = unchecked
        self._next_attempt(outcome)
        return outcome

    def _next_attempt(self, outcome: Outcome) -> None:
        """Requested changes are the same agent step again (what the person saw is kept,
        to show the next attempt against it); approval starts the next one."""
        if outcome is O.SKIP:
            self.rec.last_summary += "\nREFACTOR skipped: you chose to skip it."
        if outcome is O.CHANGES:
            self.rec.attempt += 1
            self.rec.changes_from = self.rec.verified
        elif outcome in {O.APPROVE, O.SKIP}:
            self.rec.attempt = 1
            self.rec.retries = 0
            self.rec.changes_from = ""

    def _since_changes(self) -> str:
        """After "request changes": what this attempt changed against what the person saw
        when they asked (nothing at all is said too), before the rest of the detail."""
        before, now = self.rec.changes_from, self.rec.verified
        if not before or not now:
            return ""
        files = self.r.repo.tree_diff(before, now)
        if not files:
            return (
                f"Attempt {self.rec.attempt} changed nothing since you asked for changes: "
                f"the files are as you saw them then.\n\n"
            )
        return (
            f"Attempt {self.rec.attempt} changed since you asked for changes: "
            f"{verdicts.describe(files)}\n\n"
        )

    def session_complete(self) -> Outcome:
        """Committed: nothing of the session is left to protect, so no settling."""
        if self.r.is_last or "session_complete" not in self.r.stops:
            return O.APPROVE
        options = [
            opt("approve", "Continue"),
            opt("show_diff", "Review (show the commit)"),
            opt("pause", "Pause (save and stop)"),
            opt("abort", "Abort session (roll back its commit)"),
        ]
        info = detail.session_complete(
            self.rec, commit_subject(self.r.plan, self.s), self.r.next_session
        )
        while True:
            got = self.asking.question(
                "session_complete",
                f"Session {self.s.number} complete. Continue to the next session?",
                options,
                info,
                "session_complete",
                shows=lambda _: self.asking.commit_text(),
            )
            if isinstance(got, Outcome):
                return got
            if got.action != "abort":
                return O.APPROVE
            refused = self.asking.refused("abort")
            if refused is None:
                return O.ABORT
            info = refused + info

    def _accept_tests(self) -> None:
        """The person approved the changed tests (they saw the diff): they are the
        session's tests from now on."""
        rec = self.rec
        files = rec.weakened
        before = rec.red.tests if rec.red.tests else rec.base_tests
        for tid in [t for t in before if t.split("::", 1)[0] in files]:
            del before[tid]
        before.update(verdicts.test_fingerprints(self.r.repo.root, files))
        rec.accepted = sorted({*rec.accepted, *files})
        mine = verdicts.session_ids(files)  # their tests are measured anew from now on
        rec.green_passed = [t for t in rec.green_passed if not mine(t)]
        rec.red.failing = [t for t in rec.red.failing if not mine(t)]
        rec.red.deleted = [k for k in rec.red.deleted if k.split("::")[0] not in files]
        rec.red.thinned = [k for k in rec.red.thinned if k.split("::")[0] not in files]
        self._say(f"the changed tests are the session's from now on: {verdicts.describe(files)}")
        rec.weakened = []

    def _accept_infra(self) -> None:
        """The person approved the changed test infrastructure (they saw the diff): it is
        what the session's tests run with from now on."""
        rec, root = self.rec, self.r.repo.root
        now = tampering.infra_fingerprint(root, rec.infra_changed, runners=self.runners())
        for path in rec.infra_changed:
            if path in now:
                rec.red.infra[path] = now[path]
            else:  # no longer infrastructure at all
                rec.red.infra.pop(path, None)
        self._say(f"the changed test infrastructure is the session's from now on: "
                  f"{verdicts.describe(rec.infra_changed)}")  # fmt: skip
        rec.infra_changed = []

    # -- agent steps ----------------------------------------------------------------------
    def escalated(self) -> Outcome:
        """A person decides after a failure; with nobody to ask, the run stops (exit 16),
        and running it again unattended is the decision to retry."""
        self._say(self.rec.problem)
        if self.r.decider.unattended and self.r.entry_step == self.rec.step.value:
            self.r.entry_step = None  # once per run: a second failure stops it again
            self._say("run again with --yes after this stop: checking again")
            self.rec.held_action = "recheck"
        options = [
            opt("retry", "Retry (the agent gets the failure output)"),
            opt(
                "check",
                "Check again, no agent call (after you fixed the cause, e.g. "
                "installed a missing dependency)",
            ),
            opt("show_diff", "Show code"),
            opt("rollback", "Roll back the session"),
            opt("skip", "Skip the session (roll back, mark it skipped)"),
            opt("pause", "Pause"),
        ]
        if self.rec.infra_changed:  # what runs the tests reads it: a person takes it in
            options.insert(1, opt("accept_infra", "Accept the changed test infrastructure "
                                                  "(see the diff)"))  # fmt: skip
        if self.r.pins.pinned.unsettled:  # what the tests run with: a person decides
            options.insert(
                1,
                opt(
                    "accept_environment",
                    "Take the project's environment in "
                    "as it is now (the tests run with it from now on)",
                ),
            )
        if self.rec.weakened:  # tests only grow stronger without a person: this one decides
            options.insert(1, opt("accept_tests", "Accept the changed tests (see the diff)"))
        if self.rec.strength is not None and self.rec.strength.below:
            options.insert(1, opt("accept_strength", "Accept the test strength as it is"))
        while True:
            got = self._ask(
                self.rec.step,
                self.rec.problem + " What now?",
                options,
                self.rec.last_failure[-3000:],
            )
            if isinstance(got, Outcome):
                return got
            if got in {"recheck", "check"}:
                return O.OK
            if got == "accept_environment":
                self.pins.take_environment()
                self._say("the project's environment as it is now is the run's from now on")
                return O.OK  # verified again, with it
            if got == "accept_tests":
                self._accept_tests()
                return O.OK  # verified again, with these tests
            if got == "accept_infra":
                self._accept_infra()
                return O.OK  # verified again, against this infrastructure
            if got == "accept_strength":
                self.strength.accept()
                return O.OK  # verified again; the same tree's score then passes
            refused = self.asking.refused(got) if got in {"rollback", "skip"} else None
            if refused is None:
                break
        if got == "retry":
            self.rec.retries = 0
            self.rec.attempt += 1
            return O.RETRY
        if got == "skip":
            self.rec.after_rollback = "skip"
            return O.SKIP
        return O.ABORT
