"""The shipped demo plan parses cleanly and agrees with its prepared replay files."""

from __future__ import annotations

from pathlib import Path

import pytest

from executor.plan.loader import load_plan
from executor.plan.models import Plan, Session
from executor.resources import data_path

PLAN = data_path("plans", "examples", "ledger")
SOLUTIONS = data_path("plans", "replay", "ledger")

EXPECTED = {  # number: (phase, title, dependencies, test file)
    1: (1, "Ledger Models", [], "tests/test_models.py"),
    2: (1, "Balances", [1], "tests/test_balance.py"),
    3: (2, "Text Report", [2], "tests/test_report.py"),
    4: (2, "Command Line", [2, 3], "tests/test_cli.py"),
}


@pytest.fixture(scope="module")
def plan() -> Plan:
    return load_plan(PLAN)


def _sessions(plan: Plan) -> dict[int, Session]:
    return {s.number: s for phase in plan.phases for s in phase.sessions}


def test_plan_has_two_phases_and_four_tdd_sessions_without_diagnostics(plan: Plan) -> None:
    assert sorted(p.name for p in PLAN.iterdir()) == [
        "PHASE_1_LEDGER_CORE.md",
        "PHASE_2_REPORTING.md",
    ]
    assert plan.diagnostics == []
    assert [(p.number, p.name) for p in plan.phases] == [(1, "Ledger Core"), (2, "Reporting")]
    sessions = _sessions(plan)
    assert sorted(sessions) == [1, 2, 3, 4]
    for number, (phase, title, deps, _test) in EXPECTED.items():
        session = sessions[number]
        assert (session.phase, session.title, session.dependencies) == (phase, title, deps)
        assert session.tdd
        assert session.red and session.green and session.refactor
        assert session.exit_criteria and session.objectives


@pytest.mark.parametrize("number", sorted(EXPECTED))
def test_session_commands_and_files_match_the_prepared_files(plan: Plan, number: int) -> None:
    session = _sessions(plan)[number]
    test_file = EXPECTED[number][3]
    assert session.red is not None and session.red.test_command == f"pytest {test_file}"
    assert session.green is not None and session.green.inherits
    assert session.refactor is not None and session.refactor.inherits

    folder = SOLUTIONS / f"session-{number}"
    prepared = {
        p.relative_to(step).as_posix()
        for step in folder.iterdir()
        for p in step.rglob("*")
        if p.is_file()
    }
    listed = {f.path for f in session.files}
    assert listed == prepared
    assert all(not Path(p).is_absolute() and ".." not in Path(p).parts for p in listed)
