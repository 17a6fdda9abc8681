"""Run a test command and measure the result ourselves: never trust an agent's numbers.

pytest commands (`pytest ...`, `py.test ...`, `python -m pytest ...`, also behind a
runner such as `uv run pytest ...`) get `--junitxml=<tmp>` and `-p no:cacheprovider`
appended; counts and test ids come from that XML, never from the console text. A bare
`pytest` / `python` / `python3` in front runs as `sys.executable -m pytest`, so the tests
run in the executor's own environment. Tests run with PYTHONDONTWRITEBYTECODE=1 (unless
the caller's env says otherwise) so no `__pycache__` appears in the repository.

Any other command is measured by its exit code only: `collected` stays 0, `structured`
is False and the verdict is green on exit 0, red otherwise.

Verdicts for pytest (see `TestRun.verdict`):
  red    something that exists fails: failed or erroring tests, or a collection error
         (e.g. `ModuleNotFoundError` for the module the tests import), or a timeout;
  green  exit 0, at least one test passed, nothing failed or errored;
  empty  nothing ran: no tests collected, the test file does not exist (pytest exit 4/5),
         or everything was skipped.
A strict-xfail test that passes (XPASS(strict)) fails the run, as pytest says: its case
is "xpassed" and counted in `failed`. A non-strict XPASS is reported by pytest's junit
XML as a plain pass and is counted as passed.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from executor import errors

Outcome = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed"]
Verdict = Literal["red", "green", "empty"]

TAIL_CHARS = 4000

_PYTEST_NAMES = {"pytest", "py.test"}
_PYTHON_RE = re.compile(r"^python(\d+(\.\d+)*)?(\.exe)?$")
_COLLECTION_RE = re.compile(
    r"ERROR collecting|ImportError while (?:importing test module|loading conftest)"
)
_IMPORT_ERROR_RE = re.compile(r"(?:ModuleNotFoundError|ImportError): (?P<msg>[^\n]+)")
_EXC_PREFIX_RE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception): ")
#: How pytest's junit XML marks an XPASS(strict): pytest 8/9 as a failure whose message
#: starts with "[XPASS(strict)]", older ones as a skip with this message.
_XPASS_STRICT = "xfail-marked test passes unexpectedly"


class TestCase(BaseModel):
    """One test as pytest's junit XML reported it."""

    __test__: ClassVar[bool] = False  # not a pytest test class
    model_config = ConfigDict(extra="forbid")

    id: str  # "<classname>::<name>", e.g. "tests.test_ledger::test_add[1-2]"
    outcome: Outcome
    message: str = ""


class TestRun(BaseModel):
    """What the executor measured when it ran a test command."""

    __test__: ClassVar[bool] = False
    model_config = ConfigDict(extra="forbid")

    command: str
    exit_code: int
    duration_s: float
    collected: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    xfailed: int = 0
    collection_error: bool = False
    #: True when counts come from pytest's junit XML; False: exit code only.
    structured: bool = False
    timed_out: bool = False
    cases: list[TestCase] = []
    output_tail: str = ""

    @property
    def verdict(self) -> Verdict:
        if self.timed_out:
            return "red"
        if not self.structured:
            return "green" if self.exit_code == 0 else "red"
        if self.failed or self.errors or self.collection_error:
            return "red"
        if self.exit_code == 0:
            return "green" if self.passed >= 1 else "empty"
        if self.exit_code in (4, 5):  # usage error (file not found) / no tests collected
            return "empty"
        return "red"

    def summary(self) -> str:
        """One line, e.g. "3 failed, 0 passed (collection error: No module named 'ledger')"."""
        if self.timed_out:
            return f"timed out after {self.duration_s:.0f} s (killed): `{self.command}`"
        if not self.structured:
            return f"`{self.command}` exited {self.exit_code}"
        parts = [f"{self.failed} failed", f"{self.passed} passed"]
        for n, word in ((self.errors, "errors"), (self.skipped, "skipped")):
            if n:
                parts.append(f"{n} {word}")
        if self.xfailed:
            parts.append(f"{self.xfailed} xfailed")
        line = ", ".join(parts)
        if self.collection_error:
            return f"{line} (collection error: {self.collection_message()})"
        if self.verdict == "empty":
            return f"{line} (no tests ran: {self._empty_reason()})"
        return line

    def collection_message(self) -> str:
        """The import/collection error in a few words ("No module named 'ledger'")."""
        for case in self.cases:
            if case.outcome == "error" and case.message:
                found = _IMPORT_ERROR_RE.search(case.message)
                text = found["msg"] if found else case.message
                return _EXC_PREFIX_RE.sub("", text).strip()
        found = _IMPORT_ERROR_RE.search(self.output_tail)
        return found["msg"].strip() if found else "see the output"

    def failing_ids(self) -> list[str]:
        return [c.id for c in self.cases if c.outcome in ("failed", "error", "xpassed")]

    def _empty_reason(self) -> str:
        for line in self.output_tail.splitlines():
            if line.startswith("ERROR: "):
                return line[len("ERROR: ") :].strip()
        if self.collected and self.skipped + self.xfailed >= self.collected:
            return "every test was skipped"
        return "no tests collected"


