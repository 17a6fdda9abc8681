"""The human gates of the TDD workflow: checkpoints and escalations.

Each asks a person through the `Decider` (or approves when `--checkpoints` leaves the
checkpoint out) and returns the table's outcome for the answer. "Show tests" and
"show diff" return to the same question with the content; "pause" stops the run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from executor.choices import Decision, Option, Question
from executor.engine.agents import Waiting
from executor.engine.decisions import NoHuman
from executor.engine.machine import Outcome
from executor.vcs.repo import with_trailers
from executor.workflows.tdd import detail, verdicts
from executor.workflows.tdd.commit import commit_message, commit_subject, trailers
from executor.workflows.tdd.context import SessionPart, opt
from executor.workflows.tdd.step import RECHECK_AT, Step, checkpoint_of

O = Outcome  # noqa: E741 - the handlers read better with one letter


class Gates(SessionPart):
    # -- one question -----------------------------------------------------------------
    def _question(
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
            if got.action == "pause":
                self.rec.paused = True
                return O.PAUSE
            return got

    def _ask(
        self, step: Step, text: str, options: Sequence[Option], info: str, *, asking: bool = True
    ) -> Outcome | str:
        """A gate's question, after settling what changed while the session waited (the
        plan's text, a person's edits), and again when the answer was asked live (it
        took a while). `asking`
        False: approve without asking (a checkpoint `--checkpoints` leaves out)."""
        name = checkpoint_of(step)
        while True:
            settled = self.settle()
            if settled is not None:
                return settled
            if self.rec.held_action is not None:
                action, self.rec.held_action = self.rec.held_action, None
                return action
            if not asking:
                return "approve"
            got = self._question(name or step.value, text, options, info, name)
            if isinstance(got, Outcome):
                return got
            if got.feedback:
                self.rec.feedback.append(got.feedback)
            if not got.waited or not self.changed_meanwhile():
                return got.action
            self.rec.held_action = got.action  # asked again after the edits are settled

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
            refused = self._refused("abort") if got == "abort" else None
            if refused is None:
                break
            info = refused + info
        return {
            "approve": O.APPROVE,
            "request_changes": O.CHANGES,
            "skip_refactor": O.SKIP,
            "abort": O.ABORT,
        }[got]

    def _refused(self, what: str) -> str | None:
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
        got = self._question(
            "confirm",
            f"{what.capitalize()} session {self.s.number}: reset the worktree to {base}? "
            f"Everything it holds is saved under a backup ref first.",
            [opt("yes", f"Yes, {what}"), opt("no", "No, back to the question")],
            self._diff_stat(),
            None,
        )
        return isinstance(got, Decision) and got.action == "yes"

    def show(self, what: str) -> str:
        """The tests or the diff, for the same question asked again (shown once: with it)."""
        if what == "show_tests":
            return detail.test_files_text(self.r.repo.root, self.rec.red.files)
        base = self.rec.base_commit or "HEAD"
        return self.r.repo.diff_text(base, ignore=self._ignore()) or "(no changes)"

    def _commit_text(self) -> str:
        """The session's commit as `git show` would: its message, then its diff."""
        base = self.rec.base_commit or "HEAD"
        ours = next(
            (c for c in self.r.repo.commits_since(base) if c.sha == self.rec.commit_hash), None
        )
        message = ours.message if ours else "(the session's commit is not on this branch)"
        head = f"commit {self.rec.commit_hash}\n\n{message}\n\n"
        return head + (self.r.repo.diff_text(base, ignore=self._ignore()) or "(no changes)")

    def _diff_stat(self) -> str:
        base = self.rec.base_commit or "HEAD"
        return self.r.repo.diff_text(base, ignore=self._ignore(), stat=True).rstrip()

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
            detail.after_red(self.r.repo.root, self.rec),
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
            detail.after_green(self.rec, self._diff_stat(), hint=self._coverage_hint()),
        )
        self._next_attempt(outcome)
        return outcome

    def _coverage_hint(self) -> str | None:
        """Once a run: why a pytest suite shows no coverage (pytest-cov is missing)."""
        import importlib.util

        hinted = self.r.state.run.hinted
        command = self.r.suite_command or self._cmd("green") or ""
        if self.rec.coverage is not None or "coverage" in hinted or "pytest" not in command:
            return None
        if importlib.util.find_spec("pytest_cov") is not None:
            return None
        hinted.append("coverage")
        return (
            "Coverage: not measured: pytest-cov is not installed where the executor runs "
            "(pip install pytest-cov to see it here)"
        )

    def after_refactor(self) -> Outcome:
        if self.s.is_checkpoint:
            question = "The suite passes. Mark the checkpoint done in the plan (a commit)?"
        elif self.s.green is None and self.s.red is not None:
            question = "The tests fail as planned (a later session implements them). Commit?"
        else:
            question = "Tests still pass. Commit?"
        outcome = self.checkpoint(
            Step.AFTER_REFACTOR,
            question,
            [opt("request_changes", "Request changes"), opt("show_diff", "Show diff")],
            detail.after_refactor(
                self.s,
                self.rec,
                self._diff_stat(),
                with_trailers(
                    commit_message(self.r.plan, self.s, self.rec, self._cmd("green")),
                    trailers(self.r.plan, self.s, self.r.state.run.run_id),
                ),
            ),
        )
        self._next_attempt(outcome)
        return outcome

    def _next_attempt(self, outcome: Outcome) -> None:
        """Requested changes are the same agent step again; approval starts the next one."""
        if outcome is O.SKIP:
            self.rec.last_summary += "\nREFACTOR skipped: you chose to skip it."
        if outcome is O.CHANGES:
            self.rec.attempt += 1
        elif outcome in {O.APPROVE, O.SKIP}:
            self.rec.attempt = 1
            self.rec.retries = 0

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
            got = self._question(
                "session_complete",
                f"Session {self.s.number} complete. Continue to the next session?",
                options,
                info,
                "session_complete",
                shows=lambda _: self._commit_text(),
            )
            if isinstance(got, Outcome):
                return got
            if got.action != "abort":
                return O.APPROVE
            refused = self._refused("abort")
            if refused is None:
                return O.ABORT
            info = refused + info

    # -- what changed while the session waited ------------------------------------------
    def settle(self) -> Outcome | None:
        """Before a gate asks its own question: settle what changed while the session
        waited. Two things can: the session's section of the plan (drift) and files in
        the worktree (a person's edits; the agent is not running then). Neither is ever
        committed or acted on silently: the person chooses through the same question
        machinery as any checkpoint (a host answers over the bridge; `--yes` without a
        terminal stops with exit 16). Drift: use the new text / put the old text back /
        skip the session. Edits: keep them out of the commit / they belong to the
        session / abort. None when nothing is left to settle; else the outcome."""
        if self.drifted():
            out = self._drift()
            if out is not None:
                return out
        edits = self.person_edits()
        return self._edits(edits) if edits else None

    def _drift(self) -> Outcome | None:
        s, rec = self.s, self.rec
        where = f"{s.source_file}:{s.line_start}"
        tracked = rec.base_commit is not None and self.r.repo.tracked_at(
            rec.base_commit, s.source_file
        )
        options = [opt("use_new", "Use the new text from now on")]
        if tracked:
            options.append(opt("keep_old", "Put the old text back (the file as the session began)"))
        options += [
            opt("skip", "Skip the session (roll back, mark it skipped)"),
            opt("pause", "Pause"),
        ]
        rec.problem = (
            f"Session {s.number}'s section of the plan ({where}) changed since the session "
            f"started; its steps so far were checked against the old text."
        )
        got = self._question("drift", rec.problem + " What now?", options, self._plan_diff(), None)
        if isinstance(got, Outcome):
            return got
        assert isinstance(got, Decision)
        if got.action == "skip":
            rec.after_rollback = "skip"
            return Outcome.ABORT
        if got.action == "keep_old":
            assert rec.base_commit is not None
            ref = self.r.repo.snapshot(f"plan-edit-session-{s.number}")
            self.r.repo.restore_paths(rec.base_commit, [s.source_file])
            self.r.reload()
            self._say(f"the plan's old text is back; your edit is saved in {ref}")
        else:
            rec.source_hash = s.source_hash
            self._say("continuing with the plan's new text")
        return None

    def _plan_diff(self) -> str:
        base = self.rec.base_commit or "HEAD"
        text = self.r.repo.diff_text(base, ignore=self._ignore(), paths=[self.s.source_file])
        return text or "(the plan file differs from the session's start)"

    def _edits(self, files: list[str]) -> Outcome | None:
        rec = self.rec
        ours = set(self.session_paths())
        theirs = [f for f in files if f not in ours]
        shared = [f for f in files if f in ours]
        options = []
        if theirs:
            label = "Keep them" if not shared else "Keep the ones only you changed"
            options.append(opt("keep_out", f"{label} out of this session's commit and continue"))
        options += [
            opt("include", "They belong to the session: commit them with it"),
            opt("show_diff", "Show the diff"),
            opt("abort", "Abort the session (roll back; everything is backed up first)"),
            opt("pause", "Pause"),
        ]
        rec.problem = (
            f"Files changed while session {self.s.number} waited, not by its agent: "
            f"{verdicts.describe(files)}. They are not committed or undone without you."
        )
        info = "\n".join(
            [f"- {f}" + (" (the agent changed it too)" if f in shared else "") for f in files]
        )
        base = rec.base_commit or "HEAD"
        paths = [self.r.repo.root / f for f in files]
        got = self._question(
            "edits",
            rec.problem + " What now?",
            options,
            info,
            None,
            shows=lambda _: self.r.repo.diff_text(base, paths=paths) or "(no changes)",
        )
        if got is Outcome.NO_HUMAN:  # --yes, no terminal: a person changed them on purpose
            self._say(f"nobody to ask (--yes): {verdicts.describe(files)} are part of the session")
            return self._taken_in(files)
        if isinstance(got, Outcome):
            return got
        assert isinstance(got, Decision)
        if got.action == "abort":
            return Outcome.ABORT
        if got.action == "keep_out":
            rec.excluded = sorted({*rec.excluded, *theirs})
            rec.kept.update(self.r.repo.blobs_of(theirs))  # put back if anything else writes
            self._say(
                f"kept out of the session's commit: {verdicts.describe(theirs)}"
                + (f" ({verdicts.describe(shared)}: the agent changed them too, so they stay in)"
                   if shared else "")
            )  # fmt: skip
            self.take_snapshot()
            return None
        self._say(f"part of the session from now on: {verdicts.describe(files)}")
        return self._taken_in(files)

    def _taken_in(self, files: list[str]) -> Outcome | None:
        """The person's files are the session's now: a RED test they edited is the RED test
        from now on, and what was verified before them is verified again (RECHECK), so no
        commit holds a change its tests never ran against."""
        rec = self.rec
        tests = [f for f in files if verdicts.is_test_file(f)]
        rec.accepted = sorted({*rec.accepted, *tests})
        if tests and rec.red.tests:
            stale = [t for t in rec.red.tests if t.split("::", 1)[0] in tests]
            for tid in stale:
                del rec.red.tests[tid]
            rec.red.tests.update(verdicts.test_fingerprints(self.r.repo.root, tests))
        self.take_snapshot()
        if rec.step in RECHECK_AT:
            self._say("verifying again with them")
            return Outcome.RECHECK
        return None

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
        self._say(f"the changed tests are the session's from now on: {verdicts.describe(files)}")
        rec.weakened = []

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
            opt("show_diff", "Show code"),
            opt("rollback", "Roll back the session"),
            opt("skip", "Skip the session (roll back, mark it skipped)"),
            opt("pause", "Pause"),
        ]
        if self.rec.weakened:  # tests only grow stronger without a person: this one decides
            options.insert(1, opt("accept_tests", "Accept the changed tests (see the diff)"))
        while True:
            got = self._ask(
                self.rec.step,
                self.rec.problem + " What now?",
                options,
                self.rec.last_failure[-3000:],
            )
            if isinstance(got, Outcome):
                return got
            if got == "recheck":
                return O.OK
            if got == "accept_tests":
                self._accept_tests()
                return O.OK  # verified again, with these tests
            refused = self._refused(got) if got in {"rollback", "skip"} else None
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
