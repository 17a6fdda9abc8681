"""The report is cross-checked with the runner's exit status and its own summary line
(`executor.testsummary`): real pytest runs agree, a report forged after the runner
wrote it does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from executor.testrun import run_tests
from executor.testsummary import Said, disagreement, said_by
from tests.seams.test_testrun import MIXED, XPASS_STRICT, project

TEARDOWN_ERROR = """
import pytest

@pytest.fixture
def broken():
    yield
    raise RuntimeError("teardown")

def test_passes_then_errors(broken):
    pass
"""
XPASS_LOOSE = "import pytest\n\n@pytest.mark.xfail\ndef test_x():\n    pass\n"
PASSING = "def test_a():\n    pass\n\ndef test_b():\n    pass\n"

#: Code under test that, when imported, rewrites pytest's junit report at exit so that
#: every test passed: the report then says one thing, the runner another.
FORGER = """
import atexit, sys

def _forge():
    for arg in sys.argv:
        if arg.startswith("--junitxml="):
            with open(arg.split("=", 1)[1], "w") as f:
                f.write('<testsuites><testsuite><testcase classname="tests.test_x" '
                        'name="test_a"/></testsuite></testsuites>')
    {exit}

atexit.register(_forge)
"""
FORGED_TEST = "import forger\n\ndef test_a():\n    assert False\n"


@pytest.mark.parametrize(
    ("files", "command"),
    [
        ({"tests/test_mixed.py": MIXED}, "pytest tests"),
        ({"tests/test_mixed.py": MIXED}, "pytest -q tests"),
        ({"tests/test_t.py": TEARDOWN_ERROR}, "pytest tests"),
        ({"tests/test_x.py": XPASS_STRICT}, "pytest tests"),
        ({"tests/test_x.py": XPASS_LOOSE}, "pytest tests"),
        ({"tests/test_x.py": "import missing\n"}, "pytest tests"),
        ({"tests/test_x.py": PASSING}, "pytest -qq tests"),
        ({"tests/test_x.py": PASSING}, "pytest -p no:terminal tests"),
        ({"tests/x.py": ""}, "pytest tests"),
    ],
    ids=["mixed", "quiet", "teardown", "xpass-strict", "xpass", "collection", "qq", "no-terminal",
         "none"],
)  # fmt: skip
def test_pytest_as_it_is_run_never_disagrees_with_itself(
    tmp_path: Path, files: dict[str, str], command: str
) -> None:
    run = run_tests(command, cwd=project(tmp_path, files))
    assert run.structured and run.disagreement is None, run.output_tail


def test_the_summary_line_is_read_as_pytest_prints_it(tmp_path: Path) -> None:
    run = run_tests("pytest tests", cwd=project(tmp_path, {"tests/test_mixed.py": MIXED}))
    assert said_by("pytest", run.output_tail) == Said(passed=3, failing=2)
    assert (run.passed, run.failed + run.errors) == (3, 2)


def test_a_report_forged_at_exit_is_not_believed(tmp_path: Path) -> None:
    files = {"forger.py": FORGER.format(exit=""), "tests/test_x.py": FORGED_TEST}
    run = run_tests("pytest tests", cwd=project(tmp_path, files))
    assert (run.passed, run.failed) == (1, 0)  # what the forged report says
    assert run.disagreement == "pytest exited 1, but its report lists only passing tests (1)"
    assert run.verdict == "red" and "not believed" in run.summary()


def test_a_report_and_exit_status_forged_together_still_meet_the_summary_line(
    tmp_path: Path,
) -> None:
    files = {"forger.py": FORGER.format(exit="import os; os._exit(0)"),
             "tests/test_x.py": FORGED_TEST}  # fmt: skip
    run = run_tests("pytest tests", cwd=project(tmp_path, files))
    assert run.exit_code == 0 and run.passed == 1
    assert run.disagreement == "pytest's summary line counts 1 failing, its report 0"
    assert run.verdict == "red"


@pytest.mark.parametrize(
    ("exit_code", "passed", "failing", "output", "expected"),
    [
        (0, 2, 1, "", "pytest exited 0, but its report lists 1 failing"),
        (0, 3, 0, "== 2 passed in 0.1s ==", "pytest's summary line counts 2 passed, its report 3"),
        (1, 1, 1, "=== 1 failed, 1 passed in 0.1s ===", None),
        (1, 0, 1, "=== 1 failed, 4 passed in 0.1s ===", None),
        (0, 1, 0, "a test printed: 1 failed in 2s\n=== 1 passed in 0.1s ===", None),
    ],
)  # fmt: skip
def test_what_counts_as_a_disagreement(
    exit_code: int, passed: int, failing: int, output: str, expected: str | None
) -> None:
    got = disagreement("pytest", exit_code=exit_code, passed=passed, failing=failing,
                       output=output)  # fmt: skip
    assert got == expected
