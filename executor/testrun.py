"""Run a test command and measure the result ourselves: never trust an agent's numbers.

Counts, test ids and each test's file come from the runner's own report
(`executor.testreports`), never from the console text; a command no runner report is
read from is measured by its exit code only. Tests run in the project's environment
(`executor.projectenv`) with the plugins pinned for the run, and write no bytecode.
Output is read as it comes and only its head and tail kept, so a run printing a gigabyte
costs no more memory than a quiet one (docs/engine.md, "Seeing what runs").
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from executor import errors, projectenv
from executor.datamodel import Strict
from executor.projectenv import Interpreter
from executor.safe_read import parse_json, read_bounded, said
from executor.sandbox import Sandbox
from executor.testreports import Case, Outcome, RunnerName, prepare, read_report
from executor.testsummary import disagreement
from executor.words import plural

Verdict = Literal["red", "green", "empty"]

TAIL_CHARS = 4000
#: A runner's report larger than this is not read (a suite of 100,000 tests writes
#: about 30 MB of junit XML).
MAX_REPORT_BYTES = 64_000_000
#: Seconds a test run may take before it is killed, unless `--test-timeout` says more or
#: less: generous, so a real suite of tens of minutes passes; a hanging one still ends.
DEFAULT_TEST_TIMEOUT = 3600
#: The most of a test run's output its log holds as it arrives (then its end, as kept).
LOG_BYTES = 2 * 1024 * 1024

_COLLECTION_RE = re.compile(
    r"ERROR collecting|ImportError while (?:importing test module|loading conftest)"
)
_IMPORT_ERROR_RE = re.compile(r"(?:ModuleNotFoundError|ImportError): (?P<msg>[^\n]+)")
_EXC_PREFIX_RE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception): ")


class TestCase(Strict):
    """One test as the runner's report gave it."""

    __test__: ClassVar[bool] = False  # not a pytest test class

    #: pytest: "<classname>::<name>" ("tests.test_ledger::test_add[1-2]"); JS runners:
    #: "<file>::<suite > name>" (the name alone when the report gives no file).
    id: str
    outcome: Outcome
    message: str = ""
    #: The test's file relative to the run's folder (`tests/test_ledger.py`), when the
    #: report gives it or it can be derived: how the engine picks a session's tests out
    #: of a whole-suite run.
    file: str | None = None


