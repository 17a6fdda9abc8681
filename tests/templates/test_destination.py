"""Where template-create may write, checked at startup through the real CLI: never the
codebase or a folder holding it, `--force` replaces only a template of ours, and an
existing destination stops the run before anything is analysed or saved."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.templates.helpers import create_template, tree_bytes

STATE = ".template-create-state.json"


@pytest.mark.parametrize("where", ["codebase", "parent"])
def test_the_codebase_or_a_folder_holding_it_is_refused_even_with_force(
    python_service: Path, tmp_path: Path, where: str
) -> None:
    dest = python_service if where == "codebase" else tmp_path
    before = tree_bytes(tmp_path)
    proc = run_cli("template-create", "--path", str(python_service), "--skip-qa", "--no-agents",
                   "--output", str(dest), "--force", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 64, proc.stderr
    what = "is the codebase" if where == "codebase" else f"holds the codebase {python_service}"
    assert proc.stderr == (
        f"error: the template destination {dest} {what}; a template is written to a folder "
        "of its own: choose another --output\n"
    )
    assert proc.stdout == ""  # refused before the scan
    assert tree_bytes(tmp_path) == before


def test_a_folder_that_is_not_a_template_is_never_replaced(
    python_service: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "mine"
    (mine / "notes").mkdir(parents=True)
    (mine / "notes" / "todo.txt").write_text("keep me\n", "utf-8")
    (mine / "manifest.json").write_text('{"name": "a web app manifest"}\n', "utf-8")
    before = tree_bytes(tmp_path)
    proc = run_cli("template-create", "--path", str(python_service), "--skip-qa", "--no-agents",
                   "--output", str(mine), "--force", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 6, proc.stderr
    assert proc.stderr == (
        f"error: {mine} exists and is not a template made by template-create (no manifest.json "
        "of ours): it is not replaced, even with --force; choose another --output, or move it "
        "away yourself\n"
    )
    assert proc.stdout == ""
    assert tree_bytes(tmp_path) == before


def test_a_file_in_the_way_is_refused(python_service: Path, tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("x", "utf-8")
    proc = run_cli("template-create", "--path", str(python_service), "--skip-qa", "--no-agents",
                   "--output", "taken", "--force", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 6, proc.stderr
    assert proc.stderr == (
        f"error: {tmp_path / 'taken'} exists and is a file, not a template folder; choose "
        "another --output\n"
    )


def test_an_existing_template_stops_the_run_before_anything_is_saved(
    python_service: Path, tmp_path: Path
) -> None:
    """Default location and name: the destination is known once the Q&A named the
    template; the run stops there, with no state to resume, before the analysis."""
    xdg = tmp_path / "xdg"
    dest = xdg / "plan-executor" / "templates" / "library-service"
    create_template(python_service, dest)
    env = {"XDG_DATA_HOME": str(xdg)}
    before = tree_bytes(python_service)
    proc = run_cli("template-create", "--path", str(python_service), "--skip-qa",
                   cwd=tmp_path, env=env)  # fmt: skip
    assert proc.returncode == 6, proc.stderr
    assert proc.stderr == f"error: template already exists: {dest} (use --force to replace it)\n"
    assert "analysis" not in proc.stdout and "generated" not in proc.stdout
    assert tree_bytes(python_service) == before  # no state, no request, no lock
    forced = run_cli("template-create", "--path", str(python_service), "--skip-qa",
                     "--no-agents", "--force", cwd=tmp_path, env=env)  # fmt: skip
    assert forced.returncode == 0, forced.stderr
    assert tree_bytes(python_service) == before


def test_an_existing_output_is_refused_before_the_scan(
    python_service: Path, tmp_path: Path
) -> None:
    dest = tmp_path / "lib"
    create_template(python_service, dest)
    proc = run_cli("template-create", "--path", str(python_service), "--skip-qa",
                   "--output", str(dest), cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 6, proc.stderr
    assert proc.stdout == ""
    assert not (python_service / STATE).exists()


def test_resume_checks_the_destination_first(python_service: Path, tmp_path: Path) -> None:
    """A template that appeared while the run waited for the agent: `--resume` says so at
    once (the state is kept), and `--resume --force` finishes."""
    dest = tmp_path / "lib"
    path = ["--path", str(python_service)]
    first = run_cli("template-create", *path, "--skip-qa", "--output", str(dest), cwd=tmp_path)
    assert first.returncode == 42, first.stderr
    create_template(python_service, dest)
    again = run_cli("template-create", *path, "--resume", cwd=tmp_path)
    assert again.returncode == 6, again.stderr
    assert again.stderr.startswith(f"error: template already exists: {dest} (use --force")
    assert "resuming" not in again.stdout
    assert (python_service / STATE).exists()
    done = run_cli("template-create", *path, "--resume", "--force", "--no-agents", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (python_service / STATE).exists()


def test_dry_run_refuses_the_codebase_too(python_service: Path, tmp_path: Path) -> None:
    proc = run_cli("template-create", "--path", str(python_service), "--dry-run",
                   "--output", str(python_service), cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 64, proc.stderr


def test_repo_location_run_twice_from_the_codebase_does_not_template_its_output(
    python_service: Path,
) -> None:
    args = ["template-create", "--path", ".", "--skip-qa", "--no-agents",
            "--output-location", "repo"]  # fmt: skip
    first = run_cli(*args, cwd=python_service)
    assert first.returncode == 0, first.stderr
    assert "16 templates" in first.stdout
    again = run_cli(*args, "--force", cwd=python_service)
    assert again.returncode == 0, again.stderr
    assert "16 templates" in again.stdout
    dest = python_service / "templates" / "library-service"
    assert not [p for p in tree_bytes(dest) if p.startswith("templates/project/templates/")]


def test_the_scan_skips_any_template_of_ours_but_not_another_manifest(
    python_service: Path, tmp_path: Path
) -> None:
    from executor.templates import scan_codebase

    create_template(python_service, python_service / "kept" / "old-template")
    (python_service / "web").mkdir()
    (python_service / "web" / "manifest.json").write_text('{"name": "PWA"}\n', "utf-8")
    paths = [f.path for f in scan_codebase(python_service).files]
    assert "web/manifest.json" in paths
    assert not [p for p in paths if p.startswith("kept/")]
