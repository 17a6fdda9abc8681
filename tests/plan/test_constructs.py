"""Each construct the real plans use (tests/plan/real/SOURCES.md), on fixtures of our own
(tests/plan/fixtures/constructs/: each names the plan it models on its first line),
read as a careful person reads it."""

from __future__ import annotations

from pathlib import Path

from executor.plan import lint, load_plan
from executor.plan.models import Plan, Session

C = Path(__file__).parent / "fixtures" / "constructs"


def _session(plan: Plan, number: int) -> Session:
    found = plan.session(number)
    assert found is not None, f"no session {number}"
    return found


def _commands(s: Session) -> tuple[str | None, str | None, str | None]:
    return tuple(  # type: ignore[return-value]
        None if (step := s.step(role)) is None else step.test_command
        for role in ("red", "green", "refactor")
    )


def _errors(plan: Plan) -> list[str]:
    return [f"{d.line}: {d.message}" for d in lint(plan) if d.severity == "error"]


def test_a_markdown_block_with_fences_inside_hides_nothing_and_stray_headings_keep_steps() -> None:
    plan = load_plan(C / "nested-fences.md")
    assert [(s.number, s.title) for s in plan.sessions()] == [
        (1, "Document the install"),
        (2, "Write the guide"),
        (3, "Release notes"),
    ]
    first, second, notes = plan.sessions()
    assert _commands(first) == (None, "mkdocs build --strict", None)  # after the block
    assert not first.tdd and [f.path for f in first.files] == ["README.md"]
    # Task 2's block ends where its author ended it: its headings stay inside, and the
    # block's lines after Step 3 are one command
    assert _commands(second) == (None, "cd backend && pytest -q && ruff check .", None)
    assert (second.line_start, second.line_end) == (31, 71)
    # a heading of the task's level between Task 3's steps: the steps go on numbering,
    # so Step 2 is still Task 3's; the appendix after it is no task's
    assert _commands(notes) == (None, "lychee docs/", None)
    assert (notes.line_start, notes.line_end, notes.box_lines) == (73, 83, [])
    assert _errors(plan) == []


def test_bare_blocks_after_run_steps_setup_and_manual_steps() -> None:
    plan = load_plan(C / "bare-blocks.md")
    endpoint, widget = plan.sessions()
    assert (endpoint.label, endpoint.phase, endpoint.tdd) == ("1.1", 1, True)
    assert _commands(endpoint) == (
        "cd backend && pytest tests/test_counter.py -v",  # a bare block, two lines
        "pytest tests/test_counter.py -v",  # not the manual curl check after it
        None,
    )
    assert [f.path for f in endpoint.files] == [
        "backend/counter.py",
        "backend/tests/test_counter.py",
        "backend/app.py",  # "Modify `backend/app.py`" in a step; "Test: Manual" is no file
    ]
    assert (widget.label, widget.phase, widget.tdd, widget.dependencies) == ("2.1", 2, False, [1])
    # `npm install` and `chmod +x` are setup; the comment line of the Run: block is dropped
    assert _commands(widget) == (None, "npm run build && npm test -- Counter", None)
    assert [f.path for f in widget.files] == ["frontend/Counter.tsx"]


def test_dotted_tasks_under_slices_and_a_slice_gate() -> None:
    plan = load_plan(C / "slices.md")
    assert [(p.number, p.name) for p in plan.phases] == [(1, "Entries"), (2, "Reports")]
    assert [(s.label, s.phase, s.tdd, s.claimed_done) for s in plan.sessions()] == [
        ("1.1", 1, True, False),
        ("1.2", 1, True, True),
        ("2.1", 2, False, False),
    ]
    assert _session(plan, 2).checkpoints == ["Slice 1 gate"]  # a gate, not a task
    assert _errors(plan) == []


