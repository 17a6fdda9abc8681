"""A session's test runs: sealed, logged as they go, and read for a missing dependency."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from executor import fsutil
from executor.pinning import interpreter
from executor.workflows.tdd.record.session import Ran
from executor.workflows.tdd.session.checks.guard import Guard
from executor.workflows.tdd.session.context import LiveCount, SessionPart, SessionRun
from executor.workflows.tdd.step import Step
from executor.workflows.tdd.trust import verdicts

if TYPE_CHECKING:
    from executor.testrun import TestRun


class Runs(SessionPart):
    """Runs a test command in the project's environment, sealed, and records the run."""

    def __init__(self, run: SessionRun, guard: Guard) -> None:
        super().__init__(run)
        self.guard = guard

    def run(
        self, command: str | None, *, coverage: bool = False
    ) -> tuple[TestRun | None, list[str]]:
        """A sealed test run (`Guard.sealed_run`): the run, and what it tampered with."""
        if not command:
            return None, []
        env = self.rec.environment = self.r.pins.pinned.environment
        python = interpreter(env) if env is not None else None
        cover = coverage and env is not None and env.coverage
        label = f"[session {self.s.number}] running: {command}"
        log = self._log()
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

    def _log(self) -> Path:
        """Where this test run's output goes as it arrives: `s<N>.<step>.a<attempt>.t<k>
        .tests.log` in `.agent-logs/` (k counts this step's runs in this process)."""
        self.r.test_runs += 1
        logs = fsutil.ensure_private_dir(self.r.layout.logs, inside=self.r.layout.folder)
        step = self.rec.step.value
        return logs / f"s{self.s.number}.{step}.a{self.rec.attempt}.t{self.r.test_runs}.tests.log"

    def missing(self, tree: str, *runs: TestRun | None) -> str | None:
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


def ran_log(step: Step, attempt: int, run: TestRun, log: Path | None) -> Ran:
    """The record of one test run: its counts from the runner's report, its time, its log."""
    return Ran(
        step=step, attempt=attempt, command=run.command, seconds=round(run.duration_s, 3),
        verdict=run.verdict, summary=run.summary(), passed=run.passed, failed=run.failed,
        errors=run.errors, skipped=run.skipped, counted=run.structured,
        log=str(log) if log is not None else None,
    )  # fmt: skip
