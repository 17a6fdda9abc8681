"""Structured results from test runners: how each one is asked for a report, and how the
report is read into test cases (id, outcome, message, file).

pytest, `node --test`, vitest and jest, each with what it is given and why
(docs/plan-format.md, "Test runners"): every case must name its file, so the engine can
pick a session's tests out of a whole-suite run; where a runner's own report names none
(Node's junit reporter), the executor brings its reporter (`node_reporter.mjs`).
"""

from __future__ import annotations

import base64
import json
import re
import shlex
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

RunnerName = Literal["pytest", "node", "vitest", "jest"]
#: What the runner reported of a test; "flaky" is the executor's: it failed, then passed
#: when run again on the same tree (`executor.testrun.TestRun.mark_flaky`).
Outcome = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed", "flaky"]

_PYTEST_NAMES = {"pytest", "py.test"}
#: Names a shell finds on PATH that mean "the environment's Python" (a versioned one,
#: `python3.12`, or a path is run as written: the person chose it).
_BARE_PYTHONS = {"python", "python3"}
_VITEST_COMMANDS = {"run", "watch", "dev", "related", "bench", "list", "init"}
_TEST_FILE_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")
#: How pytest's junit XML marks an XPASS(strict): pytest 8/9 as a failure whose message
#: starts with "[XPASS(strict)]", older ones as a skip with this message.
_XPASS_STRICT = "xfail-marked test passes unexpectedly"
#: pytest's report characters when a command gives none.
_REPORT_CHARS = "fE"


@dataclass
class Case:
    """One test as a report gave it (`executor.testrun.TestCase` is the record)."""

    id: str
    outcome: Outcome
    message: str = ""
    file: str | None = None
    collection: bool = False


@dataclass
class Runner:
    """A command rewritten to write a report to `report`."""

    name: RunnerName
    argv: list[str]
    report: Path
    env: dict[str, str] = field(default_factory=dict)


def _program(token: str) -> str:
    name = Path(token).name.lower()
    for suffix in (".cmd", ".exe", ".mjs", ".js"):
        name = name.removesuffix(suffix)
    return name


def prepare(argv: list[str], report: Path, python: str | None = None) -> Runner | None:
    """`argv` rewritten to also write a structured report, or None (exit code only).
    `python`: the project's interpreter (`executor.projectenv`), which runs a bare
    `pytest` or `python -m pytest` (default: this process's own)."""
    pytest_argv = _as_pytest(argv, python or sys.executable)
    if pytest_argv is not None:
        extra = [f"--junitxml={report}", "-p", "no:cacheprovider", "-o", "junit_family=xunit1"]
        chars = _report_chars(pytest_argv)
        if not set(chars) & set("XaA"):  # a later -r replaces an earlier one
            extra.append(f"-r{chars}X")
        return Runner("pytest", [*pytest_argv, *extra], report)
    names = [_program(t) for t in argv]
    if names and names[0] in ("node", "nodejs") and "--test" in argv:
        if any(t.startswith("--test-reporter") for t in argv):
            return None  # the caller chose reporters; counting them would break its order
        at = argv.index("--test") + 1
        extra = [
            "--test-reporter=spec",
            "--test-reporter-destination=stdout",
            f"--test-reporter={node_reporter()}",
            f"--test-reporter-destination={report}",
        ]
        return Runner("node", [*argv[:at], *extra, *argv[at:]], report)
    if "vitest" in names:
        at = names.index("vitest") + 1
        head, tail = argv[:at], argv[at:]
        if not tail or tail[0] not in _VITEST_COMMANDS:
            tail = ["run", *tail]
        extra = ["--reporter=default", "--reporter=junit", f"--outputFile.junit={report}"]
        return Runner("vitest", [*head, *tail, *extra], report)
    if "jest" in names:
        return Runner("jest", [*argv, "--json", f"--outputFile={report}"], report)
    return None


#: Programs that run tests with the project's Python: the interpreter, pytest, and the
#: tools that start either (`uv run pytest`, `tox`, `nox`, `hatch test`, ...).
_PYTHON_PROGRAMS = {*_PYTEST_NAMES, "tox", "nox", "uv", "uvx", "poetry", "hatch", "pdm",
                    "pipenv", "rye", "coverage"}  # fmt: skip


def runs_python(commands: Iterable[str | None]) -> bool:
    """Whether any of the test `commands` runs Python (a `python3.12` too), so the
    interpreter the executor chose is what their tests run with."""
    for command in filter(None, commands):
        try:
            words = shlex.split(command)
        except ValueError:
            words = command.split()
        for word in words:
            name = _program(word)
            if name in _PYTHON_PROGRAMS or re.fullmatch(r"python[0-9.]*", name):
                return True
    return False


def _as_pytest(argv: list[str], python: str) -> list[str] | None:
    """The argv to run when `argv` runs pytest (a bare `pytest`, `python`, `python3`
    run as `python`), else None."""
    for i, token in enumerate(argv):
        name = Path(token).name
        is_module = token == "-m" and i + 1 < len(argv) and argv[i + 1] == "pytest"
        if name not in _PYTEST_NAMES and not is_module:
            continue
        if i == 0 and token in _PYTEST_NAMES:
            return [python, "-m", "pytest", *argv[1:]]
        if i == 1 and is_module and argv[0] in _BARE_PYTHONS:
            return [python, *argv[1:]]
        return list(argv)
    return None