def test_repeated_cycles_code_before_tests_root_files_and_a_file_in_a_folder() -> None:
    plan = load_plan(C / "cycles.md")
    rounds, snapshot, final = plan.sessions()
    assert rounds.tdd and _commands(rounds) == (
        "cargo test tokenizer::numbers",  # the first failing check
        "cargo test tokenizer",  # the task's final verification, not round one's filter
        None,
    )
    assert [f.path for f in rounds.files] == [
        "src/tokenizer.rs",
        "Cargo.toml",
        "config/env.example",
    ]
    # implementation steps come first and the tests last: not a TDD session
    assert not snapshot.tdd and _commands(snapshot) == (None, "cargo test snapshot", None)
    assert [f.path for f in snapshot.files][:2] == ["src/snapshot.rs", "rust-toolchain.toml"]
    assert _commands(final) == (None, "cargo test", None)


def test_a_session_file_split_into_parts_with_a_scope_section_and_a_ground_rule() -> None:
    plan = load_plan(C / "session-parts.md")
    profile, final = plan.sessions()  # "## Session 8 Scope" is a section, not a session
    assert (profile.number, profile.title, profile.tdd) == (1, "ProfileScreen", True)
    assert [f.path for f in profile.files] == [
        "src/screens/__tests__/ProfileScreen.test.tsx",
        "src/screens/ProfileScreen.tsx",  # staged by its commit step
    ]
    red_command = "npm run test:run src/screens/__tests__/ProfileScreen.test.tsx"
    assert profile.test_command("red") == profile.test_command("green") == red_command
    assert profile.default_test_command == "npm run test:run"  # the ground rule
    assert profile.refactor is not None and profile.refactor.test_command is None
    assert (final.title, final.tdd) == ("Final Verification", False)
    assert _commands(final) == (None, "npm run type-check", None)  # `npm start` is manual
    assert _errors(plan) == []


def test_a_numbered_tdd_list_tree_files_and_a_test_first_that_runs_tests() -> None:
    plan = load_plan(C / "PHASE_3_SERVICES.md")
    assert [(p.number, p.name) for p in plan.phases] == [(3, "Services Layer")]
    classes, independent, utilities = plan.sessions()
    assert (classes.number, classes.title, classes.tdd) == (7, "Service Classes", True)
    assert [f.path for f in classes.files] == [
        "app/services/__init__.py",
        "app/services/orders.py",
        "app/tests/test_orders.py",  # a bold code span heading its code
        "app/services/README.md",
    ]
    assert classes.line_end == 50  # the template's `## Testing` stays in its block
    # "Test First: Run each app's tests" writes no tests: verification, not RED
    assert not independent.tdd
    assert _commands(independent) == (None, "pytest app/tests/ && pytest users/tests/", None)
    assert (utilities.tdd, [f.path for f in utilities.files]) == (
        False,
        ["app/utils/validators.py"],
    )
    assert [s.dependencies for s in plan.sessions()] == [[], [7], [8]]


def test_letter_phases_holding_the_work_are_the_sessions() -> None:
    plan = load_plan(C / "phase-units.md")
    model, guide = plan.sessions()
    assert (model.label, model.title, model.tdd, model.claimed_done) == (
        "A",
        "Invitation Model",
        True,
        True,
    )
    assert model.red is not None and model.red.tasks[1] == "Write test: an invitation has an email"
    assert [f.path for f in model.files] == [
        "backend/invites/models.py",
        "backend/invites/tests/test_models.py",
    ]
    assert (guide.label, guide.tdd, guide.dependencies) == ("B", False, [1])


def test_overview_sessions_as_bold_items_with_restarting_numbers() -> None:
    plan = load_plan(C / "PROJECT_PLAN.md")
    assert plan.format == "overview"
    assert [(s.number, s.phase, s.title, s.tdd, s.estimated_hours) for s in plan.sessions()] == [
        (1, 1, "Recipe Model", False, 3.0),  # tests are the last bullet: not TDD
        (2, 1, "Storage", False, 2.0),
        (3, 2, "Search Index", False, 4.0),  # its bullets are outside the list
        (4, 2, "Search API", True, 3.0),
    ]
    assert [s.dependencies for s in plan.sessions()] == [[], [1], [2], [3]]


