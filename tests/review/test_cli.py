"""`executor report`, `show` and `logs`, and the summary a run ends with, through the real
CLI on a real run (git, pytest, a stand-in agent: tests/review/helpers.py)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.conftest import run_cli
from tests.review.helpers import HOSTILE, agent_command, run_phase, tiny_project


def test_a_run_ends_with_its_summary_and_its_report_and_each_view_reads_it(
    git_repo: Path,
) -> None:
    plan = tiny_project(git_repo)
    proc = run_cli(
        "execute-phase", "1", "--plan", str(plan), "--agent-command",
        agent_command(git_repo.parent), "--yes", cwd=git_repo,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "-- session 1 of 1, GREEN, attempt 1 --" in proc.stdout
    tail = proc.stdout.strip().splitlines()[-5:]
    assert tail[0].startswith("Summary: 1 of 1 session done, 0 waiting, 0 stopped;")
    assert tail[1].startswith("  time: agent ") and ", tests " in tail[1]
    assert tail[2] == "  agents: 3 calls, 0 retries; cost not reported, tokens not reported"
    assert "not verified: 4 checkpoints approved by --yes" in tail[3]
    reports = plan / ".agent-reports"
    assert tail[4] == f"Report: {reports / 'report.html'} and {reports / 'report.md'}"
    page = (reports / "report.html").read_text("utf-8")
    escaped = HOSTILE.replace("<", "&lt;").replace(">", "&gt;")
    assert "<script" not in page and f"Adder {escaped}" in page

    again = run_cli("report", "--plan", str(plan), cwd=git_repo)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines() == [str(reports / "report.html"), str(reports / "report.md")]
    only = git_repo.parent / "only.html"
    one = run_cli("report", "--plan", str(plan), "--html", str(only), "--phase", "1", cwd=git_repo)
    assert one.returncode == 0 and one.stdout.strip() == str(only) and only.is_file()
    assert not (reports / "phase-1.md").exists()
    phase = run_cli("report", "--plan", str(plan), "--phase", "1", cwd=git_repo)
    assert phase.stdout.split() == [str(reports / "phase-1.html"), str(reports / "phase-1.md")]
    none = run_cli("report", "--plan", str(plan), "--phase", "7", cwd=git_repo)
    said = (none.returncode, none.stderr.strip())
    assert said == (64, "error: the plan has no phase 7 (its phases: 1)")
    nowhere = run_cli("report", "--plan", str(plan), "--md", "/nonexistent/r.md", cwd=git_repo)
    assert nowhere.returncode == 2 and "/nonexistent is not a folder" in nowhere.stderr

    shown = run_cli("show", "1", "--plan", str(plan), cwd=git_repo)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    for expected in (
        "Plan: plans/calc/PHASE_1_ARITHMETIC.md:3",
        "red_verify attempt 1: `pytest tests/test_calc.py`: 0 failed, 0 passed, 1 error",
        "green_verify attempt 1: `pytest`: 0 failed, 2 passed",
        "RED: 2 tests failed before the code was written:",
        "    - tests/test_calc.py::test_adds_negatives",
        "before the start: approve by --yes",
        "Agent-Step: session-1",
        "+def add(a, b):",
    ):
        assert expected in text, expected
    data = json.loads(run_cli("show", "1", "--plan", str(plan), "--json", cwd=git_repo).stdout)
    assert data["number"] == 1 and data["answers"][0]["via"] == "yes"
    assert [r["step"] for r in data["runs"]] == ["red_verify", "green_verify", "refactor_verify"]
    missing = run_cli("show", "9", "--plan", str(plan), cwd=git_repo)
    assert (missing.returncode, missing.stderr.strip()) == (64, "error: the plan has no session 9")


def test_logs_show_the_sessions_own_test_run_not_the_mutation_runs(git_repo: Path) -> None:
    plan = tiny_project(git_repo)
    run_phase(git_repo, plan)
    logs = plan / ".agent-logs"
    mutants = logs / "s1.refactor_strength.a1.mutants.tests.log"
    mutants.write_text("$ pytest -p executor_mutation\n\nno tests ran in 0.01s\n", "utf-8")
    later = time.time() + 5
    os.utime(mutants, (later, later))
    proc = run_cli("logs", "1", "--plan", str(plan), cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    assert "no tests ran" not in proc.stdout
    assert "s1.refactor_verify.a1.t3.tests.log (test output, session 1)" in proc.stdout
    assert "2 passed" in proc.stdout


def test_a_run_that_stops_ends_with_its_summary_too(git_repo: Path) -> None:
    plan = tiny_project(git_repo)
    proc = run_cli(
        "execute-phase", "1", "--plan", str(plan), "--agent-command",
        agent_command(git_repo.parent), "--yes", "--max-retries", "0", cwd=git_repo,
        env={"STANDIN_BROKEN": "1"},
    )  # fmt: skip
    assert proc.returncode == 16, proc.stderr
    err = proc.stderr.strip().splitlines()
    at = next(i for i, line in enumerate(err) if line.startswith("Summary: "))
    assert err[at].startswith("Summary: 0 of 1 session done, 0 waiting, 1 stopped;")
    assert err[at + 4].startswith("Report: ") and (plan / ".agent-reports/report.html").is_file()
    # then what stopped it, and what to do next, last
    assert err[-1].startswith("No human is available (--yes without a terminal)")
    shown = run_cli("show", "1", "--plan", str(plan), cwd=git_repo).stdout
    assert "Stopped: Session 1 GREEN could not be verified" in shown


def test_no_run_no_report(git_repo: Path) -> None:
    plan = tiny_project(git_repo)
    proc = run_cli("report", "--plan", str(plan), cwd=git_repo)
    assert proc.returncode == 64
    assert "has not been run yet" in proc.stderr and "nothing to review" in proc.stderr
    assert not (plan / ".agent-reports").exists()