def _report_chars(argv: list[str]) -> str:
    """The report characters a pytest command line gives (`-ra`, `-r fE`), or pytest's."""
    chars = _REPORT_CHARS
    for i, token in enumerate(argv):
        if token == "-r" and i + 1 < len(argv):
            chars = argv[i + 1]
        elif token.startswith("-r") and not token.startswith("--"):
            chars = token[2:]
    return chars


def read_report(
    runner: Runner, text: str, *, cwd: Path, argv: list[str], output: str = ""
) -> list[Case]:
    """The cases in a report (empty when the runner wrote none or it is unreadable);
    `output`: what the runner printed (pytest's XPASS lines)."""
    if not text.strip():
        return []
    try:
        if runner.name == "jest":
            return _jest_cases(text, cwd)
        if runner.name == "node":
            return _node_cases(text, cwd, _single_test_file(argv, cwd))
        root = ET.fromstring(text)
        if runner.name == "pytest":
            return _xpassed([_pytest_case(e, cwd) for e in root.iter("testcase")], output)
        return [_vitest_case(e) for e in root.iter("testcase")]
    except (ET.ParseError, RecursionError):  # nested deeper than a runner nests suites
        return []


# --- pytest --------------------------------------------------------------------------


def _pytest_case(element: ET.Element, cwd: Path) -> Case:
    classname = element.get("classname", "")
    name = element.get("name", "")
    outcome, detail = _junit_outcome(element)
    collection = outcome == "error" and _has_message(element, "error", "collection failure")
    if detail is not None and detail.tag == "skipped":
        if detail.get("type") == "pytest.xfail":
            outcome = "xfailed"
        elif detail.get("message") == _XPASS_STRICT:  # a failure, as pytest counts it
            outcome = "failed"
    file = element.get("file") or _module_file(classname, cwd)
    return Case(
        id=f"{classname}::{name}" if classname else name,
        outcome=outcome,
        message=_pytest_message(detail),
        file=file,
        collection=collection,
    )


def _xpassed(cases: list[Case], output: str) -> list[Case]:
    """`cases` with those pytest's `XPASS <node id>[ - reason]` lines name as "xpassed"."""
    lines = [ln[6:] for ln in output.splitlines() if ln.startswith("XPASS ")]
    if not lines:
        return cases
    for case in cases:
        if case.outcome == "passed" and case.file:
            node = node_id(case.id, case.file)
            if any(ln == node or ln.startswith(node + " ") for ln in lines):
                case.outcome = "xpassed"
    return cases


def node_id(case_id: str, file: str) -> str:
    """pytest's node id of a case read from xunit1 junit XML, from its id and its file
    (`tests.test_x.TestC::t`, `tests/test_x.py` -> `tests/test_x.py::TestC::t`)."""
    classname, _, name = case_id.partition("::")
    classes = classname.removeprefix(file.removesuffix(".py").replace("/", ".")).strip(".")
    return "::".join([file, *(classes.split(".") if classes else []), name])


def _module_file(classname: str, cwd: Path) -> str | None:
    """`tests.test_ledger.TestX` -> `tests/test_ledger.py` when that file exists."""
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        candidate = "/".join(parts[:end]) + ".py"
        if (cwd / candidate).is_file():
            return candidate
    return None


def _pytest_message(detail: ET.Element | None) -> str:
    """pytest's crash message; for a collection failure, the traceback's last `E` line."""
    if detail is None:
        return ""
    message = (detail.get("message") or "").strip()
    if message and message != "collection failure":
        return message[:500]
    e_lines = [ln[1:].strip() for ln in (detail.text or "").splitlines() if ln.startswith("E ")]
    return (e_lines[-1] if e_lines else message)[:500]


# --- junit (vitest) ---------------------------------------------------------------------


def _junit_outcome(element: ET.Element) -> tuple[Outcome, ET.Element | None]:
    for tag, outcome in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
        detail = element.find(tag)
        if detail is not None:
            return outcome, detail  # type: ignore[return-value]
    return "passed", None


def _has_message(element: ET.Element, tag: str, message: str) -> bool:
    detail = element.find(tag)
    return detail is not None and detail.get("message") == message


def _short(detail: ET.Element | None) -> str:
    if detail is None:
        return ""
    text = (detail.get("message") or detail.text or "").strip()
    return text.splitlines()[0][:500] if text else ""


def _vitest_case(element: ET.Element) -> Case:
    file = element.get("file") or element.get("classname") or None
    name = element.get("name", "")
    outcome, detail = _junit_outcome(element)
    if name == file and outcome != "passed":  # the file itself failed to load
        return Case(id=name, outcome="error", message=_short(detail), file=file, collection=True)
    case_id = f"{file}::{name}" if file else name
    return Case(id=case_id, outcome=outcome, message=_short(detail), file=file)