class TestRun(Strict):
    """What the executor measured when it ran a test command."""

    __test__: ClassVar[bool] = False

    command: str
    exit_code: int
    duration_s: float
    collected: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    xfailed: int = 0
    xpassed: int = 0
    #: failed, then passed when run again on the same tree (`mark_flaky`): neither a
    #: failure nor a pass
    flaky: int = 0
    collection_error: bool = False
    #: True when counts come from the runner's report; False: exit code only.
    structured: bool = False
    #: The runner whose report was read (None: not a runner we read reports from).
    runner: RunnerName | None = None
    timed_out: bool = False
    #: The seconds the run was allowed (it was killed past them when `timed_out`).
    timeout_s: float = DEFAULT_TEST_TIMEOUT
    #: Seconds it got beyond `timeout_s` because the machine was busy (`busy_grace`).
    busy_s: float = 0.0
    cases: list[TestCase] = Field(default_factory=list)
    output_tail: str = ""
    #: Line coverage in percent, when asked for and pytest-cov is installed.
    coverage: float | None = None
    #: How the report disagrees with the runner's exit status or summary line
    #: (`executor.testsummary`): the run proves nothing, it is neither GREEN nor RED.
    disagreement: str | None = None

    @property
    def verdict(self) -> Verdict:
        """red: something fails (or timed out, or the report disagrees); green: exit 0,
        a test passed, nothing failed; empty: nothing ran (docs/plan-format.md)."""
        if self.timed_out or self.disagreement:
            return "red"  # did not pass; RED refuses it too (`verdicts.red_problem`)
        if not self.structured:
            return "green" if self.exit_code == 0 else "red"
        if self.failed or self.errors or self.collection_error:
            return "red"
        # pytest's "some tests failed" when every failure passed when run again
        if self.exit_code == 0 or (self.flaky and self.runner == "pytest" and self.exit_code == 1):
            return "green" if self.passed >= 1 else "empty"
        if self.runner == "pytest" and self.exit_code in (4, 5):
            return "empty"  # usage error (file not found) / no tests collected
        if self.runner != "pytest" and not self.cases:
            return "empty"  # no test files found / nothing ran
        return "red"

    def summary(self) -> str:
        """One line, e.g. "3 failed, 0 passed (collection error: No module named 'ledger')"."""
        if self.timed_out:
            busy = f"; {self.busy_s:g} s more as the machine was busy" if self.busy_s else ""
            return (
                f"timed out after {self.timeout_s + self.busy_s:g} s (killed; --test-timeout "
                f"sets the limit{busy}): `{self.command}`"
            )
        if not self.structured:
            return f"`{self.command}` exited {self.exit_code}"
        if self.disagreement:
            return f"the runner's report is not believed: {self.disagreement}"
        parts = [f"{self.failed} failed", f"{self.passed} passed"]
        if self.errors:
            parts.append(plural(self.errors, "error"))
        for n, word in (
            (self.skipped, "skipped"),
            (self.xfailed, "xfailed"),
            (self.xpassed, "xpassed"),
            (self.flaky, "flaky"),
        ):
            if n:
                parts.append(f"{n} {word}")
        line = ", ".join(parts)
        if self.collection_error:
            return f"{line} (collection error: {self.collection_message()})"
        if self.verdict == "empty":
            return f"{line} (no tests ran: {self._empty_reason()})"
        return line

    def mark_flaky(self, ids: set[str]) -> None:
        """The failing cases `ids` passed when run again on the same tree: "flaky"."""
        for case in self.cases:
            if case.id in ids and case.outcome in ("failed", "error"):
                if case.outcome == "failed":
                    self.failed -= 1
                else:
                    self.errors -= 1
                case.outcome = "flaky"
                self.flaky += 1

    def collection_message(self) -> str:
        """The import/collection error in a few words ("No module named 'ledger'")."""
        for case in self.cases:
            if case.outcome == "error" and case.message:
                found = _IMPORT_ERROR_RE.search(case.message)
                text = found["msg"] if found else case.message
                return _EXC_PREFIX_RE.sub("", text).strip()
        found = _IMPORT_ERROR_RE.search(self.output_tail)
        return found["msg"].strip() if found else "see the output"

    def _empty_reason(self) -> str:
        for line in self.output_tail.splitlines():
            if line.startswith("ERROR: "):
                return line[len("ERROR: ") :].strip()
        if self.collected and self.skipped + self.xfailed + self.xpassed >= self.collected:
            return "every test was skipped"
        return "no tests collected"


