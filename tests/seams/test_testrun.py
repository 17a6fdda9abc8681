"""run_tests against real pytest subprocesses on tiny projects in tmp_path."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from executor import errors
from executor.datamodel import dump, validate
from executor.testreports import runs_python
from executor.testrun import TestCase, TestRun, run_tests


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "proj"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    root.mkdir(exist_ok=True)
    return root


LEDGER_TEST = "from ledger import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
XPASS_STRICT = "import pytest\n\n@pytest.mark.xfail(strict=True)\ndef test_x():\n    pass\n"

MIXED = """
import pytest

def test_ok():
    assert 1 + 1 == 2

def test_bad():
    assert 1 + 1 == 3, "math is broken"

@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert n < 2

@pytest.mark.skip(reason="later")
def test_skipped():
    pass

@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False

class TestGroup:
    def test_in_class(self):
        pass
"""


def test_failing_assertions_are_red_with_counts(tmp_path: Path) -> None:
    root = project(tmp_path, {"tests/test_mixed.py": MIXED})
    run = run_tests("pytest tests/test_mixed.py", cwd=root)
    assert run.structured and run.exit_code == 1
    assert (run.collected, run.passed, run.failed, run.errors) == (7, 3, 2, 0)
    assert (run.skipped, run.xfailed) == (1, 1)
    assert not run.collection_error
    assert run.verdict == "red"
    assert run.summary() == "2 failed, 3 passed, 1 skipped, 1 xfailed"
    by_id = {c.id: c for c in run.cases}
    assert by_id["tests.test_mixed::test_bad"].outcome == "failed"
    assert "math is broken" in by_id["tests.test_mixed::test_bad"].message
    assert by_id["tests.test_mixed::test_param[2]"].outcome == "failed"
    assert by_id["tests.test_mixed.TestGroup::test_in_class"].outcome == "passed"
    assert by_id["tests.test_mixed::test_xfail"].outcome == "xfailed"
    failing = [c.id for c in run.cases if c.outcome in ("failed", "error", "xpassed")]
    assert sorted(failing) == ["tests.test_mixed::test_bad", "tests.test_mixed::test_param[2]"]
    assert "test_bad" in run.output_tail and run.duration_s > 0


def test_missing_module_is_red_with_collection_error(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "tests/test_ledger.py": LEDGER_TEST,
        },
    )
    run = run_tests("python -m pytest tests/test_ledger.py -q", cwd=root)
    assert run.collection_error and run.errors == 1 and run.collected == 0
    assert run.verdict == "red"
    assert (
        run.summary() == "0 failed, 0 passed, 1 error (collection error: No module named 'ledger')"
    )


def test_conftest_import_error_is_a_collection_error(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {"tests/conftest.py": "import ledger\n", "tests/test_a.py": "def test_a():\n    pass\n"},
    )
    run = run_tests("pytest tests", cwd=root)
    assert run.exit_code == 4 and run.collection_error
    assert run.verdict == "red"
    assert "No module named 'ledger'" in run.summary()


def test_no_tests_and_missing_file_are_empty(tmp_path: Path) -> None:
    root = project(tmp_path, {"tests/test_none.py": "x = 1\n"})
    none = run_tests("pytest tests/test_none.py", cwd=root)
    assert none.exit_code == 5 and none.verdict == "empty" and none.collected == 0
    assert none.summary() == "0 failed, 0 passed (no tests ran: no tests collected)"
    missing = run_tests("pytest tests/test_missing.py", cwd=root)
    assert missing.exit_code == 4 and missing.verdict == "empty"
    assert not missing.collection_error
    assert "file or directory not found" in missing.summary()


def test_all_skipped_is_empty(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {"test_s.py": "import pytest\n\n@pytest.mark.skip\ndef test_s():\n    pass\n"},
    )
    run = run_tests("pytest", cwd=root)
    assert run.exit_code == 0 and run.skipped == 1 and run.verdict == "empty"
    assert "every test was skipped" in run.summary()


def test_passing_is_green_and_leaves_no_cache_files(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "ledger.py": "def add(a, b):\n    return a + b\n",
            "tests/test_ledger.py": LEDGER_TEST,
        },
    )
    run = run_tests("pytest tests/test_ledger.py", cwd=root, env={"PYTHONPATH": str(root)})
    assert run.verdict == "green", run.output_tail
    assert (run.collected, run.passed) == (1, 1)
    assert run.summary() == "0 failed, 1 passed"
    assert run.cases == [
        TestCase(id="tests.test_ledger::test_add", outcome="passed", file="tests/test_ledger.py")
    ]
    leftovers = {p.name for p in root.rglob("*")} & {".pytest_cache", "__pycache__"}
    assert leftovers == set()


def test_coverage_is_measured_and_its_data_file_stays_out_of_the_project(
    tmp_path: Path,
) -> None:
    root = project(
        tmp_path,
        {
            "ledger.py": "def add(a, b):\n    return a + b\n",
            "tests/test_ledger.py": LEDGER_TEST,
        },
    )
    run = run_tests(
        "pytest tests/test_ledger.py", cwd=root, env={"PYTHONPATH": str(root)}, coverage=True
    )
    assert run.verdict == "green", run.output_tail
    assert run.coverage is not None and run.coverage > 0  # pytest-cov is a test extra
    assert sorted(p.name for p in root.rglob(".coverage*")) == []


def test_strict_xpass_fails_the_run(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "test_x.py": XPASS_STRICT,
        },
    )
    run = run_tests("pytest", cwd=root)
    assert run.cases[0].outcome == "failed" and run.failed == 1
    assert run.verdict == "red"


XPASSES = """
import pytest

