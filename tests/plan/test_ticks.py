"""Ticks are claims: the executor ticks boxes by exact line edits; the hash ignores them."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from executor.errors import PlanInvalidError
from executor.plan import load_plan
from executor.plan.text.sessiontext import brief_text, source_hash, split_source
from executor.plan.ticks import FileEdit, apply_edits, tick_session
from tests.plan.test_readers import PHASE, SPECKIT, SUPERPOWERS


def _copy(src: Path, tmp_path: Path) -> Path:
    dest = tmp_path / src.name
    if src.is_dir():
        shutil.copytree(src, dest)
    else:
        shutil.copy(src, dest)
    return dest


@pytest.mark.parametrize(
    ("source", "number"), [(SUPERPOWERS, 2), (SPECKIT, 2), (PHASE, 2)], ids=["C", "D", "A"]
)
def test_ticking_a_session_edits_only_its_box_lines_and_keeps_the_hash(
    source: Path, number: int, tmp_path: Path
) -> None:
    path = _copy(source, tmp_path)
    before = load_plan(path)
    session = before.session(number)
    assert session is not None and not session.claimed_done
    plan_file = session.source_file
    old_lines = split_source(plan_file.read_text(encoding="utf-8"))
    edits = tick_session(session)
    assert [e.line for e in edits] == [n for n in session.box_lines if "[ ]" in old_lines[n - 1]]
    assert apply_edits(edits) == [plan_file]
    new_lines = split_source(plan_file.read_text(encoding="utf-8"))
    changed = [n for n, (a, b) in enumerate(zip(old_lines, new_lines, strict=True), 1) if a != b]
    assert changed == [e.line for e in edits]
    assert all(new_lines[n - 1] == old_lines[n - 1].replace("[ ]", "[x]", 1) for n in changed)
    after = load_plan(path)
    again = after.session(number)
    assert again is not None and again.claimed_done
    assert again.source_hash == session.source_hash
    assert {s.number: s.source_hash for s in after.sessions()} == {
        s.number: s.source_hash for s in before.sessions()
    }
    assert tick_session(again) == []


def test_a_stale_box_line_is_refused_with_its_line(tmp_path: Path) -> None:
    path = _copy(SUPERPOWERS, tmp_path)
    session = load_plan(path).session(2)
    assert session is not None
    path.write_text("# moved\n" * 200, encoding="utf-8")
    with pytest.raises(PlanInvalidError, match=rf"^{path}:55: expected a checkbox of Session 2"):
        tick_session(session)
    edit = FileEdit(path=path, line=3, old="- [ ] x\n", new="- [x] x\n")
    with pytest.raises(PlanInvalidError, match=r":3: the line changed since the edit was made"):
        apply_edits([edit])


def test_the_hash_reads_every_box_as_unticked_and_only_boxes() -> None:
    assert source_hash("- [x] a\n1. [X] b\n") == source_hash("- [ ] a\n1. [ ] b\n")
    assert source_hash("- [x] a\n") != source_hash("- [x] b\n")
    assert source_hash("text [x] inline\n") != source_hash("text [ ] inline\n")


def test_brief_text_drops_commit_steps_blocks_and_lines() -> None:
    text = (
        "## Session 1: X\n"
        "- Build it\n"
        "- Do not commit until review\n"
        "- [ ] Git commit created with a message\n"
        "\n"
        "```bash\n"
        "git add -A\n"
        'git commit -m "x"\n'
        "```\n"
        "\n"
        "```python\n"
        "commit = 1  # kept: code that merely says commit\n"
        "```\n"
        "- Commit message style: imperative\n"
    )
    lines = split_source(text)
    assert brief_text(lines, 1, len(lines)) == (
        "## Session 1: X\n- Build it\n\n```python\ncommit = 1  # kept: code that merely says "
        "commit\n```\n- Commit message style: imperative\n"
    )
    assert brief_text(lines, 1, 2, [range(2, 3)]) == "## Session 1: X\n"


CONSTRUCTS = Path(__file__).parent / "fixtures" / "constructs"


def test_kiro_ticks_its_box_and_the_groups_with_its_last_required_sub_task(
    tmp_path: Path,
) -> None:
    path = _copy(CONSTRUCTS / "kiro", tmp_path) / ".kiro/specs/reminders/tasks.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("- [x] 1.3", "- [ ] 1.3").replace("- [x] 1.", "- [-] 1."), "utf-8")
    plan = load_plan(path)
    last = next(s for s in plan.sessions() if s.label == "1.3")
    assert last.box_lines == [14, 6] and not last.claimed_done
    assert [(e.line, e.new.strip()) for e in tick_session(last)] == [
        (14, "- [x] 1.3 Store reminders in `app/store.py`"),
        (6, "- [x] 1. Set up the reminders module"),
    ]
    apply_edits(tick_session(last))
    again = load_plan(path)
    assert [s.source_hash for s in again.sessions()] == [s.source_hash for s in plan.sessions()]
    ticked = next(s for s in again.sessions() if s.label == "1.3")
    assert ticked.claimed_done and tick_session(ticked) == []


@pytest.mark.parametrize(
    ("folder", "name"),
    [
        ("taskmaster-tagged", ".taskmaster/tasks/tasks.json"),
        ("taskmaster-flat", "tasks/tasks.json"),
    ],
)
def test_task_master_ticks_edit_only_the_status_values(
    folder: str, name: str, tmp_path: Path
) -> None:
    path = _copy(CONSTRUCTS / folder, tmp_path) / name
    before = path.read_text(encoding="utf-8")
    plan = load_plan(path)
    session = plan.session(2)
    assert session is not None and not session.claimed_done
    edits = tick_session(session)
    apply_edits(edits)
    after = path.read_text(encoding="utf-8")
    data = json.loads(after)
    tasks = data["master"]["tasks"] if "master" in data else data["tasks"]
    task = next(t for t in tasks if t["id"] == 2)
    assert task["status"] == "done"
    assert all(s["status"] == "done" for s in task.get("subtasks", []))
    untouched = [t for t in tasks if t["id"] != 2]
    old = json.loads(before)
    old_tasks = old["master"]["tasks"] if "master" in old else old["tasks"]
    assert untouched == [t for t in old_tasks if t["id"] != 2]
    # byte for byte the same file but for the status values of task 2 and its subtasks
    assert after.replace('"done"', '"?"') == _statuses_blanked(before, session.box_lines)
    ticked = load_plan(path).session(2)
    assert ticked is not None and ticked.claimed_done
    assert ticked.source_hash == session.source_hash and tick_session(ticked) == []


def _statuses_blanked(text: str, lines: list[int]) -> str:
    """`text` with every status value on `lines`, and every "done", read as "?"."""
    out = split_source(text)
    for n in lines:
        out[n - 1] = re.sub(r'("status"\s*:\s*)"[^"]*"', r'\1"?"', out[n - 1])
    return "".join(out).replace('"done"', '"?"')


def test_a_task_master_task_that_is_gone_is_refused(tmp_path: Path) -> None:
    path = _copy(CONSTRUCTS / "taskmaster-flat", tmp_path) / "tasks/tasks.json"
    session = load_plan(path).session(2)
    assert session is not None
    path.write_text('{"tasks": []}', encoding="utf-8")
    with pytest.raises(PlanInvalidError, match=r"expected task 2 here; the plan changed"):
        tick_session(session)


def test_task_master_ticks_skip_what_is_not_an_object(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    path.write_text(
        '{"tasks": [7, {"id": 1, "status": "pending", "subtasks": [1, {"status": "x"}]}]}',
        encoding="utf-8",
    )
    session = load_plan(path).session(1)
    assert session is not None
    apply_edits(tick_session(session))
    assert path.read_text(encoding="utf-8") == (
        '{"tasks": [7, {"id": 1, "status": "done", "subtasks": [1, {"status": "done"}]}]}'
    )
    path.write_text('{"tasks": {}}', encoding="utf-8")
    with pytest.raises(PlanInvalidError, match=r":1: expected a task list here"):
        tick_session(session)
