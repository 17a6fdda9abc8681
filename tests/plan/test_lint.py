"""Broken plans: each lint rule's exact text and line."""

from __future__ import annotations

import textwrap
from pathlib import Path

from executor.plan import lint, load_plan
from tests.plan.helpers import lint_messages, load, session, write

F = "PHASE_1_CORE.md"
LINT_NO_COMMAND = (
    "Session 1: no test command in the plan and none configured for the project: set "
    "test_command under [tool.executor] in pyproject.toml (or in .executor.toml), or pass "
    "--test-command"
)


def test_a_clean_plan_has_no_diagnostics(tmp_path: Path) -> None:
    plan = load(tmp_path, session(1) + session(2, "Session 1"))
    assert lint(plan) == []


def test_duplicate_session_numbers(tmp_path: Path) -> None:
    plan = load(tmp_path, session(1) + session(1))
    assert lint_messages(plan, "error") == [
        (F, 26, "duplicate session number 1: Session 1 is already defined at PHASE_1_CORE.md:1")
    ]


def test_a_duplicate_that_depends_on_its_twin_is_not_also_a_cycle(tmp_path: Path) -> None:
    plan = load(tmp_path, session(1) + session(1, "Session 1"))
    assert [m for _, _, m in lint_messages(plan, "error")] == [
        "duplicate session number 1: Session 1 is already defined at PHASE_1_CORE.md:1"
    ]


def test_dependency_on_a_missing_session(tmp_path: Path) -> None:
    plan = load(tmp_path, session(1) + session(2, "Sessions 1, 7"))
    assert lint_messages(plan, "error") == [
        (F, 49, "Session 2 depends on Session 7, which does not exist")
    ]


def test_dependency_cycle_is_named(tmp_path: Path) -> None:
    plan = load(
        tmp_path, session(1, "Session 3") + session(2, "Session 1") + session(3, "Session 2")
    )
    assert lint_messages(plan, "error") == [
        (F, 24, "dependency cycle: Session 1 -> Session 3 -> Session 2 -> Session 1")
    ]


def test_self_dependency_is_a_cycle(tmp_path: Path) -> None:
    plan = load(tmp_path, session(1, "Session 1"))
    assert lint_messages(plan, "error") == [(F, 24, "dependency cycle: Session 1 -> Session 1")]


def test_tdd_session_without_red_or_green(tmp_path: Path) -> None:
    plan = load(
        tmp_path,
        """
        ## Session 1: Models (TDD)
        ### Objectives
        - [ ] models
        ### Files
        - `m.py`
        ### Exit Criteria
        - [ ] done
        """,
    )
    assert lint_messages(plan, "error") == [
        (
            F,
            1,
            "Session 1 is a TDD session but has no RED step; expected a heading naming "
            "it, e.g. '#### Step: ... (RED)'",
        ),
        (
            F,
            1,
            "Session 1 is a TDD session but has no GREEN step; expected a heading naming "
            "it, e.g. '#### Step: ... (GREEN)'",
        ),
    ]


def test_non_tdd_session_needs_no_steps(tmp_path: Path) -> None:
    plan = load(
        tmp_path,
        """
        ## Session 1: Deploy
        ### Files
        - `deploy.sh`
        ### Exit Criteria
        - [ ] deployed
        """,
    )
    s = plan.session(1)
    assert s is not None and not s.tdd and s.red is None and s.green is not None
    assert lint_messages(plan, "error") == []
    assert [m for _, _, m in lint_messages(plan, "warning")] == [
        "Session 1: no test command in the plan and none configured for the project: set "
        "test_command under [tool.executor] in pyproject.toml (or in .executor.toml), or pass "
        "--test-command"
    ]


def test_tdd_session_without_any_test_command(tmp_path: Path) -> None:
    text = session(1).replace("**Run tests**: `pytest tests/test_1.py`", "**Run tests**: they fail")
    plan = load(tmp_path, text)
    assert lint_messages(plan, "error") == [
        (
            F,
            1,
            "Session 1 has no test command: no step gives one in '**Run tests**: `command`' "
            "and no project test command is configured (--test-command)",
        )
    ]
    assert lint_messages(plan, "error", project_test_command="pytest") == []


def test_file_paths_that_leave_the_repository(tmp_path: Path) -> None:
    text = session(1).replace(
        "- `thing_1.py`", "- `/etc/thing.py`\n- `../other/x.py` (sibling)\n- ~/x.py"
    )
    text = text.replace("Create `tests/test_1.py`:", "Create `tests/../../t.py`:")
    plan = load(tmp_path, text)
    assert lint_messages(plan, "error") == [
        (F, 7, "file path 'tests/../../t.py' leaves the repository: it climbs out with '..'"),
        (F, 18, "file path '/etc/thing.py' leaves the repository: it is absolute"),
        (F, 19, "file path '../other/x.py' leaves the repository: it climbs out with '..'"),
        (F, 20, "file path '~/x.py' leaves the repository: it points into a home directory"),
    ]


def test_warnings_gap_no_exit_criteria_no_files(tmp_path: Path) -> None:
    bare = """
        ## Session 3: Bare (TDD)
        #### Step 1 (RED)
        **Run tests**: `pytest`
        #### Step 2 (GREEN)
        """
    plan = load(tmp_path, session(1) + "\n" + textwrap.dedent(bare))
    assert lint_messages(plan, "error") == []
    assert lint_messages(plan, "warning") == [
        (F, 27, "gap in session numbering: Session 2 missing before Session 3"),
        (F, 27, "Session 3 has no exit criteria"),
        (F, 27, "Session 3 has no files list"),
    ]