def test_an_overview_with_phases_and_no_sessions_says_so() -> None:
    plan = load_plan(C / "overview-phases-only" / "PROJECT_PLAN.md")
    assert [(p.number, p.label, p.name) for p in plan.phases] == [
        (1, "1A", "Dependencies"),
        (2, "1B", "Sign-in"),
        (3, "2", "Watering Schedule"),
    ]
    assert _errors(plan) == [
        "1: no sessions found; expected headings like '#### Session 1: Title' (a "
        "PROJECT_PLAN.md overview with phases 1A, 1B, 2 but no sessions: their sessions are "
        "written in the phase files)"
    ]


def test_session_logs_an_html_comment_and_an_indented_tree() -> None:
    plan = load_plan(C / "PHASE_5_DASHBOARD.md")
    charts, layout = plan.sessions()  # the commented-out Session 9 is not one
    assert (charts.title, charts.tdd, charts.claimed_done) == ("Charts", False, True)
    assert [f.path for f in charts.files] == ["frontend/src/Chart.vue", "frontend/src/ui/"]
    assert (layout.title, layout.claimed_done, layout.files) == ("Layout", False, [])


def test_spec_kit_red_green_refactor_sections_commands_manual_checks_and_paths() -> None:
    plan = load_plan(C / "speckit-red-green" / "specs" / "004-export" / "tasks.md")
    setup, story, polish = plan.sessions()
    assert [f.path for f in setup.files] == ["pyproject.toml", "docs/export.md", "CHANGELOG.md"]
    assert [(t.label, t.role) for t in story.tasks] == [
        ("T003", "red"),
        ("T004", "green"),
        ("T004a", "green"),
        ("T005", "refactor"),
        ("T006", "refactor"),
    ]
    assert story.tdd and story.refactor is not None
    assert _commands(story) == (None, "uv run pytest tests/test_export.py -v", None)
    # the author's /Users/... checkout read relative to the repository
    assert [f.path for f in story.files] == ["tests/test_export.py", "notes/export.py"]
    assert story.tasks[1].depends_on == ["T003"]
    assert story.checkpoints[1].startswith("T006: [US1] Execute quickstart.md")
    assert (polish.title, polish.phase) == ("Polish & Cross-Cutting Concerns", 3)
    assert _commands(polish) == (None, "npm run typecheck && git diff --check", None)
    assert [f.path for f in polish.files] == ["package.json"]  # `npm run lint` is added to it
    warnings = [(d.line, d.message) for d in lint(plan) if "author's machine" in d.message]
    assert warnings == [
        (
            20,
            "file paths from the author's machine (/Users/dev/Projects/notes-app/...) are read "
            "relative to the repository",
        )
    ]
    assert _errors(plan) == []


def test_spec_kit_test_tasks_before_their_code_are_red_and_decimal_phases_labelled() -> None:
    plan = load_plan(C / "speckit-tests-first" / "specs" / "005-sync" / "tasks.md")
    assert [(p.number, p.label) for p in plan.phases] == [(1, "3.1"), (2, "3.2")]
    core = _session(plan, 2)
    assert [(t.label, t.role) for t in core.tasks] == [("T002", "red"), ("T003", "green")]
    assert core.tdd and core.red is not None and core.green is not None


def test_kiro_groups_optional_checkpoints_in_progress_and_flat_sub_tasks() -> None:
    path = C / "kiro" / ".kiro" / "specs" / "reminders" / "tasks.md"
    plan = load_plan(path)
    assert plan.format == "kiro"
    rows = [
        (s.number, s.label, s.phase, s.optional, s.is_checkpoint, s.claimed_done, s.dependencies)
        for s in plan.sessions()
    ]
    assert rows == [
        (1, "1.1", 1, False, False, True, []),
        (2, "1.2", 1, True, False, False, [1]),
        (3, "1.3", 1, False, False, True, [1]),
        (4, "2", 2, False, True, True, [3]),
        (5, "3.1", 3, True, False, False, [4]),
        (6, "4", 4, False, False, False, [4]),  # 4.1 at its indent does not make it a group
        (7, "4.1", 4, False, False, False, [6]),
        (8, "5", 5, False, True, False, [7]),
    ]
    first, settings = _session(plan, 1), _session(plan, 6)
    assert [f.path for f in first.files] == ["reminders.py"]
    assert [f.path for f in settings.files] == ["Settings.vue"]
    assert _commands(settings) == (None, "npm run test:unit", None)
    assert [p.name for p in first.context_files] == ["requirements.md", "design.md"]
    assert first.green is not None and first.green.tasks == ["Implement due() and snooze()"]
    assert [p.name for p in plan.phases][:2] == [
        "Set up the reminders module",
        "Checkpoint - Ensure all tests pass, ask the user if questions arise.",
    ]


