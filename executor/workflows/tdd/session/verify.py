"""The verify steps of a session: its test runs judged (`trust.verdicts`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from executor.engine.machine import Outcome
from executor.words import plural
from executor.workflows.tdd.record.counts import counted
from executor.workflows.tdd.session.checks.flaky import Flaky, flaky_note
from executor.workflows.tdd.session.checks.guard import Guard
from executor.workflows.tdd.session.checks.losses import Losses
from executor.workflows.tdd.session.checks.pins import PinJudge
from executor.workflows.tdd.session.checks.strength import session_tests, start_ahead
from executor.workflows.tdd.session.context import SessionPart, SessionRun
from executor.workflows.tdd.session.testing import Runs
from executor.workflows.tdd.trust import verdicts
from executor.workflows.tdd.trust.testfiles import is_test_file

if TYPE_CHECKING:
    from executor.testrun import TestCase, TestRun

O = Outcome  # noqa: E741 - the handlers read better with one letter


class Verify(SessionPart):
    """RED must fail and GREEN and REFACTOR pass, as measured here: nothing an agent
    reports is trusted.

    GREEN's and REFACTOR's handlers report what happened: OK, FAILED (not verified: the
    table retries the agent while `retries_left`, else a person decides) or NEEDS_PERSON
    (no agent attempt can help: a dependency missing from the environment, or a session
    that only writes failing tests no longer failing)."""

    def __init__(
        self,
        run: SessionRun,
        pins: PinJudge,
        guard: Guard,
        flaky: Flaky,
        losses: Losses,
        runs: Runs,
    ) -> None:
        super().__init__(run)
        self.pins, self.guard, self.flaky, self.losses, self.runs = pins, guard, flaky, losses, runs
        #: the role and the reasons of the last run not verified (`retry`, `give_up` say them)
        self.failed = ("", "")

    def green_verify(self) -> Outcome:
        return self.pass_verify("green")

    def refactor_verify(self) -> Outcome:
        return self.pass_verify("refactor")

    def red_verify(self) -> Outcome:
        tree = self.r.repo.record_tree(exclude=self._ignore()).tree
        root, repo = self.r.repo.root, self.r.repo
        paths = repo.paths_in(tree)
        tests = verdicts.test_fingerprints(root, [f for f in paths if is_test_file(f)])
        session = verdicts.session_keys(self.rec.base_tests, tests)
        run, tampered = self.runs.run(self._cmd("red"))
        more, flaky = self.flaky.rerun_untouched([run], self.runs.run, session)
        tampered += more
        weak, deleted, thinned = (
            self.guard.judge_tests("red", run) if self.rec.base_tests else ([], [], [])
        )
        weak += self.guard.outside_changes() + self.pins.environment_changes()
        changed = repo.tree_diff(repo.tree_of(self.rec.base_commit or "HEAD"), tree)
        weak += self.guard.infra_unseen(changed)
        mine = [f for f in changed if is_test_file(f)]
        env = self.rec.environment
        not_red = verdicts.red_problem(
            run, mine, root, project=[*paths, *(f.path for f in self.s.files)],
            environment=f"{env.python} ({env.source})" if env else "",
        )  # fmt: skip
        # the deciding reason first: no answer about changed tests makes a run RED
        why = "; ".join([*tampered, *([not_red] if not_red else []), *weak]) or None
        if why is None and run is not None:
            red = self.rec.red = verdicts.red_facts(run, changed, tree=tree)
            red.tests, red.session = tests, session
            red.deleted, red.thinned = deleted, thinned
            red.infra = self.guard.infra_now(changed)
            self.rec.verified = tree
            cases = verdicts.session_cases(run, red)
            # a RED that fails at collection counts no test: count them from their definitions
            named = [k for k in red.session if not k.endswith("::<file>")]
            self.rec.tests_written = len(cases) or len(named) or None
            self.rec.tests_passing = sum(c.outcome == "passed" for c in cases)
            self.rec.tests_counted = counted(run, from_source=not cases and bool(named))
            self.rec.last_summary = (
                f"RED verified: {run.summary()}" + _not_run(cases) + flaky_note(flaky)
            )
            self.rec.last_failure = ""
            return O.OK
        assert why is not None
        self.rec.last_failure = why + ("\n" + run.output_tail if run else "")
        self.rec.problem = f"Session {self.s.number} RED check failed: {why}"
        self.rec.feedback.append(f"RED check failed: {why}. Write tests that exist and fail.")
        return O.FAILED

    def _unchanged_since_green(self, role: str, tree: str) -> bool:
        """REFACTOR left the very tree GREEN verified (content, not places): its test runs
        would measure the same content again, so GREEN's verification stands, once what
        lies outside the tree (ignored code, settings above the repository, the project's
        environment) is checked as well."""
        if role != "refactor" or tree != self.rec.verified:
            return False
        if self.guard.tampering(role, None):
            return False  # measured again in full, and refused with the reasons
        self._say("REFACTOR changed nothing since GREEN was verified: GREEN's test runs stand")
        self.rec.last_summary = (
            "REFACTOR verified: nothing changed since GREEN (the same tree); "
            + self.rec.last_summary.removeprefix("GREEN verified: ")
        )
        self.rec.last_failure = ""
        self.rec.retries = 0
        return True

    def _verify_runs(
        self, role: str, command: str | None, suite: str | None
    ) -> tuple[verdicts.PassVerdict, TestRun | None, TestRun | None]:
        """GREEN's or REFACTOR's test runs and what they show: the suite (with coverage
        on GREEN's: what after_green shows; measuring it costs the run a third of its
        time or more again), and the session's command too when the suite does not
        collect the session's tests."""
        suite_run, tampered = self.runs.run(suite, coverage=role == "green")
        session_run = None
        if suite_run is None or not verdicts.collects(suite_run, self.rec.red):
            if suite_run is not None and any("::" in c.id for c in suite_run.cases):
                self._say("  the suite does not collect this session's tests; running them too")
            elif suite_run is not None:  # a Node whose test events name no file
                self._say("  the suite's report does not say which file each test is in: "
                          "running this session's tests on their own too")  # fmt: skip
            session_run, more = self.runs.run(command)
            tampered += more
        more, self.r.flaky_now = self.flaky.rerun_untouched(
            [suite_run, session_run], self.runs.run, None
        )
        tampered += more
        verdict = verdicts.pass_verdict(
            role,
            session_run=session_run,
            suite_run=suite_run,
            red=self.rec.red,
            green_passed=self.rec.green_passed,
            root=self.r.repo.root,
        )
        # the run of the whole suite: the session's own when its command is the suite
        whole = suite_run or (session_run if command == self.r.suite_command else None)
        verdict.problems += [*tampered, *self.guard.tampering(role, whole)]
        if not verdict.problems:  # what RED took from tests, asked again of this code
            verdict.problems += self.losses.lost_tests(role)
        return verdict, suite_run, session_run

    def pass_verify(self, role: str) -> Outcome:
        if role == "refactor" and self.s.green is None and self.s.red is not None:
            # a session that only writes failing tests: still RED, or a person looks
            still_red = self.red_verify()
            return O.NEEDS_PERSON if still_red is O.FAILED else still_red
        command = self._cmd(role)
        suite = self.r.suite_command if self.r.suite_command != command else None
        tree = self.r.repo.record_tree(exclude=self._ignore()).tree
        if self._unchanged_since_green(role, tree):
            return O.OK
        # GREEN's mutation run goes on beside the runs where a processor is spare
        beside = role == "green" and start_ahead(self, tree)
        verdict, suite_run, session_run = self._verify_runs(role, command, suite)
        if beside and verdict.problems:
            assert self.r.ahead is not None
            self.r.ahead.stop()
            self.r.ahead = None
            self._say("  not verified while the mutation run went on beside it: checking "
                      "again alone, so that only this session's work decides")  # fmt: skip
            verdict, suite_run, session_run = self._verify_runs(role, command, suite)
        if not verdict.problems:
            self.rec.verified = tree
            passed = [c.id for c in verdict.cases if c.outcome == "passed"]
            if role == "green":  # the session's own tests (a session without RED has none)
                self.rec.green_passed = passed if self.rec.red.files else []
                self.rec.in_suite = suite_run.command if suite_run and not session_run else None
                if self.r.ahead is not None:  # its mutants run now, alone, against them
                    self.r.ahead.release(session_tests(self.rec))
            self.rec.tests_written = len(verdict.cases)
            self.rec.tests_passing = len(passed)
            self.rec.tests_counted = counted(session_run or suite_run)
            self.rec.last_summary = (
                verdicts.verified_summary(role, verdict.cases, session_run, suite_run, command)
                + _not_run(verdict.cases)
                + flaky_note(self.r.flaky_now)
            )
            run = suite_run or session_run
            if role == "green":
                self.rec.coverage = run.coverage if run is not None else None
            self.rec.last_failure = ""
            self.rec.retries = 0
            return O.OK
        if self.r.ahead is not None:  # a retry or a person comes next: measured afresh
            self.r.ahead.stop()
            self.r.ahead = None
        failure = "; ".join(verdict.problems)
        self.rec.last_failure = failure + ("\n" + verdict.output if verdict.output else "")
        self.rec.errors.append(f"{role}: {failure}")
        missing = self.runs.missing(tree, session_run, suite_run)
        if missing is not None:  # no agent attempt can install it: a person does
            self.rec.problem = f"Session {self.s.number} {role.upper()}: {missing}"
            return O.NEEDS_PERSON
        self.failed = (role, failure)
        return O.FAILED

    def retries_left(self) -> bool:
        return self.rec.retries < self.r.options.max_retries

    def retry(self) -> None:
        """The agent goes again with the failure output: counted and said."""
        (role, failure), most = self.failed, self.r.options.max_retries
        self.rec.retries += 1
        self.rec.attempt += 1
        self._say(
            f"{role.upper()} not verified ({failure}); automatic retry "
            f"{self.rec.retries}/{most} with the failure output"
        )

    def give_up(self) -> None:
        """No retry left: the problem a person is shown."""
        (role, failure), most = self.failed, self.r.options.max_retries
        self.rec.problem = (
            f"Session {self.s.number} {role.upper()} could not be verified after "
            f"{plural(most, 'automatic retry', 'automatic retries')}: {failure}"
        )


def _not_run(cases: list[TestCase]) -> str:
    """A line naming the session's tests that did not run here (skipped or xfail), which
    prove nothing: said, not refused (a test skipped in RED as well keeps its outcome)."""
    idle = verdicts.not_run(cases)
    if not idle:
        return ""
    reasons = sorted({c.message.splitlines()[0][:80] for c in idle if c.message})
    return (
        f"\nNot run here ({plural(len(idle), 'test')} of the session, skipped or xfail, "
        f"prove nothing): {verdicts.describe([c.id for c in idle], 5)}"
        + (f" ({'; '.join(reasons[:3])})" if reasons else "")
    )
