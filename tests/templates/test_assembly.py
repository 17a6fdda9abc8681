"""Where templates go, and installing one in a single step (or not at all)."""

from __future__ import annotations

from pathlib import Path

import pytest

from executor.errors import OverwriteRefusedError, TemplateValidationError
from executor.exitcodes import ExitCode
from executor.templates import (
    answers,
    assemble_template,
    build_manifest,
    build_settings,
    claude_md,
    default_destination,
    generate_templates,
    heuristic_analysis,
    scan_codebase,
    template_files,
)
from tests.templates.helpers import create_template, tree_bytes
from tests.templates.projects import PYTHON_SERVICE, write_project


def test_default_destinations(tmp_path: Path) -> None:
    home = {"HOME": str(tmp_path / "home")}
    assert default_destination("t", env=home) == (
        tmp_path / "home/.local/share/plan-executor/templates/t"
    )
    xdg = {**home, "XDG_DATA_HOME": str(tmp_path / "data")}
    assert default_destination("t", env=xdg) == tmp_path / "data/plan-executor/templates/t"
    relative_xdg = {**home, "XDG_DATA_HOME": "data"}  # not absolute: ignored (XDG spec)
    assert default_destination("t", env=relative_xdg) == default_destination("t", env=home)
    assert default_destination("t", location="repo", cwd=tmp_path) == tmp_path / "templates/t"
    assert default_destination("t", output=Path("x/y"), cwd=tmp_path, env=xdg) == tmp_path / "x/y"


def test_template_folder_layout(python_service: Path, tmp_path: Path) -> None:
    written = create_template(python_service, tmp_path / "lib", validate=True)
    files = tree_bytes(tmp_path / "lib")
    assert sorted(files) == written.files
    assert {"manifest.json", "settings.json", "CLAUDE.md", "validation-report.md",
            "agents/python-specialist.md"} <= set(files)  # fmt: skip
    report = files["validation-report.md"].decode()
    assert report.startswith("# Validation report: lib\n\nScore: 10.0/10 (14 of 14 checks passed)")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".lib.")]


def test_repo_location_inside_the_codebase_is_not_scanned(python_service: Path) -> None:
    dest = default_destination("lib", location="repo", cwd=python_service)
    create_template(python_service, dest)
    create_template(python_service, dest, force=True)  # the first template is not a source
    assert not [p for p in tree_bytes(dest) if "templates/project/templates" in p]


def test_refuses_to_overwrite_unless_forced(python_service: Path, tmp_path: Path) -> None:
    dest = tmp_path / "lib"
    create_template(python_service, dest)
    (dest / "mine.txt").write_text("keep?", "utf-8")
    with pytest.raises(OverwriteRefusedError) as e:
        create_template(python_service, dest)
    assert e.value.exit_code == ExitCode.SAVE_FAILED
    assert str(e.value) == f"template already exists: {dest} (use --force to replace it)"
    assert (dest / "mine.txt").exists()
    create_template(python_service, dest, force=True)
    assert not (dest / "mine.txt").exists() and (dest / "manifest.json").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_template_that_fails_verification_is_not_installed(tmp_path: Path) -> None:
    """A source file that changes while the template is made: the round trip against
    the source fails, nothing lands at the destination, no partial folder is left."""
    source = write_project(tmp_path / "src", PYTHON_SERVICE)
    codebase = scan_codebase(source)
    analysis = heuristic_analysis(codebase)
    qa = answers(analysis, {})
    ts = generate_templates(codebase, analysis)
    manifest = build_manifest(analysis, qa, ts, source_project=source)
    settings = build_settings(analysis, ts)
    files = template_files(manifest=manifest, settings=settings, templates=ts, agent_files={},
                           claude_md=claude_md(manifest, settings, analysis, []))  # fmt: skip
    (source / "requirements.txt").write_text("pytest>=9\n", "utf-8")
    dest = tmp_path / "out" / "lib"
    with pytest.raises(TemplateValidationError) as e:
        assemble_template(dest, files, source=source)
    assert "templates/project/requirements.txt.template: differs from" in str(e.value)
    assert not dest.exists()
    assert list((tmp_path / "out").iterdir()) == []