def test_kiro_in_progress_box_is_a_status_not_a_tick(tmp_path: Path) -> None:
    path = tmp_path / ".kiro" / "specs" / "x" / "tasks.md"
    path.parent.mkdir(parents=True)
    path.write_text("- [-] 1. Build it\n  - do the thing\n- [ ] 2. Ship it\n", "utf-8")
    plan = load_plan(path)
    assert [(s.label, s.status, s.claimed_done) for s in plan.sessions()] == [
        ("1", "in-progress", False),
        ("2", None, False),
    ]
    assert plan.sessions()[0].context_files == []  # no requirements.md / design.md beside it


def test_task_master_tagged_ids_statuses_and_checkpoints() -> None:
    plan = load_plan(C / "taskmaster-tagged")
    assert (plan.format, plan.name) == ("taskmaster", "taskmaster-tagged")
    rows = [(s.number, s.status, s.claimed_done, s.is_checkpoint, s.dependencies, s.tag)
            for s in plan.sessions()]  # fmt: skip
    assert rows == [
        (1, "done", True, False, [], "master"),
        (2, "in-progress", False, False, [1], "master"),
        (3, "cancelled", False, False, [2], "master"),  # `"id": "3"` reads as 3
        (4, "pending", False, True, [2], "master"),  # user acceptance: a person's job
    ]
    store = _session(plan, 2)
    assert [(t.label, t.done, t.depends_on) for t in store.tasks] == [
        ("2.1", True, []),
        ("2.2", False, ["2.1"]),
    ]
    assert _commands(store) == (None, "pytest tests/test_store.py -q", None)
    assert [f.path for f in store.files] == ["src/notes/store.py"]
    assert store.brief_text.startswith("## Task 2: Store notes\n\nNotes are saved to disk.")
    other = load_plan(C / "taskmaster-tagged", tag="feature-export")
    assert [(s.title, s.tag) for s in other.sessions()] == [("Export to CSV", "feature-export")]
    missing = load_plan(C / "taskmaster-tagged", tag="nope")
    assert [d.message for d in missing.errors] == [
        "no tag 'nope' in this tasks.json; pick one of master, feature-export with --tag"
    ]


def test_task_master_flat_file() -> None:
    plan = load_plan(C / "taskmaster-flat" / "tasks" / "tasks.json")
    assert [(s.number, s.title, s.tag, s.box_lines) for s in plan.sessions()] == [
        (1, "Room model", None, [3]),
        (2, "Vote API", None, [4]),
    ]
    assert [f.path for f in _session(plan, 1).files] == ["Room.ts"]


def test_a_json_file_that_holds_no_task_list_says_what_it_lacks(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    path.write_text('{"version": 1}', encoding="utf-8")
    plan = load_plan(path)
    assert (plan.format, _errors(plan)) == (
        "taskmaster",
        ['1: no task list: expected {"tasks": [...]} or {"<tag>": {"tasks": [...]}}'],
    )
    path.write_text('{"tasks": [\n  {"id": 1,}\n]}', encoding="utf-8")
    assert _errors(load_plan(path)) == [
        "2: not valid JSON: Expecting property name enclosed in double quotes (column 12)"
    ]


def test_odd_task_master_values_never_break_the_reader(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    path.write_text(
        '{"tasks": [{"id": "a", "dependencies": "1", "subtasks": [1, {"id": 2}]},\n'
        ' {"id": 1.5, "title": ["x"], "details": {"a": 1}}]}',
        encoding="utf-8",
    )
    plan = load_plan(path)
    assert [(s.number, s.title, s.box_lines) for s in plan.sessions()] == [
        (1, "Task a", []),  # no status anywhere: nothing to tick
        (2, "['x']", []),
    ]
