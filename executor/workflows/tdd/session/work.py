"""The work handlers of the TDD session workflow (`executor.workflows.tdd.table` is its
table; the human gates are `executor.workflows.tdd.session.gates`).

Each handler does one step's work on the session's record and returns an `Outcome`;
it never picks the next step and never saves (the driver does both). Test results are
measured by running the tests here; nothing an agent reports is trusted.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from executor import faults, fsutil
from executor.engine.agents import (
    DEFAULT_AGENT_TIMEOUT,
    MESSAGE_CHARS,
    AgentCall,
    AgentResult,
    BridgeAgents,
    Waiting,
)
from executor.engine.machine import Outcome
from executor.errors import DirtyWorktreeError, UserError, VerificationFailedError
from executor.pinning import interpreter
from executor.stamps import utc_now as now
from executor.testreports import runs_python
from executor.words import plural
from executor.workflows.tdd.record.commit import (
    commit_message,
    commit_subject,
    person_trailer,
    trailers,
    unchecked_trailer,
)
from executor.workflows.tdd.record.counts import counted
from executor.workflows.tdd.record.session import AgentCall as AgentCallLog
from executor.workflows.tdd.record.session import Ran
from executor.workflows.tdd.session import budget
from executor.workflows.tdd.session.brief import digest, render_brief, usage_line
from executor.workflows.tdd.session.checks.flaky import Flaky, flaky_note
from executor.workflows.tdd.session.checks.guard import Guard
from executor.workflows.tdd.session.checks.losses import Losses
from executor.workflows.tdd.session.checks.pins import PinJudge
from executor.workflows.tdd.session.checks.put_back import note_settings
from executor.workflows.tdd.session.checks.strength import (
    session_tests,
    start_ahead,
    strength_trailer,
    stryker_at_start,
)
from executor.workflows.tdd.session.context import LiveCount, SessionPart, agent_for
from executor.workflows.tdd.session.hooks import find_hooks
from executor.workflows.tdd.step import Step
from executor.workflows.tdd.trust import tampering, verdicts
from executor.workflows.tdd.trust.testfiles import is_test_file

if TYPE_CHECKING:
    from executor.testrun import TestCase, TestRun

O = Outcome  # noqa: E741 - the handlers read better with one letter


class Work(SessionPart):
    """The work steps of one session (`executor.workflows.tdd.table` names them)."""

    flaky: Flaky
    pins: PinJudge
    guard: Guard
    losses: Losses

    def red_agent(self) -> Outcome:
        return self.agent_step("red")

    def green_agent(self) -> Outcome:
        return self.agent_step("green")

    def refactor_agent(self) -> Outcome:
        return self.agent_step("refactor")

    def green_verify(self) -> Outcome:
        return self.pass_verify("green")

    def refactor_verify(self) -> Outcome:
        return self.pass_verify("refactor")

    # -- helpers ------------------------------------------------------------------------
    def start(self) -> Outcome:
        """Dependencies complete and a clean worktree; record where the session starts."""
        left_out = {o.number for o in self.r.plan.outline() if o.left_out}
        missing = [
            d for d in self.s.dependencies if d not in left_out and not self.r.state.complete(d)
        ]
        if missing:
            self.rec.blocked_reason = (
                "waiting for session(s) " + ", ".join(map(str, missing)) + " to complete"
            )
            return O.BLOCKED
        dirty = self.r.repo.dirty_files(ignore=self._ignore())
        if dirty:
            shown = "\n  ".join(dirty[:20]) + ("\n  ..." if len(dirty) > 20 else "")
            raise DirtyWorktreeError(
                f"session {self.s.number} must start from a clean worktree so its commit holds "
                f"only its own changes; commit them, or put them aside with `git stash -u` "
                f"(`-u`: untracked files too), first (nothing was touched):"
                f"\n  {shown}",
                files=dirty,
            )
        if not (self._cmd("green") or self._cmd("red") or self.r.suite_command):
            raise UserError(
                f"session {self.s.number} has no test command: its plan section names none "
                f"and the project has none, so nothing could verify it. Give one with "
                f"--test-command, or test_command in [tool.executor] (pyproject.toml) or "
                f".executor.toml (`executor docs plan-format`). Nothing was touched."
            )
        self.r.repo.ensure_identity()
        head = self.r.repo.head()
        self.rec.blocked_reason = None
        if self.s.claimed_done:
            doubt = self._prove_claim()
            if not doubt:
                self.rec.adopted = True
                self.rec.commit_hash = self.rec.head = head
                self.rec.started_at = self.rec.completed_at = now()
                self._say("ticked as done in the plan, and its tests pass here: adopted")
                return O.ADOPT
            self._say(f"ticked as done in the plan, but {doubt}: running it")
        self.rec.base_commit = self.rec.head = head
        self.rec.hooks, note = find_hooks(self.r.repo, head)
        if note and not self.r.options.no_verify:
            self._say(note)
        self.rec.ignored = self.r.repo.ignored_entries(ignore=self._ignore())
        self.rec.outside = tampering.outside_config(self.r.repo.root)
        self.rec.flags = self.r.repo.index_flags()
        self.r.pins.pinned.used = True  # saved with the session's start, before any agent
        env = self.rec.environment = self.r.pins.pinned.environment
        if env is not None and runs_python(self.commands()):  # a Node suite's is no news
            self._say(f"tests run with {env.python} ({env.source})")
        self.rec.stryker = stryker_at_start(self)
        self._keep_flagged_changes(head)
        tests = [f for f in self.r.repo.paths_in(head) if is_test_file(f)]
        self.rec.base_tests = verdicts.test_fingerprints(self.r.repo.root, tests)
        self.rec.base_infra = self.guard.infra_now([])  # before RED acts, as the tests are
        self.rec.branch = self.r.repo.branch()
        self.rec.source_hash = self.s.source_hash
        self.rec.started_at = now()
        return O.OK

    def _keep_flagged_changes(self, head: str) -> None:
        """Files the person's index marks assume-unchanged or skip-worktree, changed on
        disk: `git status` shows them clean, but they are the person's, not the session's:
        kept out of its commit and put back if anything else writes them."""
        if not self.rec.flags:
            return
        repo = self.r.repo
        now = repo.record_tree(exclude=self._ignore()).tree
        hidden = [p for p in repo.tree_diff(repo.tree_of(head), now) if p in self.rec.flags]
        if hidden:
            self.rec.excluded = sorted({*self.rec.excluded, *hidden})
            self.rec.kept.update(repo.blobs_of(hidden))
            self._say(f"kept out of the session: {verdicts.describe(hidden)} (your index "
                      f"marks them unchanged; they are yours)")  # fmt: skip

    # -- checkpoints --------------------------------------------------------------------
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

    def _prove_claim(self) -> str:
        """Why a session the plan ticks as done is not (""): its files must exist and
        its tests, run here at HEAD, must pass."""
        missing = [f.path for f in self.s.files if not (self.r.repo.root / f.path).exists()]
        if missing:
            return f"{verdicts.describe(missing)} do(es) not exist"
        command = self._cmd("green") or self._cmd("red")
        run, tampered = self._run(command)
        if run is None:
            return "no test command is known to prove it"
        if tampered:
            return "; ".join(tampered)
        if run.verdict != "green":
            return f"its tests do not pass ({run.summary()})"
        return ""

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

    # -- verification ---------------------------------------------------------------------
    def _run(
        self, command: str | None, *, coverage: bool = False
    ) -> tuple[TestRun | None, list[str]]:
        """A sealed test run (`Guard.sealed_run`): the run, and what it tampered with."""
        if not command:
            return None, []
        env = self.rec.environment = self.r.pins.pinned.environment
        python = interpreter(env) if env is not None else None
        cover = coverage and env is not None and env.coverage
        label = f"[session {self.s.number}] running: {command}"
        log = self._test_log()
        if self.r.activity is None:
            self.r.report(label)
            run, tampered = self.guard.sealed_run(
                lambda: self.r.run_tests(command, cover, None, log, python)
            )
            self._say(f"  {run.summary()}")
        else:
            act = self.r.activity(label)
            run, tampered = self.guard.sealed_run(
                lambda: self.r.run_tests(command, cover, LiveCount(act), log, python)
            )
            act.close(run.summary())
        self.rec.add_run(ran_log(self.rec.step, self.rec.attempt, run, log))
        return run, tampered

    def _test_log(self) -> Path:
        """Where this test run's output goes as it arrives: `s<N>.<step>.a<attempt>.t<k>
        .tests.log` in `.agent-logs/` (k counts this step's runs in this process)."""
        self.r.test_runs += 1
        logs = fsutil.ensure_private_dir(self.r.layout.logs, inside=self.r.layout.folder)
        step = self.rec.step.value
        return logs / f"s{self.s.number}.{step}.a{self.rec.attempt}.t{self.r.test_runs}.tests.log"

    def red_verify(self) -> Outcome:
        tree = self.r.repo.record_tree(exclude=self._ignore()).tree
        root, repo = self.r.repo.root, self.r.repo
        paths = repo.paths_in(tree)
        tests = verdicts.test_fingerprints(root, [f for f in paths if is_test_file(f)])
        session = verdicts.session_keys(self.rec.base_tests, tests)
        run, tampered = self._run(self._cmd("red"))
        more, flaky = self.flaky.rerun_untouched([run], self._run, session)
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
        suite_run, tampered = self._run(suite, coverage=role == "green")
        session_run = None
        if suite_run is None or not verdicts.collects(suite_run, self.rec.red):
            if suite_run is not None and any("::" in c.id for c in suite_run.cases):
                self._say("  the suite does not collect this session's tests; running them too")
            elif suite_run is not None:  # a Node whose test events name no file
                self._say("  the suite's report does not say which file each test is in: "
                          "running this session's tests on their own too")  # fmt: skip
            session_run, more = self._run(command)
            tampered += more
        more, self.r.flaky_now = self.flaky.rerun_untouched(
            [suite_run, session_run], self._run, None
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
            return self.red_verify()  # a session that only writes failing tests: still RED
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
        missing = self._missing(tree, session_run, suite_run)
        if missing is not None:  # no agent attempt can install it: a person does
            self.rec.problem = f"Session {self.s.number} {role.upper()}: {missing}"
            return O.FAILED
        if self.rec.retries < self.r.options.max_retries:
            self.rec.retries += 1
            self.rec.attempt += 1
            self._say(
                f"{role.upper()} not verified ({failure}); automatic retry "
                f"{self.rec.retries}/{self.r.options.max_retries} with the failure output"
            )
            return O.RETRY
        self.rec.problem = (
            f"Session {self.s.number} {role.upper()} could not be verified after "
            f"{plural(self.r.options.max_retries, 'automatic retry', 'automatic retries')}: "
            f"{failure}"
        )
        return O.FAILED

    def _missing(self, tree: str, *runs: TestRun | None) -> str | None:
        """Why a failing run is a dependency missing from the environment the tests ran
        in, as RED says it (`verdicts.red_problem`); None when it is not."""
        project = [*self.r.repo.paths_in(tree), *(f.path for f in self.s.files)]
        env = self.rec.environment
        for run in runs:
            if run is None or run.verdict != "red":
                continue
            missing = verdicts.missing_dependency(run, project)
            if missing is not None:
                where = f"{env.python} ({env.source})" if env else "the project's environment"
                return (
                    f"the tests cannot import {missing!r}, which is no part of the project "
                    f"and is not installed in {where}: a dependency is missing, not the "
                    f"agent's failure. Install it there, then check again (no agent call)"
                )
        return None

    def evidence(self) -> Outcome:
        """Every file the plan lists is in the tested tree and changed by the session (one
        it says goes: gone)."""
        repo, tree = self.r.repo, self.rec.verified or self.rec.tree
        changed = set(repo.tree_diff(repo.tree_of(self.rec.base_commit or "HEAD"), tree))
        gone = [f.path for f in self.s.files if verdicts.says_gone(f.note)]
        problems = verdicts.evidence_problems(
            [f.path for f in self.s.files], changed, set(repo.paths_in(tree)), gone=gone
        )
        if problems:
            failure = "evidence check failed: " + "; ".join(problems)
            self.rec.last_failure = failure
            self.rec.errors.append(failure)
            self.rec.feedback.append(failure)
            self.rec.problem = f"Session {self.s.number} {failure}"
            return O.FAILED
        self.rec.files_modified = sorted(changed)
        return O.OK

    def commit(self) -> Outcome:
        marks = trailers(self.r.plan, self.s, self.r.state.run.run_id)
        base = self.rec.base_commit or "HEAD"
        sha = self.r.repo.find_commit_by_trailers(marks, since=base)
        if sha:
            self._say(f"adopting commit {sha[:12]} made before an interruption")
        else:
            sha = self._commit_tested(marks)
        self.rec.commit_hash = self.rec.head = sha
        self.rec.branch = self.r.repo.branch()
        self.rec.completed_at = now()
        self._say(f"committed {sha[:12]}: {commit_subject(self.r.plan, self.s)}")
        for check in self.rec.unchecked:
            self._say(f"not verified: a person's check: {check}")
        return O.OK

    def _commit_tested(self, marks: dict[str, str]) -> str:
        """Commit the tree the last verification tested, with the plan's boxes ticked;
        refused when anything else changed since that verification."""
        repo = self.r.repo
        ticked = self._tick()
        recorded = repo.record_tree(exclude=self._ignore())
        tested = self.rec.verified or self.rec.tree
        diff = repo.tree_diff(tested, recorded.tree)
        # the plan's ticks (this time, or by a run that stopped before its commit)
        ticks = tampering.plan_paths(Path(self.r.state.run.plan), repo.root, diff)
        since = [p for p in diff if p not in ticks]
        if since or recorded.problems:
            why = "; ".join(recorded.problems) or f"changed since: {verdicts.describe(since)}"
            raise VerificationFailedError(
                f"session {self.s.number} is not committed: the worktree is not what its "
                f"tests ran against ({why}). Nothing was committed; run the same command "
                f"again to verify it anew."
            )
        if self.s.is_checkpoint and repo.tree_of(repo.head()) == recorded.tree:
            self._say("checkpoint confirmed; the plan has no box to tick: nothing to commit")
            return repo.head()
        message = commit_message(self.r.plan, self.s, self.rec, self._cmd("green"))
        marks = {**marks, **strength_trailer(self.rec), **unchecked_trailer(self.rec.unchecked),
                 **person_trailer(self.rec.person_edited)}  # fmt: skip
        sha = repo.commit_session(recorded.tree, message, trailers=marks, flags=self.rec.flags)
        faults.hit("git.committed")
        if ticked:
            self._say(f"ticked the session's boxes in {verdicts.describe(ticked)}")
        return sha

    def _tick(self) -> list[str]:
        """Mark this session done in the plan, in the format's own way (boxes, a Task
        Master status), in the session's own commit, so the plan stays a true ledger."""
        from executor.plan.ticks import apply_edits, tick_session

        return [str(p.relative_to(self.r.repo.root)) for p in apply_edits(tick_session(self.s))
                if p.is_relative_to(self.r.repo.root)]  # fmt: skip

    # -- when something failed --------------------------------------------------------------
    def rollback(self) -> Outcome:
        """Back to the session's base commit, after a backup of everything. Refused when
        it would drop a commit that is pushed, a merge, or not this session's own."""
        base = self.rec.base_commit
        if base is None:
            return O.SKIP if self.rec.after_rollback == "skip" else O.OK
        refused = self.rollback_refusal()  # checked when asked; git may have moved
        if refused is not None:
            raise refused
        # a file git ignored when the session started is the person's, even when a step
        # made git see it since (an agent that rewrote .gitignore): it is never removed
        ignored = tuple(self.rec.ignored or ())
        paths = [p for p in self.session_paths() if not _under_any(p, ignored)]
        backup = self.r.repo.roll_back(base, paths, flags=self.rec.flags)
        self.r.rolled_back = (backup, base)
        return O.SKIP if self.rec.after_rollback == "skip" else O.OK


def progress_header(number: int, position: tuple[int, int], role: str, attempt: int) -> str:
    """`-- session 2 of 5, GREEN, attempt 1 --`: where a long run is (the session's place in
    the run when its number in the plan is another)."""
    place, total = position
    where = f"session {number} of {total}" if number == place else (
        f"session {number} ({place} of {total})")  # fmt: skip
    return f"-- {where}, {role.upper()}, attempt {attempt} --"


def ran_log(step: Step, attempt: int, run: TestRun, log: Path | None) -> Ran:
    """The record of one test run: its counts from the runner's report, its time, its log."""
    return Ran(
        step=step, attempt=attempt, command=run.command, seconds=round(run.duration_s, 3),
        verdict=run.verdict, summary=run.summary(), passed=run.passed, failed=run.failed,
        errors=run.errors, skipped=run.skipped, counted=run.structured,
        log=str(log) if log is not None else None,
    )  # fmt: skip


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


def _under_any(path: str, entries: tuple[str, ...]) -> bool:
    """Whether `path` is one of `entries` (files, and `folder/`s holding everything under
    them), as `git ls-files --ignored --directory` lists them."""
    return any(path == e or (e.endswith("/") and path.startswith(e)) for e in entries)
