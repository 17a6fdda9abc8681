"""The words plans use, one variant per case."""

from __future__ import annotations

import pytest

from executor.plan.text import stepwords
from executor.plan.text import vocabulary as voc


@pytest.mark.parametrize(
    ("heading", "role", "container"),
    [
        ("Step 1: Write Tests FIRST (RED)", "red", False),
        ("Step 1: RED Phase - Write Failing Tests", "red", False),
        ("Step 2: Implement Models (GREEN)", "green", False),
        ("Step 2: GREEN Phase - Make Tests Pass", "green", False),
        ("Step 3: Refactor (REFACTOR)", "refactor", False),
        ("Refactor", "refactor", False),
        ("Step 3: Refactor", "refactor", False),
        ("Step 1: Write the failing tests", "red", False),
        ("Step 2: Implement the client", "green", False),
        ("TDD Workflow (RED-GREEN-REFACTOR)", None, True),
        ("Files to Create/Modify", None, False),
        ("Required Reading", None, False),
    ],
)
def test_step_roles_are_recognised_from_their_words(
    heading: str, role: str | None, container: bool
) -> None:
    got = stepwords.step_role(heading)
    assert (got.role, got.container) == (role, container)


def test_a_step_heading_without_a_role_is_flagged() -> None:
    assert stepwords.step_role("Step 4: Write documentation").unrecognised_step


@pytest.mark.parametrize(
    ("raw", "title", "tdd", "hours"),
    [
        ("Ledger Models (TDD)", "Ledger Models", True, None),
        ("Ledger Models (2-3 hours)", "Ledger Models", False, 2.5),
        ("Ledger Models (TDD) (2 hours)", "Ledger Models", True, 2.0),
        ("Posts API (3-4 hours) (TDD)", "Posts API", True, 3.5),
        ("Vue (Composition API)", "Vue (Composition API)", False, None),
        ("Setup (90 minutes)", "Setup", False, 1.5),
    ],
)
def test_titles_lose_tdd_and_time_suffixes(
    raw: str, title: str, tdd: bool, hours: float | None
) -> None:
    parts = voc.split_title(raw)
    assert (parts.title, parts.tdd, parts.hours) == (title, tdd, hours)


@pytest.mark.parametrize(
    ("text", "refs"),
    [
        ("None (first session)", []),
        ("None", []),
        ("", []),
        ("Session 1", [1]),
        ("Session 1 (models)", [1]),
        ("Sessions 1, 2", [1, 2]),
        ("Session 1, Session 2", [1, 2]),
        ("Sessions 1 and 3", [1, 3]),
        ("Sessions 2-4", [2, 3, 4]),
        ("Requires the models from Session 2 and the API of Session 5", [2, 5]),
        ("the models must exist", None),
    ],
)
def test_dependency_phrasings(text: str, refs: list[int] | None) -> None:
    assert voc.parse_session_refs(text) == refs


@pytest.mark.parametrize(
    ("text", "value"), [("~70 tests", 70), ("~15,000 tokens", 15000), ("15k tokens", 15000)]
)
def test_counts(text: str, value: int) -> None:
    assert voc.parse_count(text) == value


@pytest.mark.parametrize(
    ("text", "hours"), [("2.5 hours", 2.5), ("2-3 hours", 2.5), ("1 day", 8.0), ("soon", None)]
)
def test_hours(text: str, hours: float | None) -> None:
    assert voc.parse_hours(text) == hours