def _single_test_file(argv: list[str], cwd: Path) -> str | None:
    files = [t for t in argv if t.endswith(_TEST_FILE_SUFFIXES) and (cwd / t).is_file()]
    return _relative(files[0], cwd) if len(files) == 1 else None


def _relative(path: str, cwd: Path) -> str:
    try:
        return Path(path).resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return path


# --- node --test --------------------------------------------------------------------


def node_reporter() -> str:
    """The executor's `node --test` reporter as a `data:` URL: nothing on disk for a
    sandbox to hide or a test to change."""
    code = Path(__file__).with_name("node_reporter.mjs").read_bytes()
    return "data:text/javascript;base64," + base64.b64encode(code).decode("ascii")


@dataclass
class _NodeTest:
    name: str
    nesting: Any
    parent: _NodeTest | None
    subtests: int = 0
    depth: int = 0

    def chain(self) -> list[str]:
        """The names of the suites around this test, outermost first."""
        names, test = [], self.parent
        while test is not None:
            names.append(test.name)
            test = test.parent
        return names[::-1]


def _node_cases(text: str, cwd: Path, only: str | None) -> list[Case]:
    """The cases in the executor's reporter's lines, found as Node's junit reporter finds
    them: a test is started by its `test:start`, or by its end when that names another."""
    current: _NodeTest | None = None
    cases: list[Case] = []
    for line in text.splitlines():
        try:
            event: Any = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by a run that was killed
        if not isinstance(event, dict) or event.get("type") not in _NODE_EVENTS:
            continue
        name, nesting = str(event.get("name", "")), event.get("nesting")
        ends = event["type"] != "test:start"
        if not ends or current is None or (current.name, current.nesting) != (name, nesting):
            current = _NodeTest(name, nesting, current)
            if current.parent is not None:
                current.parent.subtests += 1
                current.depth = current.parent.depth + 1
                if current.depth > _NODE_DEPTH:
                    return []
        if ends:
            test, current = current, current.parent
            if not test.subtests:
                cases.append(_node_case(event, test.chain(), cwd, only))
    return cases


_NODE_EVENTS = {"test:start", "test:pass", "test:fail"}
#: Suites nested deeper than this are no test suite's (as deep as pytest's junit XML is
#: read: a report nested deeper counts nothing).
_NODE_DEPTH = 500
#: The line of a file's stderr that names why it failed to load
#: (`Error: Cannot find module './x'`, `SyntaxError: Unexpected token`).
_JS_ERROR_RE = re.compile(r"^[\w$.]*(?:Error|Exception)\b.*\S")


def _node_case(event: dict[str, Any], chain: list[str], cwd: Path, only: str | None) -> Case:
    name = str(event.get("name", ""))
    failed = event["type"] == "test:fail"
    outcome: Outcome = "failed" if failed else "passed"
    skip = event.get("skip") or event.get("todo")  # true, or the reason given
    if skip:
        outcome = "skipped"  # a todo test that fails does not fail the run either
    text = str(event.get("error") or (skip if isinstance(skip, str) else ""))
    message = " ".join(ln.strip() for ln in text.splitlines() if ln.strip())
    file = event.get("file")
    file = _relative(file, cwd) if isinstance(file, str) and file else only
    if name.endswith(_TEST_FILE_SUFFIXES) and not chain:  # the file itself
        file = _relative(name, cwd)
        if not failed:
            return Case(id=file, outcome=outcome, file=file)
        printed = [str(ln).strip() for ln in event.get("stderr") or []]
        why = next((ln for ln in printed if _JS_ERROR_RE.match(ln)), message)
        return Case(id=file, outcome="error", message=why[:500], file=file, collection=True)
    label = " > ".join([*chain, name])
    case_id = f"{file}::{label}" if file else label
    return Case(id=case_id, outcome=outcome, message=message[:500], file=file)


# --- jest ----------------------------------------------------------------------------


def _jest_cases(text: str, cwd: Path) -> list[Case]:
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError:
        return []
    cases: list[Case] = []
    for suite in data.get("testResults", []) if isinstance(data, dict) else []:
        file = _relative(str(suite.get("name", "")), cwd)
        assertions = suite.get("assertionResults") or []
        if not assertions and suite.get("status") == "failed":  # the file failed to load
            message = str(suite.get("message") or suite.get("failureMessage") or "")
            lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
            lines = [ln for ln in lines if not ln.startswith("●")] or lines
            first = (lines[0] if lines else "")[:500]
            cases.append(Case(id=file, outcome="error", message=first, file=file, collection=True))
            continue
        for test in assertions:
            status = test.get("status")
            outcome: Outcome = (
                "passed" if status == "passed" else "failed" if status == "failed" else "skipped"
            )
            failures = test.get("failureMessages") or []
            first = str(failures[0]).strip().splitlines()[0] if failures else ""
            name = test.get("fullName") or test.get("title") or ""
            cases.append(
                Case(id=f"{file}::{name}", outcome=outcome, message=first[:500], file=file)
            )
    return cases