def run_tests(
    command: str,
    *,
    cwd: Path,
    timeout_s: float = DEFAULT_TEST_TIMEOUT,
    env: dict[str, str] | None = None,
    coverage: bool = False,
    on_line: Callable[[str], None] | None = None,
    sandbox: Sandbox | None = None,
    log: Path | None = None,
    interpreter: Interpreter | None = None,
    on_start: Callable[[int], None] | None = None,
    pass_fds: tuple[int, ...] = (),
    busy: bool = True,
) -> TestRun:
    """Run `command` in `cwd` and measure it. `env` is merged over os.environ.

    `interpreter`: the project's environment (default: `projectenv.find(cwd)`).
    `coverage`: for pytest, also measure line coverage (asked only when the environment
    has pytest-cov). `on_line`: each line of output as it comes. `sandbox`: run inside it
    (as is without a bubblewrap that works). `log`: the output's head and tail, written as
    it arrives. `on_start`: the run's pid (its process group) once it runs. `pass_fds`:
    descriptors it inherits. `busy`: the limit once more on a busy machine. A failing or
    hanging run is a result; an unparsable command raises UserError, a missing `cwd` or
    program PathNotFoundError.
    """
    argv = _split(command)
    cwd = Path(cwd)
    if not cwd.is_dir():
        raise errors.PathNotFoundError(f"test folder {cwd} does not exist", path=cwd)
    python = interpreter or projectenv.find(cwd)
    full_env = python.environ({**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})})
    with tempfile.TemporaryDirectory(prefix="executor-report-") as tmp:
        runner = prepare(argv, Path(tmp) / "report", python.python)
        cov_file = Path(tmp) / "coverage.json"
        run_argv = runner.argv if runner else argv
        if runner is not None and runner.name == "pytest" and python.plugins is not None:
            # the plugins there when the run was pinned, and no other (`executor.pinning`)
            full_env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
            run_argv = [*run_argv, *(arg for name in python.plugins for arg in ("-p", name))]
        if coverage and runner is not None and runner.name == "pytest":
            # named, so it loads where plugins do not load themselves
            # (PYTEST_DISABLE_PLUGIN_AUTOLOAD)
            run_argv = [*run_argv, "-p", "pytest_cov", "--cov", f"--cov-report=json:{cov_file}"]
            # coverage's own data file too: in the project it would be committed with
            # the session (or show as the person's edit)
            full_env["COVERAGE_FILE"] = str(Path(tmp) / ".coverage")
        if sandbox is not None:
            _must_exist(run_argv[0], command, cwd=cwd, env=full_env)
            run_argv = sandbox.wrap(run_argv)
        started = time.monotonic()
        code, output, timed_out, busy_s = _execute(
            run_argv,
            command,
            cwd=cwd,
            env={**full_env, **(runner.env if runner else {})},
            timeout=timeout_s,
            on_line=on_line,
            log=log,
            on_start=on_start,
            pass_fds=pass_fds,
            more_time=busy_grace(timeout_s) if busy else None,
        )
        percent = _coverage_percent(cov_file)
        duration = round(time.monotonic() - started, 3)
        text, unread = _report_text(runner.report if runner else None)
    notes = [f"[executor: the runner's report was not read: {unread}]"] if unread else []
    if busy_s:
        notes.append(f"[executor: past the {timeout_s:g} s limit on a busy machine: given "
                     f"{busy_s:g} s more]")  # fmt: skip
    if timed_out:
        notes.append(f"[executor: timed out after {timeout_s + busy_s:g} s; process killed]")
    tail = "\n".join([output, *notes])[-TAIL_CHARS:]
    run = TestRun(
        command=command,
        exit_code=code,
        duration_s=duration,
        structured=runner is not None,
        runner=runner.name if runner else None,
        timed_out=timed_out,
        timeout_s=timeout_s,
        busy_s=busy_s,
        output_tail=tail,
        coverage=percent,
    )
    if runner is not None:
        _count(run, read_report(runner, text, cwd=cwd, argv=argv, output=output))
        pytest_collection = _COLLECTION_RE.search(output) or "ModuleNotFoundError" in output
        if runner.name == "pytest" and code != 0 and pytest_collection:
            run.collection_error = True
        if unread:
            run.disagreement = f"it could not be read ({unread})"
        elif not timed_out:
            failing = run.failed + run.errors
            run.disagreement = disagreement(
                runner.name, exit_code=code, passed=run.passed, failing=failing, output=output
            )
    return run


def _split(command: str) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise errors.UserError(f"invalid test command {command!r}: {e}") from e
    if not argv:
        raise errors.UserError("the test command is empty")
    return argv


def _must_exist(program: str, command: str, *, cwd: Path, env: dict[str, str]) -> None:
    """PathNotFoundError unless `program` can be run: said before a sandbox would only
    report it as its own failure."""
    found = (
        (cwd / program).is_file() if "/" in program else shutil.which(program, path=env.get("PATH"))
    )
    if not found:
        raise errors.PathNotFoundError(
            f"cannot run the test command `{command}`: {program!r}: No such file or directory",
            path=Path(program),
        )


