"""What the executor checks itself after an agent step: nothing an agent says is trusted.

RED must fail because tests fail; GREEN and REFACTOR must pass, with the whole suite,
without deleting, editing (GREEN), skipping or xfailing what RED wrote; the evidence
check wants every file the plan lists to exist and be changed by the session.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from executor.words import plural
from executor.workflows.tdd.state import RedFacts

if TYPE_CHECKING:  # the resume path does not load the test runner
    from executor.testrun import TestCase, TestRun


def is_test_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (
        (name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")))
        or "/tests/" in f"/{path}"
        or path.startswith("tests/")
    )


def file_sha(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def _module_prefix(path: str) -> str:
    p = path[:-3] if path.endswith(".py") else path
    return p.replace("/", ".")


def session_cases(run: TestRun, test_files: Sequence[str]) -> list[TestCase]:
    """The cases of `run` that come from the session's own test files."""
    prefixes = tuple(_module_prefix(f) for f in test_files)
    if not prefixes:
        return list(run.cases)
    return [
        c
        for c in run.cases
        if any(c.id.startswith((p + "::", p + ".")) or c.id == p for p in prefixes)
    ]


def collects(suite: TestRun, red: RedFacts) -> bool:
    """Whether a suite run holds the session's tests, so one run judges both."""
    if not red.files or not suite.structured:
        return False
    ids = {c.id for c in suite.cases}
    return bool(session_cases(suite, red.files)) and set(red.failing) <= ids


def red_facts(run: TestRun, changed: Sequence[str], root: Path) -> RedFacts:
    """What RED measured: its test files (with hashes) and the real tests that failed."""
    files = [f for f in changed if is_test_file(f)]
    failing = [c for c in run.cases if c.outcome in {"failed", "error"}]
    return RedFacts(
        files=files,
        hashes={f: file_sha(root / f) for f in files},
        # real tests only: a collection failure is reported as a case without "::"
        failing=[c.id for c in failing if "::" in c.id],
        why={c.id: _one_line(c.message) for c in failing[:60]},
        passed=[c.id for c in run.cases if c.outcome == "passed"],
    )


def _one_line(message: str) -> str:
    line = next((ln.strip() for ln in message.splitlines() if ln.strip()), "")
    return line[:160] or "fails"


def red_problem(run: TestRun | None) -> str | None:
    """Why this is not RED, or None when it is."""
    if run is None:
        return "no test command is known for this session"
    if run.timed_out:
        return f"the tests {run.summary()}, so this is not RED: a hanging test proves nothing fails"
    if run.verdict == "red":
        return None
    if run.verdict == "green":
        return f"the tests did not fail, so this is not RED: {run.summary()}"
    return f"no tests ran (empty run), so this is not RED: {run.summary()}"


@dataclass
class PassVerdict:
    problems: list[str]
    output: str
    cases: list[TestCase]  # the session's cases, as measured


def pass_verdict(
    role: str,
    *,
    session_run: TestRun | None,
    suite_run: TestRun | None,
    red: RedFacts,
    green_passed: Sequence[str],
    root: Path,
) -> PassVerdict:
    """GREEN/REFACTOR: the session's tests pass, the suite does not regress, and nothing
    RED wrote was deleted, edited (GREEN), skipped or xfailed.

    `session_run` may be None when the suite run collected the session's tests: they are
    then judged from the suite's report (one test run instead of two).
    """
    measured = session_run or suite_run
    if measured is None:
        return PassVerdict(["no test command is known for this session"], "", [])
    cases = session_cases(measured, red.files) if session_run is None else list(measured.cases)
    problems: list[str] = []
    output = ""
    if not red.files and all(r is None or r.verdict == "empty" for r in (session_run, suite_run)):
        # a session without tests of its own (spec-kit Setup) in a project without any
        # yet: nothing to run; what it made is judged by the evidence check and the person
        return PassVerdict([], "", [])
    if session_run is not None and session_run.verdict != "green":
        problems.append(f"session tests are not green: {session_run.summary()}")
        output = session_run.output_tail
    if suite_run is not None and suite_run.verdict == "red":
        problems.append(f"the whole suite has failures: {suite_run.summary()}")
        output = output or suite_run.output_tail
    if suite_run is not None and suite_run.verdict == "empty" and session_run is None:
        problems.append(f"the suite ran no tests: {suite_run.summary()}")
    for f in red.files:
        if not (root / f).exists():
            problems.append(f"test file {f} written in RED was deleted")
        elif role == "green" and red.hashes.get(f) not in (None, file_sha(root / f)):
            problems.append(f"test file {f} written in RED was modified during GREEN")
    passed = {c.id for c in measured.cases if c.outcome == "passed"}
    must = set(red.failing) | (set(green_passed) if role == "refactor" else set())
    missing = sorted(must - passed)
    if missing:
        problems.append(
            f"{plural(len(missing), 'test')} seen earlier no longer pass or exist: "
            + ", ".join(missing[:5])
        )
    dodged = [c.id for c in cases if c.outcome in {"skipped", "xfailed", "xpassed"}]
    if dodged:
        problems.append(
            f"{plural(len(dodged), 'session test')} skipped or xfail: " + ", ".join(dodged[:5])
        )
    return PassVerdict(problems, output, cases)


def evidence_problems(listed: Sequence[str], changed: set[str], root: Path) -> list[str]:
    """Every file the plan lists must exist and be changed by the session."""
    problems = []
    for listed_path in listed:
        path = listed_path.rstrip("/")
        if not (root / path).exists():
            problems.append(f"{path} (listed in the plan) does not exist")
        elif not any(c == path or c.startswith(path + "/") for c in changed):
            problems.append(f"{path} (listed in the plan) is not changed by this session")
    return problems


def verified_summary(
    role: str,
    cases: Sequence[TestCase],
    session_run: TestRun | None,
    suite_run: TestRun | None,
    command: str | None,
) -> str:
    """What GREEN/REFACTOR measured, for the next checkpoint: the session's tests and the
    whole suite, and where each count came from."""
    passed = sum(c.outcome == "passed" for c in cases)
    source = f"`{command}`" if session_run is not None else "the suite's report"
    lines = [f"{role.upper()} verified: the session's tests: {passed} of {len(cases)} pass "
             f"(from {source})"]  # fmt: skip
    if suite_run is not None:
        lines.append(f"The whole suite (`{suite_run.command}`): {suite_run.summary()}")
    return "\n".join(lines)
