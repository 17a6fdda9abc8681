"""How a run's sessions run tests: the command mapped by `[tool.executor]`, inside the
sandbox, and in a lane taking turns on the machine's cores with the other lanes."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from executor.project_config import ProjectConfig, map_test_command
from executor.words import plural

if TYPE_CHECKING:
    from executor.projectenv import Interpreter
    from executor.runoptions import RunOptions
    from executor.sandbox import Sandbox
    from executor.strength.job import Job
    from executor.strength.runner import Measured
    from executor.testrun import TestRun
    from executor.vcs import GitRepo
    from executor.workflows.tdd.record.lanes import LaneLink
    from executor.workflows.tdd.runner.opening import RunRequest

Turn = Callable[[], contextlib.AbstractContextManager[None]]


def make_run_tests(
    req: RunRequest,
    options: RunOptions,
    repo: GitRepo,
    config: ProjectConfig,
    sandbox: Sandbox | None,
    turn: Turn,
) -> Callable[[str, bool, Callable[[str], None] | None, Path | None, Interpreter | None], TestRun]:
    """What a session calls to run a test command (`req.run_tests` stands in for it)."""

    def run_tests(
        command: str,
        coverage: bool,
        on_line: Callable[[str], None] | None,
        log: Path | None = None,
        interpreter: Interpreter | None = None,
    ) -> TestRun:
        command = map_test_command(command, config)  # [tool.executor] test_command_map
        if req.run_tests is not None:
            return req.run_tests(command, repo.root)
        from executor.testrun import DEFAULT_TEST_TIMEOUT
        from executor.testrun import run_tests as _run_tests

        limit = options.test_timeout or DEFAULT_TEST_TIMEOUT
        with turn():
            return _run_tests(
                command, cwd=repo.root, timeout_s=limit, coverage=coverage,
                on_line=on_line, sandbox=sandbox, log=log, interpreter=interpreter,
            )  # fmt: skip

    return run_tests


def make_measure(
    repo: GitRepo, config: ProjectConfig, sandbox: Sandbox | None, turn: Turn
) -> Callable[[Job], Measured]:
    """What a session calls to measure its tests' strength (mutants, or Stryker)."""

    def measure(job: Job) -> Measured:
        from executor.strength.runner import measure as run_mutants
        from executor.testrun import run_tests as _run_tests

        def run_in(
            command: str,
            cwd: Path,
            limit: float,
            env: dict[str, str],
            log: Path | None,
            fds: tuple[int, ...],
        ) -> TestRun:
            # `limit` is the person's mutation budget: no more time on a busy machine
            with turn():
                return _run_tests(map_test_command(command, config), cwd=cwd,
                                  timeout_s=limit, env=env, sandbox=sandbox, log=log,
                                  interpreter=job.interpreter, on_start=job.on_start,
                                  pass_fds=fds, busy=False)  # fmt: skip

        if job.stryker is not None:
            from executor.strength import stryker

            return stryker.measure(
                job.stryker, root=repo.root, export=job.export, run=run_in,
                test_command=map_test_command(job.command, config), budget=job.budget,
                log=job.log,
            )  # fmt: skip
        return run_mutants(
            job.mutants, export=job.export, run=run_in, prefix=job.prefix,
            test_files=job.tests.files, test_ids=job.tests.ids, collect=job.collect,
            budget=job.budget, log=job.log, hold=job.hold,
        )  # fmt: skip

    return measure


def core_turns(repo: GitRepo, link: LaneLink | None, report: Callable[[str], None]) -> Turn:
    """A lane's test runs take turns on the machine's cores with the other lanes' and
    the integration's (`executor.cores`); elsewhere they run at once."""
    from executor import cores

    slots = cores.limit() if link is not None else 0
    if link is None or not slots:
        return contextlib.nullcontext
    common, number = repo.common_dir(), link.session
    said = f"[session {number}] waiting for a core: {plural(slots, 'test run')} of this run"

    def turn() -> contextlib.AbstractContextManager[None]:
        return cores.core(common, slots, mark=cores.waiting_mark(common, number),
                          waits=lambda: report(said + " under way"))  # fmt: skip

    return turn