@pytest.mark.xfail(reason="later")
def test_loose():
    pass

@pytest.mark.xfail(reason="later")
def test_fails():
    assert False

class TestC:
    @pytest.mark.parametrize("a", [1, 2])
    @pytest.mark.xfail
    def test_p(self, a):
        pass

def test_plain():
    pass
"""


@pytest.mark.parametrize("command", ["pytest tests", "pytest -ra tests", "pytest -r fE tests"])
def test_a_passing_xfail_test_is_counted_as_pytest_counts_it(tmp_path: Path, command: str) -> None:
    """pytest's junit XML holds a non-strict XPASS as a plain pass; its summary says
    "1 passed, 1 xfailed, 3 xpassed", and so does the run."""
    run = run_tests(command, cwd=project(tmp_path, {"tests/test_x.py": XPASSES}))
    assert run.summary() == "0 failed, 1 passed, 1 xfailed, 3 xpassed", run.output_tail
    xpassed = sorted(c.id for c in run.cases if c.outcome == "xpassed")
    assert xpassed == ["tests.test_x.TestC::test_p[1]", "tests.test_x.TestC::test_p[2]",
                       "tests.test_x::test_loose"]  # fmt: skip
    assert run.verdict == "green" and run.disagreement is None


def test_non_pytest_command_uses_exit_code_only(tmp_path: Path) -> None:
    ok = run_tests(f"{sys.executable} -c 'print(1)'", cwd=tmp_path)
    assert (ok.structured, ok.collected, ok.verdict) == (False, 0, "green")
    assert ok.summary().endswith("exited 0")
    bad = run_tests(f"{sys.executable} -c 'import sys; sys.exit(3)'", cwd=tmp_path)
    assert bad.verdict == "red" and bad.exit_code == 3


def test_timeout_kills_and_is_red(tmp_path: Path) -> None:
    run = run_tests(
        f"{sys.executable} -c 'import time; time.sleep(30)'", cwd=tmp_path, timeout_s=0.5
    )
    assert run.timed_out and run.verdict == "red"
    assert "timed out" in run.summary() and "process killed" in run.output_tail


@pytest.mark.parametrize(("load", "ends"), [(64.0, "passed"), (0.0, "killed")])
def test_a_run_past_its_limit_on_a_busy_machine_gets_the_limit_once_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, load: float, ends: str
) -> None:
    """A suite of 4 s took 30 s beside a busy CI run: load decides, not the code."""
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    run = run_tests(
        f"{sys.executable} -c 'import time; time.sleep(1.5)'", cwd=tmp_path, timeout_s=1
    )
    if ends == "passed":
        assert (run.timed_out, run.exit_code, run.busy_s) == (False, 0, 1)
        assert "past the 1 s limit on a busy machine: given 1 s more" in run.output_tail
    else:
        assert run.timed_out and run.busy_s == 0
        assert run.summary().startswith("timed out after 1 s (killed; --test-timeout sets")


def test_a_hang_on_a_busy_machine_still_ends_at_twice_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (64.0, 64.0, 64.0))
    run = run_tests(f"{sys.executable} -c 'import time; time.sleep(30)'", cwd=tmp_path,
                    timeout_s=0.5)  # fmt: skip
    assert run.timed_out and run.busy_s == 0.5
    assert "timed out after 1 s (killed; --test-timeout sets the limit; 0.5 s more as" in (
        run.summary()
    )


def test_a_run_held_to_a_budget_gets_no_more_time_on_a_busy_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mutation step's limit is the person's budget (`busy=False`)."""
    monkeypatch.setattr(os, "getloadavg", lambda: (64.0, 64.0, 64.0))
    run = run_tests(f"{sys.executable} -c 'import time; time.sleep(1.5)'", cwd=tmp_path,
                    timeout_s=1, busy=False)  # fmt: skip
    assert run.timed_out and run.busy_s == 0


def test_bad_commands_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(errors.UserError, match="invalid test command"):
        run_tests("pytest 'unbalanced", cwd=tmp_path)
    with pytest.raises(errors.UserError, match="empty"):
        run_tests("   ", cwd=tmp_path)
    with pytest.raises(errors.PathNotFoundError, match="cannot run the test command"):
        run_tests("no-such-test-runner-xyz --all", cwd=tmp_path)
    with pytest.raises(errors.PathNotFoundError, match="does not exist"):
        run_tests("pytest", cwd=tmp_path / "missing")


