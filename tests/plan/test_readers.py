"""Each format's reader on our own fixtures (tests/plan/fixtures), with lines checked."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from executor.errors import UserError
from executor.plan import lint, load_plan
from executor.plan.formats import detect, detect_text
from executor.plan.models import Plan, Session
from tests.plan.helpers import lint_messages

FIXTURES = Path(__file__).parent / "fixtures"
PHASE = FIXTURES / "phase-variants"
OVERVIEW = FIXTURES / "overview"
SUPERPOWERS = FIXTURES / "superpowers" / "docs" / "plans" / "2025-05-01-word-count.md"
SPECKIT = FIXTURES / "speckit" / "specs" / "001-notes"


def _session(plan: Plan, number: int) -> Session:
    session = plan.session(number)
    assert session is not None
    return session


def test_each_fixture_is_detected_as_its_format() -> None:
    assert detect(PHASE) == ("phase", PHASE)
    assert detect(OVERVIEW) == ("overview", OVERVIEW)
    assert detect(SUPERPOWERS.parent) == (
        "superpowers",
        SUPERPOWERS,
    )  # the design note is not a plan
    assert detect(SPECKIT) == ("speckit", SPECKIT / "tasks.md")
    assert detect_text("# Notes\n\nnothing to run\n") is None


def test_a_numbered_tdd_workflow_a_file_tree_and_library_dependencies() -> None:
    plan = load_plan(PHASE)
    assert plan.format == "phase" and plan.diagnostics == []
    s1 = _session(plan, 1)
    assert (s1.title, s1.estimated_hours, s1.tdd) == ("Note Model", 2.5, True)
    assert s1.red is not None and s1.green is not None and s1.refactor is not None
    assert (s1.red.line, s1.green.line, s1.refactor.line) == (12, 15, 17)
    assert s1.red.tasks == [
        "Write `tests/test_note.py`",
        "Test a note needs a title",
        "Test tags are stored lower-case",
    ]
    assert s1.red.files == ["tests/test_note.py"] and s1.green.files == ["notes/model.py"]
    assert [(f.path, f.note, f.line) for f in s1.files] == [
        ("notes/__init__.py", "the package", 23),
        ("notes/model.py", "Note, tags", 24),
        ("tests/conftest.py", "", 26),
        ("tests/test_note.py", "the model tests", 27),
    ]
    assert s1.dependencies == [] and s1.dependencies_line is None  # a library list is prose
    assert s1.claimed_done and s1.box_lines == [8, 9, 31]
    s2 = _session(plan, 2)
    assert (
        s2.red is not None
        and s2.red.heading == "RED: write failing store tests in tests/test_store.py"
    )
    assert s2.refactor is not None and s2.refactor.test_command == "pytest tests/test_store.py"
    assert s2.test_command("red") == "pytest tests/test_store.py"
    assert (s2.dependencies, s2.claimed_done) == ([1], False)


def test_a_lone_unreadable_dependency_still_warns(tmp_path: Path) -> None:
    path = tmp_path / "PHASE_1_X.md"
    text = (PHASE / "PHASE_1_NOTES_CORE.md").read_text(encoding="utf-8")
    path.write_text(text.replace("Session 1\n", "after the model\n"), encoding="utf-8")
    assert lint_messages(load_plan(path), "warning")[1] == (
        "PHASE_1_X.md",
        58,
        "cannot read the dependency 'after the model'; expected 'None', 'Session N' or "
        "'Sessions N, M'",
    )


def test_b_bullet_summaries_run_as_derived_tdd_sessions_in_plan_order() -> None:
    plan = load_plan(OVERVIEW)
    assert (plan.format, plan.name) == ("overview", "Recipe Box")
    assert [(p.number, p.name) for p in plan.phases] == [(1, "Backend"), (2, "Frontend")]
    s1, s2, s3 = plan.sessions()
    assert s1.derived and s1.tdd and (s1.estimated_hours, s1.estimated_tests) == (2.0, 40)
    assert (s2.estimated_tests, s3.estimated_tests) == (25, 30)  # not the phase total's
    assert s1.red is not None and s1.red.tasks == [
        "Create the `recipes` app",
        "Recipe model with title, steps and tags",
    ]
    assert s1.green is not None and s1.refactor is not None and s1.test_command("red") is None
    assert [s.dependencies for s in (s1, s2, s3)] == [[], [1], [2]]
    assert lint_messages(plan) == [
        (
            "PROJECT_PLAN.md",
            12,
            "Sessions 1-3: steps derived from the bullet summary: a TDD session runs as RED "
            "(failing tests for its bullets), GREEN and REFACTOR, another as one implementation "
            "step, with the project's test command",
        ),
        (
            "PROJECT_PLAN.md",
            12,
            "Sessions 1-3: no test command in the plan and none configured for the project: "
            "set test_command under [tool.executor] in pyproject.toml (or in .executor.toml), "
            "or pass --test-command",
        ),
    ]
    assert len(lint(plan, project_test_command="pytest")) == 1  # only the derived-steps note


def test_c_tasks_steps_by_meaning_files_and_dependencies() -> None:
    plan = load_plan(SUPERPOWERS)
    assert (plan.format, plan.name, plan.diagnostics) == ("superpowers", "Word Count", [])
    assert [(p.number, p.name, [s.number for s in p.sessions]) for p in plan.phases] == [
        (1, "Counting", [1, 2]),
        (2, "Command line", [3]),
    ]
    s1 = _session(plan, 1)
    assert s1.red is not None and s1.green is not None and s1.refactor is None
    assert s1.red.tasks == ["Step 1: Write the failing test", "Step 2: Run test to verify it fails"]
    assert (s1.red.test_command, s1.red.expected) == (
        "pytest tests/test_count.py -v",
        'FAIL with "ModuleNotFoundError"',
    )
    assert (s1.red.files, s1.green.files) == (["tests/test_count.py"], ["wc/count.py"])
    assert (s1.green.test_command, s1.green.expected) == ("pytest tests/test_count.py -v", "PASS")
    assert [(f.path, f.note) for f in s1.files] == [
        ("wc/count.py", "create"),
        ("tests/test_count.py", "test"),
    ]
    assert s1.claimed_done and s1.box_lines == [17, 26, 30, 37, 42]
    assert "git commit" not in s1.brief_text and "Step 5: Commit" not in s1.brief_text
    assert "def words(text):" in s1.brief_text  # code blocks reach the agent verbatim
    assert "Step 5: Commit" in s1.source_text
    s2 = _session(plan, 2)
    assert s2.refactor is not None and s2.refactor.tasks == [
        "Step 5: Refactor the shared splitting into a helper",
        "Step 6: Run the whole suite",
    ]
    assert (s2.test_command("refactor"), s2.dependencies) == ("pytest -q", [1])
    assert [(f.path, f.note) for f in s2.files] == [
        ("wc/count.py", "modify"),
        ("tests/test_count.py", "test (add one test)"),
    ]
    s3 = _session(plan, 3)
    assert (s3.tdd, s3.red, s3.dependencies, [f.path for f in s3.files]) == (
        False,
        None,
        [1],
        ["wc/cli.py"],
    )
    assert s3.dependencies_line == 79


def test_d_phases_test_tasks_checkpoints_and_commands() -> None:
    plan = load_plan(SPECKIT)
    assert (plan.format, plan.name, plan.diagnostics) == ("speckit", "Sticky Notes", [])
    setup, story, polish = plan.sessions()
    assert (setup.tdd, setup.red, setup.refactor, setup.claimed_done) == (False, None, None, True)
    assert setup.green is not None and setup.green.tasks[0].startswith("T001 Create the package")
    assert [f.path for f in setup.files] == ["notes/", "notes/__init__.py", "tests/conftest.py"]
    assert story.tdd and story.red is not None and story.green is not None
    assert story.red.tasks == [
        "T003 [P] [US1] Unit test for adding a note in tests/unit/test_add.py",
        "T004 [US1] Contract test for the list output in tests/contract/test_list.py",
    ]
    assert story.green.files == ["notes/core.py"]
    assert story.checkpoints == ["User Story 1 works on its own: add a note, list it"]
    assert story.test_command("red") == "python -m pytest -q"
    assert (story.box_lines, story.claimed_done) == ([21, 22, 26, 27], False)
    assert (polish.dependencies, polish.checkpoints) == ([1], ["Ready to demo"])
    assert (polish.line_start, polish.line_end) == (33, 40)  # ends before the next ## section
    assert lint(plan) == []


def test_forcing_a_format_and_an_unknown_format(tmp_path: Path) -> None:
    forced = load_plan(SPECKIT / "tasks.md", "d")
    assert forced.format == "speckit" and len(forced.sessions()) == 3
    wrong = load_plan(SPECKIT / "tasks.md", "superpowers")
    assert [d.message for d in wrong.errors] == [
        "no sessions found: this is a spec-kit tasks.md, not a superpowers task plan: read "
        "it without --format, or with --format speckit"
    ]
    with pytest.raises(UserError, match=r"unknown plan format 'g'; choose one of A \(phase\)"):
        load_plan(SPECKIT, "g")


PIECES = [
    "# Phase 1: X",
    "## Phase 2",
    "## Session 1: A",
    "### Session 2: B (2-3 hours)",
    "### Task 1: T",
    "## Task",
    "- [ ] **Step 1: Write the failing test**",
    "- [x] **Step 2: Run test to verify it fails**",
    "  Run: `pytest -q`",
    "Run:",
    "Expected: FAIL",
    "**Files:**",
    "- Create: `a/b.py`",
    "- Read:",
    "**Depends on:** Task 9",
    "- [ ] T001 [P] [US1] Do x in src/x.py",
    "### Tests for User Story 1",
    "**Checkpoint**: ok",
    "**Dependencies**: Phase 7",
    "#### TDD Workflow",
    "1. **Test First**: x",
    "   - nested",
    "```",
    "```mermaid",
    "S1 --> S2",
    "---",
    "",
    "**Run tests**: Should now PASS",
    "#### Step 1: (RED)",
    "#### Files to Create",
    "src/",
    "  ├── a.py  # note",
    "> quote",
    "**Estimated Time**: lots",
    "Session 3a",
]


@given(st.lists(st.sampled_from(PIECES), max_size=40), st.sampled_from(["a", "b", "c", "d"]))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_no_text_makes_a_reader_raise(lines: list[str], fmt: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plan.md"
        path.write_text("\n".join(lines), encoding="utf-8")
        plan = load_plan(path, fmt)
        for d in lint(plan):
            assert d.line >= 1 and d.path.name in ("plan.md", tmp.rsplit("/", 1)[-1])


def test_package_functions_stay_functions_after_their_modules_load() -> None:
    """Importing a submodule sets an attribute of the same name on the package: the lazy
    `lint`/`load_plan`/`discover_plan` must not share a name with one."""
    import importlib

    import executor.plan as plan_package

    for module in ("loader", "linting.rules", "discover", "formats"):
        importlib.import_module(f"executor.plan.{module}")
    for name in plan_package.__all__:
        assert callable(getattr(plan_package, name)) or name == "PlanInvalidError", name
    assert not isinstance(plan_package.lint, type(plan_package))


def test_d_an_execution_order_line_orders_the_phases(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.md"
    tasks.write_text(
        "# Tasks: Todo\n\n"
        "## Phase 1: Setup\n\n- [ ] T001 Create `src/app.py`\n\n"
        "## Phase 2: Foundational\n\n**Dependencies**: None (foundational layer)\n\n"
        "- [ ] T002 Add `src/db.py`\n\n"
        "## Phase 3: Polish\n\n- [ ] T003 Tidy `src/app.py`\n\n"
        "## Dependencies & Execution Order\n\n"
        "1. **Phase 1** (Setup) → **Phase 2** (Foundational)\n"
        "2. **Phases 1, 2** → **Phase 3** (Polish)\n"
        "3. Or in priority order (P1 → P2)\n",
        encoding="utf-8",
    )
    plan = load_plan(tasks)
    assert [s.dependencies for s in plan.sessions()] == [[], [1], [1, 2]]
    warnings = [(d.line, d.message) for d in plan.diagnostics if d.severity == "warning"]
    assert warnings == [
        (
            19,
            "Phase 2 waits for phase 1: this line orders them so, though the phase's own "
            "dependencies (line 9) leave it out",
        ),
    ]


def test_a_byte_order_mark_is_not_part_of_the_title(tmp_path: Path) -> None:
    source = SUPERPOWERS
    plan_file = tmp_path / source.name
    plan_file.write_bytes(b"\xef\xbb\xbf" + source.read_bytes().replace(b"\n", b"\r\n"))
    assert load_plan(plan_file).name == load_plan(source).name != plan_file.stem


def test_a_folder_of_several_plans_names_them(tmp_path: Path) -> None:
    for name in ("a.md", "b.md"):
        shutil.copy(SUPERPOWERS, tmp_path / name)
    with pytest.raises(UserError, match="2 plans in ") as caught:
        load_plan(tmp_path)
    assert f"{tmp_path / 'a.md'}: format C (superpowers)" in str(caught.value)


def test_a_plan_of_another_format_beside_phase_files_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "plan"
    shutil.copytree(PHASE, folder)
    shutil.copy(SPECKIT / "tasks.md", folder / "tasks.md")
    plan = load_plan(folder)
    assert plan.format == "phase"
    assert [(d.path.name, d.severity) for d in lint(plan) if "another format" in d.message] == [
        ("tasks.md", "warning")
    ]
