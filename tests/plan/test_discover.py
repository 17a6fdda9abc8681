"""`discover_plan(cwd)`: the one plan in the usual places, or a clear error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from executor.errors import UserError
from executor.plan import discover_plan
from tests.plan.test_readers import OVERVIEW, PHASE, SPECKIT, SUPERPOWERS


def test_the_current_folder_when_it_holds_a_plan() -> None:
    assert discover_plan(PHASE) == PHASE
    assert discover_plan(SPECKIT) == SPECKIT


@pytest.mark.parametrize(
    ("place", "source"),
    [
        ("project-plans/notes", PHASE),
        ("docs/plans", SUPERPOWERS.parent),
        ("docs/superpowers/plans", SUPERPOWERS.parent),
        ("specs/001-notes", SPECKIT),
    ],
)
def test_one_plan_in_a_usual_place(place: str, source: Path, tmp_path: Path) -> None:
    shutil.copytree(source, tmp_path / place)
    found = discover_plan(tmp_path)
    expected = tmp_path / place
    if place.startswith("docs"):
        expected = expected / SUPERPOWERS.name  # the design note beside it is not a plan
    elif place.startswith("specs"):
        expected = expected / "tasks.md"
    assert found == expected


def test_several_plans_are_listed(tmp_path: Path) -> None:
    shutil.copytree(PHASE, tmp_path / "project-plans" / "a")
    shutil.copytree(OVERVIEW, tmp_path / "project-plans" / "b")
    shutil.copytree(SPECKIT, tmp_path / "specs" / "001-notes")
    with pytest.raises(UserError) as info:
        discover_plan(tmp_path)
    assert str(info.value) == (
        f"3 plans found in {tmp_path}; name the one to run (e.g. --plan PATH):\n"
        "  project-plans/a\n  project-plans/b\n  specs/001-notes/tasks.md"
    )


def test_no_plan_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "docs" / "plans").mkdir(parents=True)
    (tmp_path / "docs" / "plans" / "idea.md").write_text("# An idea\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"^no plan found in .*: looked for PHASE_<n>_\*\.md"):
        discover_plan(tmp_path)


def test_from_a_subfolder_the_plan_above_it_in_the_repository(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the repository's top (discovery stops there)
    shutil.copytree(PHASE, tmp_path / "project-plans" / "notes")
    deep = tmp_path / "src" / "pkg"
    deep.mkdir(parents=True)
    assert discover_plan(deep) == tmp_path / "project-plans" / "notes"