def test_testrun_round_trips_through_json() -> None:
    run = TestRun(
        command="pytest",
        exit_code=1,
        duration_s=0.5,
        collected=1,
        failed=1,
        structured=True,
        runner="pytest",
        cases=[TestCase(id="t::a", outcome="failed", message="boom", file="t.py")],
    )
    again = validate(TestRun, json.loads(json.dumps(dump(run))))
    assert again == run and again.verdict == "red"


def test_a_whole_suite_run_gives_each_case_its_file(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "tests/test_a.py": "def test_a():\n    pass\n",
            "tests/unit/test_b.py": "class TestB:\n    def test_b(self):\n        assert 0\n",
        },
    )
    run = run_tests("python -m pytest", cwd=root)
    assert sorted((c.id, c.file) for c in run.cases) == [
        ("tests.test_a::test_a", "tests/test_a.py"),
        ("tests.unit.test_b.TestB::test_b", "tests/unit/test_b.py"),
    ]


@pytest.mark.parametrize(
    ("command", "runner", "argv_tail"),
    [
        ("npx vitest tests/a.test.ts", "vitest", ["run", "tests/a.test.ts", "--reporter=default"]),
        ("pnpm vitest run", "vitest", ["run", "--reporter=default"]),
        ("node --test tests/", "node", ["--test", "--test-reporter=spec"]),
        ("npx jest --ci", "jest", ["--ci", "--json"]),
        ("node --test --test-reporter=dot", None, []),
        ("npm test", None, []),
        ("make test", None, []),
    ],
)
def test_runners_are_recognised_and_asked_for_a_report(
    command: str, runner: str | None, argv_tail: list[str], tmp_path: Path
) -> None:
    from executor.testreports import prepare

    prepared = prepare(command.split(), tmp_path / "report")
    assert (prepared.name if prepared else None) == runner
    if prepared is not None:
        argv = prepared.argv
        start = argv.index(argv_tail[0])
        assert argv[start : start + len(argv_tail)] == argv_tail
        assert any(str(tmp_path / "report") in token for token in argv)


@pytest.mark.parametrize("planted", ["deep", "fifo", "infinite"])
def test_a_coverage_report_code_under_test_replaced_is_no_crash(
    tmp_path: Path, planted: str
) -> None:
    from executor.testrun import _coverage_percent

    report = tmp_path / "coverage.json"
    if planted == "fifo":
        os.mkfifo(report)
    else:
        inner = "[" * 100_000 if planted == "deep" else "Infinity"
        report.write_text(f'{{"totals": {{"percent_covered": {inner}}}}}', encoding="utf-8")
    assert _coverage_percent(report) is None
    report.unlink()
    report.write_text('{"totals": {"percent_covered": 87.54}}', encoding="utf-8")
    assert _coverage_percent(report) == 87.5


def test_a_node_report_nested_past_any_suite_counts_nothing(tmp_path: Path) -> None:
    """Code under test can write the report: suites nested 5000 deep count nothing (a
    report of 5 counts its one case), and a line cut short is passed over."""
    from executor.testreports import Runner, read_report

    def report(depth: int) -> str:
        starts = [{"type": "test:start", "name": f"s{n}", "nesting": n} for n in range(depth)]
        ends = [{"type": "test:pass", "name": f"s{n}", "nesting": n} for n in range(depth)]
        return "\n".join(json.dumps(e) for e in [*starts, *ends[::-1]]) + '\n{"type": "test:'

    runner = Runner("node", ["node", "--test"], tmp_path / "report")
    assert read_report(runner, report(5000), cwd=tmp_path, argv=["node", "--test"]) == []
    [case] = read_report(runner, report(5), cwd=tmp_path, argv=["node", "--test"])
    assert (case.id, case.outcome, case.file) == ("s0 > s1 > s2 > s3 > s4", "passed", None)


def test_the_live_count_uses_the_final_lines_words(tmp_path: Path) -> None:
    """The spinner said "1 failed" for a collection error the final line called an error."""
    from executor.workflows.tdd.session.context import LiveCount

    shown: list[str] = []

    class Line:
        def update(self, detail: str) -> None:
            shown.append(detail)

        def close(self, result: str = "") -> float:
            return 0.0

    count = LiveCount(Line())
    for line in ("tests/test_a.py .F", "tests/test_b.py E", "tests/test_c.py::test_x PASSED"):
        count(line)
    assert shown[-1] == "2 passed, 1 failed, 1 error"
    root = project(tmp_path, {"tests/test_ledger.py": LEDGER_TEST})
    run = run_tests("python -m pytest tests/test_ledger.py -q", cwd=root)
    assert run.summary().startswith("0 failed, 0 passed, 1 error ")


@pytest.mark.parametrize(
    ("commands", "python"),
    [
        (["pytest -q"], True),
        (["python3.12 -m unittest"], True),
        (["uv run pytest", None], True),
        ([".venv/bin/tox -e py"], True),
        (["npm test", "node --test test/a.test.js"], False),
        (["npx vitest run", None], False),
        ([None], False),
    ],
)
def test_runs_python_names_the_commands_a_python_runs(
    commands: list[str | None], python: bool
) -> None:
    assert runs_python(commands) is python
