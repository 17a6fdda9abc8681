"""The verified round trip: a template that does not give back its source is rejected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from executor.errors import TemplateValidationError
from executor.exitcodes import ExitCode
from executor.templates import verify_template
from tests.templates.helpers import create_template

BOOK_TEMPLATE = "templates/models/book.py.template"


@pytest.fixture
def template(python_service: Path, tmp_path: Path) -> Path:
    return Path(create_template(python_service, tmp_path / "out" / "lib").path)


def _problems(template: Path, source: Path | None = None) -> list[str]:
    with pytest.raises(TemplateValidationError) as e:
        verify_template(template, source=source)
    assert e.value.exit_code == ExitCode.VALIDATION_FAILED
    assert e.value.path == template
    return e.value.problems


def test_a_created_template_verifies(template: Path, python_service: Path) -> None:
    report = verify_template(template, source=python_service)
    assert report.ok and report.problems == [] and report.score == 10.0
    assert len(report.checks) == 14


def test_a_changed_template_fails_the_round_trip(template: Path) -> None:
    path = template / BOOK_TEMPLATE
    path.write_text(path.read_text("utf-8").replace("title: str", "name: str"), "utf-8")
    assert _problems(template) == [
        f"{BOOK_TEMPLATE}: rendered with the defaults it does not reproduce "
        "library_service/models/book.py (sha256 differs)"
    ]


def test_a_changed_source_is_named_with_the_line(template: Path, python_service: Path) -> None:
    book = python_service / "library_service/models/book.py"
    book.write_text(book.read_text("utf-8").replace("author: str", "writer: str"), "utf-8")
    assert verify_template(template).ok  # the template still matches its recorded hashes
    assert _problems(template, source=python_service) == [  # ... but not the changed source
        f"{BOOK_TEMPLATE}: differs from {book} (line 8: rendered '    author: str\\n', "
        "source has '    writer: str\\n')"
    ]


def test_undeclared_placeholders_and_stray_braces_fail(template: Path) -> None:
    path = template / BOOK_TEMPLATE
    path.write_text(path.read_text("utf-8") + "# {{Owner}}\n", "utf-8")
    other = template / "templates/models/__init__.py.template"
    other.write_text("{{ not a placeholder }}\n", "utf-8")
    problems = _problems(template)
    assert f"{BOOK_TEMPLATE}: uses {{{{Owner}}}}, not declared in manifest.json" in problems
    assert "templates/models/__init__.py.template:1: unescaped '{{'" in problems


def test_missing_template_and_broken_agent(template: Path) -> None:
    (template / BOOK_TEMPLATE).unlink()
    (template / "agents" / "python-specialist.md").write_text("no frontmatter\n", "utf-8")
    problems = _problems(template)
    assert problems == [
        f"{BOOK_TEMPLATE}: template file missing",
        f"agents/python-specialist.md: {template / 'agents/python-specialist.md'}:1: "
        "expected '---' on the first line",
    ]


def test_bad_manifest_is_one_problem(template: Path) -> None:
    (template / "manifest.json").write_text('{"name": 1}', "utf-8")
    problems = _problems(template)
    assert problems[0].startswith("manifest.json: name: expected a string, got int")


def test_report_without_raising_lists_checks_and_warnings(react_app: Path, tmp_path: Path) -> None:
    out = Path(create_template(react_app, tmp_path / "t").path)
    path = out / "templates/hooks/useTasks.ts.template"
    path.write_text("changed", "utf-8")
    report = verify_template(out, raise_on_failure=False)
    assert not report.ok
    assert report.warnings == ["Task: create without delete (seen in src/services/taskService.ts)"]
    failed = [c.name for c in report.checks if not c.passed]
    assert failed == ["round trip reproduces every source file", "CRUD operations are symmetric"]
    assert report.score == round(10 * 12 / 14, 1)


def test_placeholder_declarations_are_checked(template: Path) -> None:
    path = template / "manifest.json"
    manifest = json.loads(path.read_text("utf-8"))
    manifest["placeholders"]["ProjectName"]["derived_from"] = "ProjectNameSnake"
    manifest["placeholders"]["EntityNameSnake"]["pattern"] = "["
    path.write_text(json.dumps(manifest), "utf-8")
    problems = _problems(template)
    assert (
        "placeholder ProjectName: derivation cycle ProjectName -> ProjectNameSnake -> "
        "ProjectName" in problems
    )
    assert any(
        p.startswith("placeholder EntityNameSnake: pattern '[' is not a regex") for p in problems
    )