@pytest.mark.parametrize(
    ("span", "is_path"),
    [
        ("ledger/models.py", True),
        ("src/App.vue", True),
        ("e2e/blog.spec.ts", True),
        ("/etc/passwd.conf", True),
        ("/api", False),
        ("pytest tests/test_x.py", False),
        ("1.005", False),
        ("localStorage", False),
        ("Post.objects.published()", False),
    ],
)
def test_paths_in_steps(span: str, is_path: bool) -> None:
    assert voc.looks_like_path(span) is is_path


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("ledger/models.py", None),
        ("/etc/passwd", "is absolute"),
        ("C:/Windows/x.py", "is absolute"),
        ("../other/x.py", "climbs out with '..'"),
        ("a/../../x.py", "climbs out with '..'"),
        ("~/.bashrc", "points into a home directory"),
        ("a/..b/x.py", None),
    ],
)
def test_paths_leaving_the_repository(path: str, problem: str | None) -> None:
    assert voc.path_problem(path) == problem


#: Step titles from real task plans (format C), each with the meaning it must get.
STEP_PHRASES = [
    ("Write the failing test", "write_test"),
    ("Write the failing tests", "write_test"),
    ("Write the RED baseline test script", "write_test"),
    ("Add the failing test for `lines`", "write_test"),
    ("RED Phase - Write Failing Tests", "write_test"),
    ("Run test to verify it fails", "verify_fail"),
    ("Run tests to verify they fail", "verify_fail"),
    ("Run tests and verify RED", "verify_fail"),
    ("Run RED phase — confirm agent uses git worktree add today", "verify_fail"),
    ("RED — run the three new scenarios against dev", "verify_fail"),
    ("Write minimal implementation", "implement"),
    ("Implement the helpers", "implement"),
    ("If RED confirmed, proceed. Write the Step 1a skill text.", "implement"),
    ("Write checks.sh (no executable bit)", "implement"),
    ("Create the evals branch", "implement"),
    ("Stop server with Ctrl-C, clean up", "implement"),
    ("Run test to verify it passes", "verify_pass"),
    ("Run tests and verify GREEN", "verify_pass"),
    ("Run GREEN phase — confirm agent now uses EnterWorktree", "verify_pass"),
    ("Re-run Step 1a GREEN test", "verify_pass"),
    ("Run the whole suite", "verify_pass"),
    ("Run both test suites", "verify_pass"),
    ("Verify the file reads correctly", "verify_pass"),
    ("Validate and commit (evals repo)", "verify_pass"),
    ("Regression — run the existing SDD scenarios against the redesign", "verify_pass"),
    ("Refactor the shared splitting into a helper", "refactor"),
    ("Clean up duplication", "refactor"),
    ("Commit", "commit"),
    ("Commit test script", "commit"),
    ("Commit (evals repo) and clean up", "commit"),
    ("Final commit if any fixups needed", "commit"),
]


@pytest.mark.parametrize(("title", "meaning"), STEP_PHRASES)
def test_step_meaning_by_phrasing(title: str, meaning: str) -> None:
    assert stepwords.step_meaning(title) == meaning


def test_refs_by_word() -> None:
    assert voc.parse_session_refs("Task 1 GREEN passing.", word="task") == [1]
    assert voc.parse_session_refs("Phases 3, 4, 5 must be complete", word="phase") == [3, 4, 5]
    assert voc.parse_session_refs("None (foundational layer)", word="phase") == []


def test_directory_trees_become_paths() -> None:
    tree = """\
backend/
  apps/users/
    models.py        # the model
    tests/
      test_models.py
# a comment line
src/
├── App.vue
└── components
    └── Login.vue    // login form
Makefile
"""
    from executor.plan.text.files import tree_paths

    assert tree_paths(tree) == [
        ("backend/apps/users/models.py", "the model", 2),
        ("backend/apps/users/tests/test_models.py", "", 4),
        ("src/App.vue", "", 7),
        ("src/components/Login.vue", "login form", 9),
        ("Makefile", "", 10),
    ]


def test_spec_kit_test_sections() -> None:
    assert stepwords.is_test_section(
        "Tests for User Story 1 (OPTIONAL - only if tests requested) ⚠️"
    )
    assert stepwords.is_test_section("Phase 3.2: Tests First (TDD)")
    assert not stepwords.is_test_section("Implementation for User Story 1")
    assert not stepwords.is_test_section("Backend - Database Layer")