def test_things_that_look_like_sessions_but_are_not_readable(tmp_path: Path) -> None:
    plan = load(
        tmp_path,
        session(1)
        + """
## Session: Cleanup

## Session 3a - Extra
""",
    )
    assert lint_messages(plan, "error") == [
        (
            F,
            26,
            "heading 'Session: Cleanup' looks like a session but has no readable number; "
            "expected 'Session N: Title'",
        ),
        (
            F,
            28,
            "heading 'Session 3a - Extra' looks like a session but has no readable number; "
            "expected 'Session N: Title'",
        ),
    ]


def test_headings_that_only_start_with_session_are_not_flagged(tmp_path: Path) -> None:
    plan = load(tmp_path, session(1) + "\n## Session Dependencies\n\nText.\n")
    assert lint(plan) == []


def test_unreadable_dependency_and_step_are_warnings_with_lines(tmp_path: Path) -> None:
    text = session(1, "the models must exist").replace(
        "#### Step 2: Implement (GREEN)",
        "#### Step 2: Implement (GREEN)\n\n#### Step 3: Write docs",
    )
    plan = load(tmp_path, text)
    assert lint_messages(plan, "warning") == [
        (
            F,
            14,
            "step heading 'Step 3: Write docs' names no TDD role; expected RED, GREEN or "
            "REFACTOR in its words (e.g. 'Step 1: Write Tests FIRST (RED)')",
        ),
        (
            F,
            26,
            "cannot read the dependency 'the models must exist'; expected 'None', "
            "'Session N' or 'Sessions N, M'",
        ),
    ]


def test_no_sessions_at_all(tmp_path: Path) -> None:
    plan = load(tmp_path, "# Notes\n\nNothing here.\n", "notes.md")
    assert lint_messages(plan, "error") == [
        ("notes.md", 1, "no sessions found; expected headings like '## Session 1: Title'")
    ]


def test_empty_folder(tmp_path: Path) -> None:
    write(tmp_path, "README.md", "# hi\n")
    from executor.plan import load_plan

    errors = [d.message for d in load_plan(tmp_path).errors]
    assert errors[0].startswith("no plan files here; expected PHASE_<n>_<NAME>.md files")
    assert len(errors) == 1  # not also "no sessions found"


def test_a_folder_of_plans_names_them(tmp_path: Path) -> None:
    """Pointed at the folder above its plans (specs/, project-plans/), a user is told
    which plans are there, not only that this folder is none."""
    from executor.plan import load_plan

    write(tmp_path / "chat", "tasks.md", "# Tasks\n\n## Phase 1: Setup\n\n- [ ] T001 init\n")
    write(tmp_path / "todo", "PROJECT_PLAN.md", "# Todo\n")
    write(tmp_path / "notes", "README.md", "# not a plan\n")
    errors = [d.message for d in load_plan(tmp_path).errors]
    assert len(errors) == 1
    assert errors[0].endswith("; plans in its subfolders: chat, todo (name one with --plan)")


def test_a_planners_template_is_called_one(tmp_path: Path) -> None:
    text = "# Phase {{PHASE_NUMBER}}\n\n## Session {{SESSION_NUMBER}}: {{SESSION_NAME}}\n"
    plan = load(tmp_path, text, "PHASE_TASKS_TEMPLATE.md")
    assert [m for _, _, m in lint_messages(plan, "error")] == [
        "no sessions found; expected headings like '## Session 1: Title' (its headings hold "
        "{{...}} placeholders: this is a template to fill in, not a plan)"
    ]


def test_paths_from_the_authors_checkout_read_relative_with_one_warning(tmp_path: Path) -> None:
    root = "/Users/someone/Projects/app/"
    folder = tmp_path / "specs" / "002-x"
    path = write(
        folder,
        "tasks.md",
        f"""
        # Tasks: X

        **Input**: Design documents from `{root}specs/002-x/`

        ## Phase 1: Setup

        - [ ] T001 Create `{root}app/core.py`
        - [ ] T002 Add `{root}app/core.py` to `{root}docs/index.md`
        - [ ] T003 Change `/etc/app.conf` on the server
        """,
    )
    plan = load_plan(path)
    (setup,) = plan.sessions()
    assert [f.path for f in setup.files] == ["app/core.py", "docs/index.md"]
    assert [t.files for t in setup.tasks] == [
        ["app/core.py"],
        ["app/core.py", "docs/index.md"],
        [],
    ]
    warning = f"file paths from the author's machine ({root}...) are read relative to the "
    assert lint_messages(plan) == [
        ("tasks.md", 5, LINT_NO_COMMAND),
        ("tasks.md", 7, warning + "repository"),
    ]


def test_an_absolute_path_outside_any_checkout_is_one_error_at_its_line(tmp_path: Path) -> None:
    text = session(1).replace("- `thing_1.py`", "- `/opt/thing.py`\n- `/opt/thing.py` (again)")
    plan = load(tmp_path, text)
    assert lint_messages(plan, "error") == [
        (F, 18, "file path '/opt/thing.py' leaves the repository: it is absolute")
    ]
