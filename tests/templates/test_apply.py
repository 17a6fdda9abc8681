"""template-apply: render a template into a new project."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from executor.errors import (
    OverwriteRefusedError,
    PathNotFoundError,
    TemplateValidationError,
    TemplateValueError,
)
from executor.exitcodes import ExitCode
from executor.templates import apply_template, locate_template, resolve_values
from executor.templates.loading import load_manifest
from tests.templates.helpers import create_template, tree_bytes


@pytest.fixture
def template(python_service: Path, tmp_path: Path) -> Path:
    return Path(create_template(python_service, tmp_path / "templates" / "lib").path)


def test_defaults_give_back_the_source_project(template: Path, python_service: Path,
                                               tmp_path: Path) -> None:  # fmt: skip
    written = apply_template(template, tmp_path / "copy", {})
    assert tree_bytes(tmp_path / "copy") == tree_bytes(python_service)
    assert written.files == sorted(tree_bytes(python_service))


def test_other_names_give_a_working_project(template: Path, tmp_path: Path) -> None:
    dest = tmp_path / "inventory"
    apply_template(template, dest, {"ProjectName": "InventoryHub", "EntityName": "Gadget"})
    files = tree_bytes(dest)
    assert "inventory_hub/repositories/gadget_repository.py" in files
    assert "tests/test_gadgets_api.py" in files
    assert files["README.md"].startswith(b"# Inventory Hub\n\nAn HTTP API to manage gadgets")
    assert b'name = "inventory-hub"' in files["pyproject.toml"]
    assert b"{{ braces }}" in files["README.md"]
    assert not [p for p, data in files.items() if b"ook" in data or "book" in p.lower()]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=dest, capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "4 passed" in run.stdout
    check = "import inventory_hub.app as a; print(callable(a.create_app()))"
    imported = subprocess.run([sys.executable, "-c", check], cwd=dest, capture_output=True,
                              text=True, timeout=60)  # fmt: skip
    assert imported.stdout == "True\n", imported.stderr


def test_values_derive_and_can_be_overridden(template: Path) -> None:
    manifest = load_manifest(template)
    values = resolve_values(manifest, {"EntityName": "Person", "EntityNamePlural": "People"})
    assert (values["EntityNameSnake"], values["EntityNamePluralSnake"]) == ("person", "people")
    assert values["ProjectNameSnake"] == "library_service"  # not set: the default
    values = resolve_values(manifest, {"EntityName": "ShoppingItem"})
    assert values["EntityNamePluralKebab"] == "shopping-items"


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"Owner": "x"}, "unknown placeholder 'Owner': this template declares ProjectName, "),
        ({"ProjectName": "inventory hub"}, "ProjectName='inventory hub' does not match "
         "^[A-Z][A-Za-z0-9]*$ (the default is 'LibraryService')"),
        ({"ProjectNameSnake": "../evil"}, "ProjectNameSnake='../evil' does not match "),
    ],
)  # fmt: skip
def test_bad_values_are_refused(template: Path, tmp_path: Path, values: dict[str, str],
                                message: str) -> None:  # fmt: skip
    with pytest.raises(TemplateValueError) as e:
        apply_template(template, tmp_path / "new", values)
    assert str(e.value).startswith(message)
    assert e.value.exit_code == ExitCode.USAGE_ERROR
    assert not (tmp_path / "new").exists()


def test_refuses_to_overwrite_without_force(template: Path, tmp_path: Path) -> None:
    dest = tmp_path / "new"
    apply_template(template, dest, {})
    (dest / "README.md").write_text("mine\n", "utf-8")
    with pytest.raises(OverwriteRefusedError) as e:
        apply_template(template, dest, {})
    assert e.value.exit_code == ExitCode.SAVE_FAILED
    assert str(e.value).startswith(f"{dest}: 16 file(s) exist already (README.md, ")
    assert str(e.value).endswith(" and 11 more); use --force to overwrite them")
    assert (dest / "README.md").read_text("utf-8") == "mine\n"
    apply_template(template, dest, {}, force=True)
    assert (dest / "README.md").read_text("utf-8").startswith("# Library Service")


def test_executable_bit_is_kept(python_service: Path, tmp_path: Path) -> None:
    script = python_service / "run.sh"
    script.write_text("#!/bin/sh\necho library_service\n", "utf-8")
    script.chmod(0o755)
    template = Path(create_template(python_service, tmp_path / "t").path)
    apply_template(template, tmp_path / "new", {"ProjectName": "Shop"})
    out = tmp_path / "new" / "run.sh"
    assert out.read_text("utf-8") == "#!/bin/sh\necho shop\n"
    assert os.access(out, os.X_OK)


def test_broken_templates_and_lookup(template: Path, tmp_path: Path) -> None:
    with pytest.raises(TemplateValidationError) as e:
        apply_template(tmp_path, tmp_path / "new", {})
    assert str(e.value) == f"not a template: {tmp_path / 'manifest.json'} does not exist"
    (template / "templates/models/book.py.template").write_text("{{Nope}}", "utf-8")
    with pytest.raises(TemplateValidationError) as bad:
        apply_template(template, tmp_path / "new", {})
    assert str(bad.value).endswith(
        "book.py.template uses {{Nope}}, which manifest.json does not declare"
    )
    assert locate_template("lib", cwd=tmp_path) == template
    assert locate_template(str(template)) == template
    with pytest.raises(PathNotFoundError) as missing:
        locate_template("nope", cwd=tmp_path, env={"HOME": str(tmp_path)})
    assert str(missing.value).startswith(
        f"template not found: nope (looked in {tmp_path / 'nope'}, "
    )


def test_a_manifest_with_a_broken_pattern_is_refused(template: Path, tmp_path: Path) -> None:
    path = template / "manifest.json"
    path.write_text(path.read_text("utf-8").replace('"^[A-Z][A-Za-z0-9]*$"', '"["', 1), "utf-8")
    with pytest.raises(TemplateValidationError) as e:
        apply_template(template, tmp_path / "new", {})
    assert str(e.value).startswith(f"{path}: placeholder ProjectName has an invalid pattern (")


def test_bytes_survive_exactly(tmp_path: Path) -> None:
    """CRLF, a BOM, no final newline, braces, non-ASCII text, a name starting with digits."""
    source = tmp_path / "2048-game"
    source.mkdir()
    (source / "game.py").write_bytes(
        "\ufeffGAME_TITLE = '2048 Game — {{score}}'\r\nclass Game:\r\n    pass".encode()
    )
    (source / "notes.txt").write_bytes(b"game {{{game}}} game_\n")
    template = Path(create_template(source, tmp_path / "t").path)
    manifest = load_manifest(template)
    assert manifest.placeholders["ProjectName"].default == "Game"
    apply_template(template, tmp_path / "copy", {})
    assert tree_bytes(tmp_path / "copy") == tree_bytes(source)
    apply_template(template, tmp_path / "other", {"ProjectName": "TileRush"})
    assert tree_bytes(tmp_path / "other") == {
        "notes.txt": b"tile-rush {{{tile-rush}}} tile_rush_\n",
        "tile_rush.py": "\ufeffTILE_RUSH_TITLE = '2048 TileRush — {{score}}'\r\n"
        "class TileRush:\r\n    pass".encode(),
    }


def test_a_plan_the_template_carries_starts_afresh(python_service: Path, tmp_path: Path) -> None:
    """Ticked boxes in the template's source would make the new project's sessions
    "adopted" as complete; everything else of the plan stays as it was written."""
    plan = python_service / "project-plans" / "lib" / "PHASE_1_CORE.md"
    plan.parent.mkdir(parents=True)
    written = (
        "# Phase 1: Core\n\n## Session 1: Books (TDD)\n\n- [x] RED: write tests\n"
        "- [X] GREEN: implement\n- [ ] REFACTOR\n\nDone: `[x]` in prose stays.\n"
    )
    plan.write_text(written, "utf-8")
    notes = python_service / "NOTES.md"
    notes.write_text("- [x] a done item of the project's own\n", "utf-8")
    template = Path(create_template(python_service, tmp_path / "t").path)
    apply_template(template, tmp_path / "new", {})
    new_plan = (tmp_path / "new" / "project-plans" / "lib" / "PHASE_1_CORE.md").read_text("utf-8")
    assert new_plan == written.replace("[x] RED", "[ ] RED").replace("[X] GREEN", "[ ] GREEN")
    assert (tmp_path / "new" / "NOTES.md").read_text("utf-8") == notes.read_text("utf-8")
