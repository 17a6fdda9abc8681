"""The test-strength step (docs/test-strength.md): mutants of the lines the session
changed, run against its tests after GREEN's and REFACTOR's verification; a figure, and
a gate with `--min-mutation-score` (retried automatically, then a person decides)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from executor import fsutil
from executor.engine.machine import Outcome
from executor.pinning import interpreter
from executor.strength.facts import SURVIVORS_KEPT, StrengthFacts, SurvivorFact
from executor.strength.job import Job, SessionTests
from executor.workflows.tdd.record.session import SessionRecord
from executor.workflows.tdd.session.context import SessionPart
from executor.workflows.tdd.trust import verdicts
from executor.workflows.tdd.trust.testfiles import is_test_file

if TYPE_CHECKING:
    from executor.strength.mutants import Mutant
    from executor.strength.runner import Measured
    from executor.workflows.tdd.session.early_mutation import Ahead

O = Outcome  # noqa: E741 - the handlers read better with one letter

#: The most seconds a mutation step may take when `--mutation-budget` is not given, and
#: the least (`Strength._budget`: twice the session's verification in between).
DEFAULT_BUDGET = 300
MIN_BUDGET = 30


def session_tests(rec: SessionRecord) -> SessionTests:
    """The session's tests: the cases of the definitions RED added or changed (and made
    fail), as GREEN measured them passing (`verdicts.session_cases`); for a RED recorded
    without them, every case of the test files RED wrote or changed."""
    if rec.red.session and rec.green_passed:
        return SessionTests(files=list(rec.red.files), ids=list(rec.green_passed))
    return SessionTests(files=list(rec.red.files))


class Strength(SessionPart):
    """The mutation step after GREEN's and REFACTOR's verification: a figure, and a
    gate with `--min-mutation-score`.

    Its handlers report OK, FAILED (below the minimum: the table retries the agent with
    the survivors while `retries_left`, else a person decides) or NEEDS_PERSON (no agent
    attempt can help: the figure was not measured, or Stryker's program changed)."""

    #: the role, the reason and the survivors of the last score below the minimum
    failed = ("", "", "")

    def green_strength(self) -> Outcome:
        return self.strength_step("green")

    def refactor_strength(self) -> Outcome:
        return self.strength_step("refactor")

    def strength_step(self, role: str) -> Outcome:
        rec, options = self.rec, self.r.options
        budget = self._budget() if options.mutation_budget is None else options.mutation_budget
        if budget == 0 or (role == "refactor" and self.s.green is None and self.s.red):
            return O.OK  # turned off; or a session whose tests fail by design
        changed = self._stryker_changed(role)
        if changed:
            if self.r.ahead is not None:
                self.r.ahead.stop()
                self.r.ahead = None
            return changed
        before, ahead = rec.strength, self.r.ahead
        self.r.ahead = None
        if before is not None and before.tree == rec.verified and self._stands(before):
            facts = before
            self._say(f"{role.upper()}: tested tree unchanged since measured: {facts.headline()}")
            if ahead is not None:
                ahead.stop()
        else:
            facts = self._measure(role, rec.verified, budget, ahead)
            facts.retries = before.retries if before and before.step == role else 0
            rec.strength = facts
            self._say(facts.headline())
        return self._judge(role, facts)

    def _stands(self, facts: StrengthFacts) -> bool:
        """Whether `facts` of the same tree stand: measured, nothing to measure, accepted,
        or no gate to pass (a gate not measured is measured again: it may be now)."""
        minimum = self.r.options.min_mutation_score
        return bool(facts.total or facts.empty or facts.accepted or minimum is None)

    def _judge(self, role: str, facts: StrengthFacts) -> Outcome:
        rec, minimum = self.rec, self.r.options.min_mutation_score
        unmeasured = minimum is not None and not facts.total and not facts.empty
        facts.below = unmeasured or bool(
            minimum is not None and facts.total and facts.gate_percent < minimum
        )
        if not facts.below or facts.accepted:
            return O.OK
        if unmeasured:  # no retry: the agent cannot measure it; a person may accept it
            why = (f"test strength was not measured ({facts.note or 'no figure'}), and a "
                   f"minimum that was not measured has not passed (--min-mutation-score "
                   f"{minimum})")  # fmt: skip
            rec.problem = f"Session {self.s.number} {role.upper()}: {why}"
            rec.last_failure = why
            return O.NEEDS_PERSON
        unrun = f", {facts.unrun} more not run within the budget" if facts.unrun else ""
        why = (f"test strength {facts.score} ({facts.gate_percent:.0f}%{unrun}) is below the "
               f"minimum {minimum}% (--min-mutation-score)")  # fmt: skip
        survivors = "\n".join(s.text() for s in facts.survivors) or "(none kept)"
        self.failed = (role, why, survivors)
        return O.FAILED

    def _judged(self) -> StrengthFacts:
        assert self.rec.strength is not None, "a score below the minimum was judged"
        return self.rec.strength

    def retries_left(self) -> bool:
        return self._judged().retries < self.r.options.max_retries

    def retry(self) -> None:
        """The agent goes again with the survivors, to strengthen the tests: counted and said."""
        (role, why, survivors), facts = self.failed, self._judged()
        facts.retries += 1
        self.rec.attempt += 1
        self.rec.last_failure = (
            f"Session {self.s.number}: {why}. These mutants of the session's code survive "
            f"its tests; add tests (new test functions: leave the existing ones as they "
            f"are) that fail on each of them, without changing what the code does:\n"
            f"{survivors}"
        )
        self._say(f"{role.upper()}: {why}; automatic retry {facts.retries}/"
                  f"{self.r.options.max_retries}: the agent strengthens the tests")  # fmt: skip

    def give_up(self) -> None:
        """No retry left: the problem a person is shown, with the survivors."""
        role, why, survivors = self.failed
        self.rec.problem = f"Session {self.s.number} {role.upper()}: {why}"
        self.rec.last_failure = f"Surviving mutants (each a one-line diff):\n{survivors}"

    def _stryker_changed(self, role: str) -> Outcome | None:
        """NEEDS_PERSON when Stryker's program is not what it was when the session started (it
        decides JavaScript/TypeScript scores: an agent may not bring or change it)."""
        from executor.strength import program

        rec = self.rec
        if rec.stryker is None or program.pin(self.r.repo.root) == rec.stryker:
            return None
        how = "appeared" if not rec.stryker else "changed"
        why = (f"Stryker's program (node_modules/@stryker-mutator and the packages it loads) "
               f"{how} during the session: it decides the test strength of JavaScript and "
               f"TypeScript sessions, so it is not run (put it back, e.g. `npm ci`, or a "
               f"person accepts it as it is now)")  # fmt: skip
        rec.strength = StrengthFacts.model_validate(
            {"step": role, "tree": rec.verified or "", "note": why, "below": True}
        )
        rec.problem = f"Session {self.s.number} {role.upper()}: {why}"
        rec.last_failure = why
        return O.NEEDS_PERSON

    def accept(self) -> None:
        """A person accepted the score as it is (at the escalation); or Stryker's program
        as it is now, which then measures the session."""
        from executor.strength import program

        now = program.pin(self.r.repo.root)
        if self.rec.stryker is not None and now != self.rec.stryker:
            self.rec.stryker, self.rec.strength = now, None
            self._say("Stryker's program accepted as it is now: the session is measured with it")
            return
        if self.rec.strength is not None:
            self.rec.strength.accepted = True
            self._say(f"test strength accepted as it is: {self.rec.strength.score}")

    # -- measuring -----------------------------------------------------------------------
    def _budget(self) -> int:
        """Seconds the step may take when `--mutation-budget` is not given: twice what
        verifying the session took (its test runs: the goal is no more than 2x them), at
        least 30, at most `DEFAULT_BUDGET`. A session whose tests behave otherwise in a
        copy of the tree (one that loops looking for the checkout) costs no more."""
        verified = [h.seconds for h in self.rec.history
                    if h.step.value.endswith("_verify") and h.outcome == "ok"]  # fmt: skip
        spent = verified[-1] if verified else DEFAULT_BUDGET
        return int(min(DEFAULT_BUDGET, max(MIN_BUDGET, 2 * spent)))

    def _measure(self, role: str, tree: str, budget: int, ahead: Ahead | None) -> StrengthFacts:
        facts = StrengthFacts.model_validate({"step": role, "tree": tree})
        tests = session_tests(self.rec)
        if ahead is not None:
            measured = ahead.take(tree, tests, budget)
            if measured is not None:
                facts.made = ahead.made
                self._say(f"{role.upper()}: {_plural_mutants(ahead.made)} of the changed lines, "
                          f"against the session's tests (budget {budget} s; started beside "
                          f"GREEN's verification)")  # fmt: skip
                return _facts(facts, measured)
        base = self.r.repo.tree_of(self.rec.base_commit or "HEAD")
        diff = [p for p in self.r.repo.tree_diff(base, tree) if not is_test_file(p)]
        scripts = [p for p in diff if _SCRIPT.search(p)]
        if scripts and not any(p.endswith(".py") for p in diff):
            command = self._cmd("green") or self._cmd("red") or self.r.suite_command or ""
            return self._measure_scripts(facts, base, tree, scripts, command, budget)
        job = mutation_job(self, facts, tree, float(budget), tests)
        if job is None:
            return facts
        self._say(f"{role.upper()}: {_plural_mutants(facts.made)} of the changed lines, against "
                  f"the session's tests (budget {budget} s)")  # fmt: skip
        assert self.r.measure is not None
        return _facts(facts, self.r.measure(job))

    def _measure_scripts(
        self,
        facts: StrengthFacts,
        base: str,
        tree: str,
        code: list[str],
        command: str,
        budget: int,
    ) -> StrengthFacts:
        """A JavaScript/TypeScript session: Stryker's mutants of its changed lines, where
        the project has Stryker (`executor.strength.stryker`)."""
        from executor.strength import stryker

        repo, rec = self.r.repo, self.rec
        if not rec.red.files:
            facts.note = "the session has no tests of its own (no RED)"
        elif not stryker.installed(repo.root):
            facts.note = (f"JavaScript/TypeScript mutants are made by Stryker, which this "
                          f"project does not have ({stryker.INSTALL})")  # fmt: skip
        elif not command:
            facts.note = "the session has no test command for Stryker to run"
        elif self.r.measure is None:
            facts.note = "no mutation runner here"
        if facts.note:
            return facts
        assert self.r.measure is not None
        changed = repo.changed_lines(base, tree, code)
        log = _mutants_log(self)
        self._say(f"{facts.step.upper()}: Stryker's mutants of the changed lines, against "
                  f"`{command}` (budget {budget} s)")  # fmt: skip
        job = Job([], lambda dest: repo.export_tree(tree, dest, repository=True), [],
                  session_tests(rec), [], float(budget), log, None, changed, command)  # fmt: skip
        measured = self.r.measure(job)
        facts.made = measured.made  # Stryker makes them: known once it has run
        return _facts(facts, measured)


def stryker_at_start(part: SessionPart) -> str | None:
    """Stryker's program as the session starts (`executor.strength.program.pin`), where
    a mutation step will run; None when none will."""
    if part.r.options.mutation_budget == 0:
        return None
    from executor.strength import program

    return program.pin(part.r.repo.root)


def mutation_job(
    part: SessionPart, facts: StrengthFacts, tree: str, budget: float, tests: SessionTests
) -> Job | None:
    """The mutation run of the Python lines the session changed up to `tree`, against
    `tests`; None when there is nothing to measure (`facts.note` says why). Sets
    `facts.made`."""
    from executor.strength.mutants import mutants_of
    from executor.strength.runner import pytest_prefix

    r, rec = part.r, part.rec
    base = r.repo.tree_of(rec.base_commit or "HEAD")
    code = [p for p in r.repo.tree_diff(base, tree)
            if p.endswith(".py") and not is_test_file(p)]  # fmt: skip
    command = part._cmd("green") or part._cmd("red") or r.suite_command or ""
    prefix = pytest_prefix(command)
    if not code:
        facts.note, facts.empty = "the session changed no Python code", True
    elif not tests.files:
        facts.note = "the session has no tests of its own (no RED)"
    elif prefix is None:
        facts.note = f"measured for pytest sessions only (`{command}`)"
    elif r.measure is None:
        facts.note = "no mutation runner here"
    if facts.note:
        return None
    assert prefix is not None
    mutants: list[Mutant] = []
    for path, lines in sorted(r.repo.changed_lines(base, tree, code).items()):
        blob = r.repo.blob_at(tree, path)
        if blob is not None:
            mutants += mutants_of(path, r.repo.blob(blob), lines)
    facts.made = len(mutants)
    if not mutants:
        facts.note, facts.empty = "no mutant can be made from the changed lines", True
        return None
    suite = pytest_prefix(r.suite_command or "")
    collect = _args(r.suite_command, suite) if suite == prefix else []
    env = rec.environment
    return Job(mutants, lambda dest: r.repo.export_tree(tree, dest, repository=True), prefix,
               tests, collect, budget, _mutants_log(part),
               interpreter(env) if env else None)  # fmt: skip


def start_ahead(part: SessionPart, tree: str) -> bool:
    """Start GREEN's mutation run of `tree` beside its verification, where a processor
    is spare and the step will measure (`executor.workflows.tdd.session.early_mutation`); whether it
    started. Its baseline runs RED's cases of the session's own tests (every test of its
    files when RED could not run them: a module not written yet); once verification has
    passed, the mutants run against the tests it passed (`Ahead.release`)."""
    from executor.workflows.tdd.session.early_mutation import Ahead, spare_processor

    r, rec = part.r, part.rec
    if r.ahead is not None:
        r.ahead.stop()
        r.ahead = None
    options = r.options
    if (options.mutation_budget == 0 or r.measure is None or r.state.run.lane is not None
            or not spare_processor()):  # fmt: skip
        return False
    if rec.strength is not None and rec.strength.tree == tree:
        return False  # measured already
    ids = None
    if rec.red.session:
        mine, failing = verdicts.matching(rec.red.session), set(rec.red.failing)
        ids = [i for i in dict.fromkeys([*rec.red.failing, *rec.red.passed])
               if mine(i) or i in failing] or None  # fmt: skip
    tests = SessionTests(files=list(rec.red.files), ids=ids)
    facts = StrengthFacts.model_validate({"step": "green", "tree": tree})
    budget = DEFAULT_BUDGET if options.mutation_budget is None else options.mutation_budget
    job = mutation_job(part, facts, tree, float(budget), tests)
    if job is None:
        return False
    assert r.measure is not None
    r.ahead = Ahead(tree, tests, job, r.measure)
    return True


def _mutants_log(part: SessionPart) -> Path:
    """Where a mutation run's output goes (beside the step's test logs)."""
    r, rec = part.r, part.rec
    logs = fsutil.ensure_private_dir(r.layout.logs, inside=r.layout.folder)
    return logs / f"s{part.s.number}.{rec.step.value}.a{rec.attempt}.mutants.tests.log"


def _plural_mutants(n: int) -> str:
    return f"{n} mutant" if n == 1 else f"{n} mutants"


#: JavaScript and TypeScript sources (`.js`, `.mjs`, `.cjs`, `.jsx`, `.ts`, `.mts`, ...)
_SCRIPT = re.compile(r"\.[cm]?[jt]sx?$")


def _args(command: str | None, prefix: list[str] | None) -> list[str]:
    """The arguments a pytest command gives after its `pytest` word (the suite's paths
    and options, collected with the session's test files)."""
    import shlex

    if not command or prefix is None:
        return []
    return shlex.split(command)[len(prefix) :]


def _facts(facts: StrengthFacts, measured: Measured) -> StrengthFacts:
    facts.killed, facts.total = measured.killed, measured.judged
    facts.by_suite, facts.timeouts = measured.by_suite, measured.timeouts
    facts.partial, facts.seconds = measured.partial, measured.seconds
    if measured.partial:
        facts.unrun = max(0, measured.made - measured.judged - measured.errors)
    facts.note = measured.problem
    facts.empty = not measured.made and not measured.problem  # Stryker made none
    if measured.unjudged and not facts.note:
        facts.note = (f"{_plural_mutants(measured.unjudged)} not judged: the tests that "
                      f"reach them fail without them too")  # fmt: skip
    facts.survivors = [
        SurvivorFact(file=s.mutant.path, line=s.mutant.line, operator=s.mutant.operator,
                     diff=f"`{s.mutant.before}` -> `{s.mutant.after}`", why=s.why)
        for s in measured.survivors[:SURVIVORS_KEPT]
    ]  # fmt: skip
    return facts


def strength_lines(rec: SessionRecord) -> list[str]:
    """What a checkpoint shows of the session's test strength: the figure, then each
    survivor as a one-line diff with its file:line."""
    facts = rec.strength
    if facts is None:
        return []
    lines = [facts.headline()]
    lines += [f"- {s.text()}" for s in facts.survivors[:20]]
    if len(facts.survivors) > 20 or facts.total - facts.killed > len(facts.survivors):
        lines.append(f"- ... {facts.total - facts.killed} survived in all")
    return lines


def strength_trailer(rec: SessionRecord) -> dict[str, str]:
    """`Mutation-Score: 14/17` (`14/17 (partial)`) for the session's commit."""
    facts = rec.strength
    if facts is None or not facts.total:
        return {}
    return {"Mutation-Score": facts.score + (" (partial)" if facts.partial else "")}
