"""Real plans from other tools (the shared plans-wild folder `EXECUTOR_WILD_PLANS` names)
validate with the session counts a human reader counts. Where that folder is absent (CI)
the test is skipped, and tests/plan/test_readers.py covers the same constructs on our own
fixtures."""

from __future__ import annotations

import pytest

from executor.plan import lint, load_plan
from tests.plan.corpus import WILD

#: file -> (format, phases, sessions), counted by reading each plan before parsing it
EXPECTED = {
    "superpowers/2026-03-11-zero-dep-brainstorm-server.md": ("superpowers", 3, 4),
    "superpowers/2026-04-06-worktree-rototill.md": ("superpowers", 1, 5),
    "superpowers/2026-07-15-sdd-fix-loop-redesign.md": ("superpowers", 1, 8),
    "speckit/todo-app/tasks.md": ("speckit", 6, 6),
    "speckit/chat-api/tasks.md": ("speckit", 7, 7),
    "phase-planner/social/PROJECT_PLAN.md": ("overview", 8, 18),
    "phase-planner/projectmanagement/PROJECT_PLAN.md": ("overview", 11, 24),
}
NOT_PLANS = {
    "README.md",
    "speckit/speckit.tasks-command.md",
    "phase-planner/PHASE_TASKS_TEMPLATE.md",
}

pytestmark = pytest.mark.skipif(
    not WILD.is_dir(), reason=f"{WILD} (real plans shared beside the repository) is not here"
)


def test_every_wild_plan_is_listed() -> None:
    found = {p.relative_to(WILD).as_posix() for p in WILD.rglob("*.md")}
    assert found - NOT_PLANS == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_wild_plan_validates_with_the_counts_a_reader_counts(name: str) -> None:
    plan = load_plan(WILD / name)
    errors = [str(d) for d in lint(plan) if d.severity == "error"]
    assert errors == []
    assert (plan.format, len(plan.phases), len(plan.sessions())) == EXPECTED[name]
    for s in plan.sessions():
        assert s.source_text.strip() and s.brief_text.strip()
        assert s.green is not None, f"session {s.number} has no work step"


def test_wild_overview_estimates_are_each_sessions_own() -> None:
    social = load_plan(WILD / "phase-planner/social/PROJECT_PLAN.md")
    tests = [s.estimated_tests for s in social.sessions()]
    assert tests[:4] == [60, 80, 90, 70]  # session 4 is not "Phase 1 Total"'s number
    assert all(t is not None and t >= 40 for t in tests)


def test_wild_spec_kit_critical_path_orders_the_phases() -> None:
    todo = load_plan(WILD / "speckit/todo-app/tasks.md")
    assert [s.dependencies for s in todo.sessions()] == [[], [1], [2], [3], [4], [3, 4, 5]]


def test_wild_claims_are_read_from_the_boxes() -> None:
    chat = load_plan(WILD / "speckit/chat-api/tasks.md")
    assert all(s.claimed_done for s in chat.sessions())  # every task ticked [x]
    todo = load_plan(WILD / "speckit/todo-app/tasks.md")
    assert [s.claimed_done for s in todo.sessions()] == [True, True, False, False, True, False]
    sdd = load_plan(WILD / "superpowers/2026-07-15-sdd-fix-loop-redesign.md")
    s4 = sdd.session(4)
    assert s4 is not None and s4.tdd and s4.red is not None
    assert s4.red.test_command == "cd evals && bun test test/setup-helpers-sdd.test.ts"
    assert not any(s.claimed_done for s in sdd.sessions())
