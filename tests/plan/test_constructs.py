"""Each construct the real plans use, on fixtures of our own
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