def run_tests(
    command: str,
    *,
    cwd: Path,
    timeout_s: float = 600,
    env: dict[str, str] | None = None,
) -> TestRun:
    """Run `command` in `cwd` and measure it. `env` is merged over os.environ.

    Raises UserError for an unparsable command and PathNotFoundError when `cwd` or the
    program does not exist; a failing or hanging test run is a result, not an error.
    """
    argv = _split(command)
    cwd = Path(cwd)
    if not cwd.is_dir():
        raise errors.PathNotFoundError(f"test folder {cwd} does not exist", path=cwd)
    pytest_argv = _as_pytest(argv)
    full_env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    with tempfile.TemporaryDirectory(prefix="executor-junit-") as tmp:
        junit = Path(tmp) / "junit.xml"
        if pytest_argv is not None:
            argv = [*pytest_argv, f"--junitxml={junit}", "-p", "no:cacheprovider"]
        started = time.monotonic()
        code, output, timed_out = _execute(argv, command, cwd=cwd, env=full_env, timeout=timeout_s)
        duration = round(time.monotonic() - started, 3)
        xml_text = junit.read_text(encoding="utf-8") if junit.is_file() else ""
    tail = output[-TAIL_CHARS:]
    if timed_out:
        tail = (tail + f"\n[executor: timed out after {timeout_s:g} s; process killed]")[
            -TAIL_CHARS:
        ]
    run = TestRun(
        command=command,
        exit_code=code,
        duration_s=duration,
        structured=pytest_argv is not None,
        timed_out=timed_out,
        output_tail=tail,
    )
    if pytest_argv is not None:
        _apply_junit(run, xml_text)
        if code != 0 and (_COLLECTION_RE.search(output) or "ModuleNotFoundError" in output):
            run.collection_error = True
    return run


def _split(command: str) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise errors.UserError(f"invalid test command {command!r}: {e}") from e
    if not argv:
        raise errors.UserError("the test command is empty")
    return argv


def _as_pytest(argv: list[str]) -> list[str] | None:
    """The argv to run when `argv` runs pytest (bare names resolved), else None."""
    for i, token in enumerate(argv):
        name = Path(token).name
        is_module = token == "-m" and i + 1 < len(argv) and argv[i + 1] == "pytest"
        if name not in _PYTEST_NAMES and not is_module:
            continue
        if i == 0 and token in _PYTEST_NAMES:
            return [sys.executable, "-m", "pytest", *argv[1:]]
        if i == 1 and is_module and _PYTHON_RE.match(argv[0]):
            return [sys.executable, *argv[1:]]
        return list(argv)
    return None


def _execute(
    argv: list[str], command: str, *, cwd: Path, env: dict[str, str], timeout: float
) -> tuple[int, str, bool]:
    """Run argv in its own process group; kill the whole group on timeout."""
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except (FileNotFoundError, PermissionError) as e:
        raise errors.PathNotFoundError(
            f"cannot run the test command `{command}`: {argv[0]!r}: {e.strerror or e}",
            path=Path(argv[0]),
        ) from e
    timed_out = False
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        out, _ = proc.communicate()
    except BaseException:  # Ctrl+C / SIGTERM: leave no orphan test process behind
        _kill_group(proc)
        proc.wait()
        raise
    return proc.returncode, out.decode("utf-8", errors="replace"), timed_out


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _apply_junit(run: TestRun, xml_text: str) -> None:
    """Fill counts and cases from pytest's junit XML (absent or unreadable: all zero)."""
    if not xml_text.strip():
        return
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError:
        return
    for element in root.iter("testcase"):
        case = _case(element)
        run.cases.append(case)
        if case.outcome == "passed":
            run.passed += 1
        elif case.outcome in ("failed", "xpassed"):
            run.failed += 1
        elif case.outcome == "error":
            run.errors += 1
            if _is_collection_error(element):
                run.collection_error = True
        elif case.outcome == "skipped":
            run.skipped += 1
        else:
            run.xfailed += 1
    run.collected = sum(1 for c in run.cases if not _is_collection_id(c))


def _case(element: ET.Element) -> TestCase:
    classname = element.get("classname", "")
    name = element.get("name", "")
    case_id = f"{classname}::{name}" if classname else name
    outcome: Outcome = "passed"
    detail: ET.Element | None = None
    if (detail := element.find("failure")) is not None:
        xpass = (detail.get("message") or "").startswith("[XPASS(strict)]")
        outcome = "xpassed" if xpass else "failed"
    elif (detail := element.find("error")) is not None:
        outcome = "error"
    elif (detail := element.find("skipped")) is not None:
        if detail.get("type") == "pytest.xfail":
            outcome = "xfailed"
        elif detail.get("message") == _XPASS_STRICT:
            outcome = "xpassed"
        else:
            outcome = "skipped"
    return TestCase(id=case_id, outcome=outcome, message=_message(detail))


def _message(detail: ET.Element | None) -> str:
    """pytest's crash message; for a collection failure, the traceback's last `E` line."""
    if detail is None:
        return ""
    message = (detail.get("message") or "").strip()
    if message and message != "collection failure":
        return message[:500]
    e_lines = [ln[1:].strip() for ln in (detail.text or "").splitlines() if ln.startswith("E ")]
    return (e_lines[-1] if e_lines else message)[:500]


def _is_collection_error(element: ET.Element) -> bool:
    error = element.find("error")
    return error is not None and error.get("message") == "collection failure"


def _is_collection_id(case: TestCase) -> bool:
    return "::" not in case.id and case.outcome == "error"
