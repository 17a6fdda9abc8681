"""Templates from real files: placeholders, escaping, paths, completeness, selection."""

from __future__ import annotations

from pathlib import Path

import pytest

from executor.datamodel import dump
from executor.errors import TemplateGenerationError
from executor.exitcodes import ExitCode
from executor.templates import (
    answers,
    build_manifest,
    build_settings,
    generate_templates,
    heuristic_analysis,
    merge_analysis,
    scan_codebase,
)
from executor.templates.models import TemplateSet
from executor.templates.render import render


def _generate(root: Path, **kwargs: object) -> TemplateSet:
    codebase = scan_codebase(root)
    return generate_templates(codebase, heuristic_analysis(codebase), **kwargs)  # type: ignore[arg-type]


def test_python_templates(python_service: Path) -> None:
    ts = _generate(python_service)
    by_source = {e.file.source_path: e for e in ts.entries}
    repo = by_source["library_service/repositories/book_repository.py"]
    assert repo.file.template_path == "templates/repositories/book_repository.py.template"
    assert repo.file.output_path == (
        "{{ProjectNameSnake}}/repositories/{{EntityNameSnake}}_repository.py"
    )
    assert repo.file.layer == "repositories"
    assert "class {{EntityName}}Repository:" in repo.text
    assert "from {{ProjectNameSnake}}.models.{{EntityNameSnake}} import {{EntityName}}" in repo.text
    readme = by_source["README.md"]
    assert readme.file.template_path == "templates/project/README.md.template"
    assert readme.text.startswith("# {{ProjectNameTitle}}\n")
    assert "use {{ '{{' }} braces }} literally" in readme.text
    assert (
        by_source["tests/conftest.py"].file.template_path == "templates/tests/conftest.py.template"
    )
    assert ts.completeness == []
    defaults = {name: p.default for name, p in ts.placeholders.items()}
    for e in ts.entries:
        source = (python_service / e.file.source_path).read_text("utf-8")
        assert render(e.text, defaults) == source
        assert render(e.file.output_path, defaults) == e.file.source_path


def test_react_create_without_delete_is_reported(react_app: Path) -> None:
    ts = _generate(react_app)
    assert ts.completeness == [
        "Task: create without delete (seen in src/hooks/useTasks.ts, src/services/taskService.ts)"
    ]
    paths = {e.file.source_path: e.file for e in ts.entries}
    assert paths["src/hooks/useTasks.ts"].output_path == "src/hooks/use{{EntityNamePlural}}.ts"
    assert paths["src/components/TaskList.test.tsx"].layer == "tests"
    assert paths["src/components/TaskList.test.tsx"].template_path == (
        "templates/tests/TaskList.test.tsx.template"
    )


def test_csharp_interface_prefix_and_private_fields(csharp_app: Path) -> None:
    ts = _generate(csharp_app)
    text = {e.file.source_path: e.text for e in ts.entries}["ViewModels/NoteViewModel.cs"]
    assert "private readonly I{{EntityName}}Service _{{EntityNameCamel}}Service;" in text
    assert "namespace {{ProjectName}}.ViewModels;" in text
    outputs = sorted(e.file.output_path for e in ts.entries)
    assert "Services/I{{EntityName}}Service.cs" in outputs
    assert "{{ProjectName}}.csproj" in outputs


def test_selection_binary_lock_files_and_limits(python_service: Path) -> None:
    (python_service / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")
    (python_service / "poetry.lock").write_text("# lock\n", "utf-8")
    ts = _generate(python_service)
    assert ts.skipped == ["logo.png: binary"]
    assert "poetry.lock" not in {e.file.source_path for e in ts.entries}
    only = _generate(python_service, include=["library_service/services", "*.toml"])
    assert [e.file.source_path for e in only.entries] == [
        "library_service/services/__init__.py",
        "library_service/services/book_service.py",
        "pyproject.toml",
    ]
    capped = _generate(python_service, max_templates=3)
    assert [e.file.source_path for e in capped.entries] == [
        "library_service/routes/books.py", "pyproject.toml", "requirements.txt",
    ]  # fmt: skip
    assert len(capped.skipped) == 1 + 16 - 3


def test_nothing_to_template_is_a_generation_error(python_service: Path) -> None:
    with pytest.raises(TemplateGenerationError) as e:
        _generate(python_service, include=["nothing/**"])
    assert e.value.exit_code == ExitCode.GENERATION_FAILED
    assert str(e.value) == (
        f"no text file matching nothing/** to make a template from in {python_service}"
    )


def test_agent_entity_not_in_the_code_falls_back(python_service: Path) -> None:
    codebase = scan_codebase(python_service)
    analysis = merge_analysis(heuristic_analysis(codebase), {"entities": ["Invoice", "Book"]})
    ts = generate_templates(codebase, analysis)
    assert ts.placeholders["EntityName"].default == "Book"


def test_manifest_and_settings_fields(python_service: Path) -> None:
    codebase = scan_codebase(python_service)
    analysis = heuristic_analysis(codebase)
    ts = generate_templates(codebase, analysis)
    manifest = build_manifest(
        analysis, answers(analysis, {}), ts, source_project=codebase.root, created_at="T"
    )
    assert manifest.tags == ["python", "layered", "service-layer", "repository"]
    assert manifest.complexity == 1 + 1 + 2 + 0
    assert manifest.layers == ["api", "models", "repositories", "services", "tests", "project"]
    assert dump(manifest.placeholders["ProjectName"]) == {
        "name": "{{ProjectName}}",
        "description": "Project name in PascalCase (e.g. LibraryService)",
        "required": True,
        "pattern": "^[A-Z][A-Za-z0-9]*$",
        "default": "LibraryService",
        "derived_from": None,
        "case": None,
    }
    settings = build_settings(analysis, ts)
    org = settings.file_organization
    assert (org.source_root, org.test_location, org.test_file_pattern, org.by_layer) == (
        "library_service", "separate: tests/", "test_*.py", True,
    )  # fmt: skip
    assert settings.layer_mappings["services"].examples == [
        "library_service/services/book_service.py", "library_service/services/__init__.py",
    ]  # fmt: skip