def _report_text(report: Path | None) -> tuple[str, str | None]:
    """The runner's report ("" when it wrote none), and why it was not read: code under
    test can reach its path, so anything but a regular file of at most MAX_REPORT_BYTES
    is left unread (never a wait, never a gigabyte in memory)."""
    if report is None:
        return "", None
    try:
        return read_bounded(report, MAX_REPORT_BYTES).decode("utf-8", errors="replace"), None
    except FileNotFoundError:
        return "", None
    except errors.DataError as e:
        return "", said(e)


def _coverage_percent(report: Path) -> float | None:
    """Total line coverage from pytest-cov's JSON report (None when there is none or it
    cannot be read the way every report is)."""
    try:
        data = parse_json(read_bounded(report, MAX_REPORT_BYTES))
        return round(float(data["totals"]["percent_covered"]), 1)
    except (OSError, ValueError, KeyError, TypeError):  # DataError is a ValueError
        return None


def _execute(
    argv: list[str],
    command: str,
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    on_line: Callable[[str], None] | None = None,
    log: Path | None = None,
    on_start: Callable[[int], None] | None = None,
    pass_fds: tuple[int, ...] = (),
    more_time: Callable[[], float] | None = None,
) -> tuple[int, str, bool, float]:
    """Run argv in its own process group (killed whole on timeout); its exit code, its
    output (the head and the tail of a long one: `executor.capture`), and whether it
    timed out. `on_line` gets each line of output as it comes (live progress); `log`
    the output as it arrives (docs/engine.md, "Seeing what runs")."""
    from executor.capture import end_transcript, run_captured, transcript, write_transcript

    with transcript(log, f"$ {command}\n# output as it came\n") as sink:
        try:
            done = run_captured(argv, cwd=cwd, env=env, timeout=timeout, merge=True,
                                sink=sink, sink_limit=LOG_BYTES, on_line=on_line,
                                on_start=on_start, pass_fds=pass_fds,
                                more_time=more_time)  # fmt: skip
        except (FileNotFoundError, PermissionError) as e:
            end_transcript(sink, f"cannot run it: {e.strerror or e}")
            raise errors.PathNotFoundError(
                f"cannot run the test command `{command}`: {argv[0]!r}: {e.strerror or e}",
                path=Path(argv[0]),
            ) from e
        if sink is not None and done.sink_cut:
            end = done.out.last(done.sink_cut)
            cut = f"\n# [... {done.sink_cut - len(end)} bytes of output left out; the last "
            write_transcript(sink, f"{cut}{len(end)} follow ...]\n".encode() + end)
        how = "killed at the time limit" if done.timed_out else f"exit {done.returncode}"
        end_transcript(sink, f"{how} after {done.seconds:.1f} s; {done.out.total} bytes of output")
    text = done.out.text()
    if done.left:
        text += (f"\n[executor: the test run left {len(done.left)} process(es) running outside "
                 f"its process group; they were killed]")  # fmt: skip
    return done.returncode, text, done.timed_out, done.extended


def busy_grace(limit: float) -> Callable[[], float]:
    """What a test run gets beyond `limit` when it reaches it: the limit once more while
    the machine is busy (its 1-minute load above its cores), else nothing. A suite of
    4 s took 30 s beside a busy CI run; killing it would block honest work."""

    def more() -> float:
        try:
            load = os.getloadavg()[0]
        except OSError:  # not measured here: the limit stands
            return 0.0
        return limit if load > (os.cpu_count() or 1) else 0.0

    return more


def _count(run: TestRun, cases: list[Case]) -> None:
    """Fill the run's counts and cases from a report's cases."""
    for case in cases:
        run.cases.append(
            TestCase(id=case.id, outcome=case.outcome, message=case.message, file=case.file)
        )
        if case.outcome == "passed":
            run.passed += 1
        elif case.outcome == "failed":
            run.failed += 1
        elif case.outcome == "xpassed":
            run.xpassed += 1
        elif case.outcome == "error":
            run.errors += 1
        elif case.outcome == "skipped":
            run.skipped += 1
        else:
            run.xfailed += 1
        if case.collection:
            run.collection_error = True
    run.collected = sum(1 for c in cases if not c.collection)
