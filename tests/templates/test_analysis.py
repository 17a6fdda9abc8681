"""Heuristic analysis of real codebases, the analysis prompt, and the agent's answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from executor.datamodel import dump, validate
from executor.errors import AnalysisFailedError, PathNotFoundError
from executor.exitcodes import ExitCode
from executor.templates import (
    QAAnswers,
    analyse,
    analysis_prompt,
    answers,
    heuristic_analysis,
    merge_analysis,
    parse_analysis_answer,
    scan_codebase,
)
from executor.templates.qa import purpose
from tests.templates.projects import PYTHON_SERVICE, write_project

AGENT_ANSWER = {
    "language": "Python",
    "frameworks": ["WSGI"],
    "architecture": "Hexagonal",
    "layers": [
        {"name": "services", "folders": ["library_service/services"], "description": "Use cases"},
        {"name": "adapters", "folders": ["library_service/routes", "library_service/repositories"]},
    ],
    "patterns": ["Repository", "Ports and Adapters"],
    "testing_framework": "pytest",
    "entities": ["Book"],
    "confidence": 0.95,
}


def test_python_service(python_service: Path) -> None:
    a = heuristic_analysis(scan_codebase(python_service))
    assert (a.project_name, a.language, a.architecture) == ("library-service", "Python", "Layered")
    assert a.testing_frameworks == ["pytest"]
    assert a.build_tools == ["pip"]
    assert {layer.name: layer.folders for layer in a.layers} == {
        "api": ["library_service/routes"],
        "models": ["library_service/models"],
        "repositories": ["library_service/repositories"],
        "services": ["library_service/services"],
        "tests": ["tests"],
    }
    assert a.patterns == ["Service Layer", "Repository"]
    assert a.entities == ["Book"]
    assert a.naming["classes"].style == "PascalCase"
    assert a.naming["functions"].examples == ["create_app", "to_dict", "create_book"]
    style = a.code_style
    assert (style.indentation, style.indent_size, style.quotes) == ("spaces", 4, "double")
    assert (style.line_length, style.line_length_source) == (88, "configured in pyproject.toml")
    assert set(a.sources.values()) == {"heuristic"}


def test_python_frameworks_from_requirements(tmp_path: Path) -> None:
    files = {**PYTHON_SERVICE, "requirements.txt": "fastapi>=0.110\nSQLAlchemy[asyncio]==2.0\n"}
    a = heuristic_analysis(scan_codebase(write_project(tmp_path / "p", files)))
    assert a.frameworks == ["FastAPI", "SQLAlchemy"]


def test_react_app(react_app: Path) -> None:
    a = heuristic_analysis(scan_codebase(react_app))
    assert (a.project_name, a.language, a.architecture) == (
        "task-board",
        "TypeScript",
        "Component-based",
    )
    assert a.frameworks == ["React"]
    assert a.testing_frameworks == ["React Testing Library", "Vitest"]
    assert a.build_tools == ["npm", "tsc", "Vite"]
    assert [layer.name for layer in a.layers] == ["components", "hooks", "services", "tests"]
    assert "Custom Hooks" in a.patterns and a.entities == ["Task"]
    assert a.naming["hooks"].examples == ["useTasks"]
    assert a.naming["components"].style == "PascalCase"
    assert (a.code_style.indent_size, a.code_style.quotes, a.code_style.semicolons) == (
        2,
        "single",
        True,
    )


def test_csharp_mvvm_app(csharp_app: Path) -> None:
    a = heuristic_analysis(scan_codebase(csharp_app))
    assert (a.project_name, a.language, a.architecture) == ("NotesApp", "C#", "MVVM")
    assert a.frameworks == ["CommunityToolkit.Mvvm", ".NET MAUI"]
    assert a.build_tools == ["dotnet"]
    assert [layer.name for layer in a.layers] == ["models", "services", "viewmodels", "views"]
    assert {"MVVM", "Command", "Dependency Injection", "Observable properties"} <= set(a.patterns)
    assert a.entities == ["Note"]
    assert a.naming["private_fields"].style == "_camelCase"
    assert a.naming["methods"].examples == ["CreateMauiApp", "GetNotesAsync", "SaveNoteAsync"]


def test_scan_skips_what_is_not_the_project(python_service: Path) -> None:
    for rel in (".git/HEAD", "node_modules/x/index.js", ".venv/pyvenv.cfg", "env2/pyvenv.cfg",
                ".env", "__pycache__/a.pyc", ".agent-request.json", "bin/x.sh",
                ".template-create-state.json.bak", ".agent-response.json.rejected-1"):  # fmt: skip
        (python_service / rel).parent.mkdir(parents=True, exist_ok=True)
        (python_service / rel).write_text("x", "utf-8")
    (python_service / ".env.example").write_text("KEY=\n", "utf-8")
    paths = [f.path for f in scan_codebase(python_service).files]
    assert ".env.example" in paths and "bin/x.sh" in paths
    assert not [p for p in paths if p.startswith((".git/", "node_modules", ".venv", "env2/"))]
    assert ".env" not in paths and ".agent-request.json" not in paths


def test_scan_errors_carry_the_path(tmp_path: Path) -> None:
    with pytest.raises(PathNotFoundError) as missing:
        scan_codebase(tmp_path / "nope")
    assert missing.value.exit_code == ExitCode.PATH_NOT_FOUND
    (tmp_path / "empty").mkdir()
    with pytest.raises(AnalysisFailedError) as empty:
        scan_codebase(tmp_path / "empty")
    assert empty.value.exit_code == ExitCode.ANALYSIS_FAILED
    assert str(empty.value) == f"no files to analyse in {tmp_path / 'empty'}"


def test_prompt_is_bounded_and_asks_for_json(python_service: Path) -> None:
    for i in range(400):  # a big project: long tree, large files
        (python_service / f"pkg{i // 50}" / f"module_{i}.py").parent.mkdir(exist_ok=True)
        (python_service / f"pkg{i // 50}" / f"module_{i}.py").write_text("x = 1\n" * 200, "utf-8")
    codebase = scan_codebase(python_service)
    prompt = analysis_prompt(codebase)
    assert len(prompt.encode()) < 60_000
    assert str(codebase.root) in prompt and '"testing_framework": "pytest"' in prompt
    assert "... (truncated: 120 of 200 lines shown)" in prompt
    assert prompt.count("\n### ") <= 10
    assert "more files)" in prompt


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(AGENT_ANSWER),
        "Here is my analysis:\n```json\n" + json.dumps(AGENT_ANSWER, indent=2) + "\n```\nDone.",
        "The codebase is layered. " + json.dumps(AGENT_ANSWER) + " Hope this helps.",
    ],
)
def test_parse_answer_tolerates_wrapping(text: str) -> None:
    assert parse_analysis_answer(text) == AGENT_ANSWER


def test_parse_answer_reads_the_seed_form() -> None:
    text = json.dumps(
        {"technology_stack": {"primary_language": "C#", "confidence": 0.9},
         "architecture_pattern": "MVVM", "overall_confidence": 0.92}
    )  # fmt: skip
    assert parse_analysis_answer(text) == {
        "language": "C#", "confidence": 0.92, "architecture": "MVVM",
    }  # fmt: skip


@pytest.mark.parametrize(
    "text",
    ["", "no idea", '{"language": "Python",}', '{"error": "cannot read the path"}',
     '["Python"]', '{"unrelated": 1}'],
)  # fmt: skip
def test_unusable_answers_are_none(text: str) -> None:
    assert parse_analysis_answer(text) is None


def test_merge_uses_the_agent_answer_and_records_the_source(python_service: Path) -> None:
    heuristic = heuristic_analysis(scan_codebase(python_service))
    merged = merge_analysis(heuristic, AGENT_ANSWER)
    assert (merged.architecture, merged.frameworks, merged.confidence) == (
        "Hexagonal", ["WSGI"], 0.95,
    )  # fmt: skip
    assert [layer.name for layer in merged.layers] == ["services", "adapters", "tests"]
    assert merged.layers[0].file_count == 2  # kept from the heuristic layer of that name
    assert merged.sources["architecture"] == "agent" and merged.sources["entities"] == "agent"
    assert merged.sources["build_tools"] == "heuristic"
    assert merged.agent_answer == AGENT_ANSWER
    assert heuristic.architecture == "Layered"  # the input is not modified
    renamed = merge_analysis(heuristic, {"layers": [{"name": "Data Access", "folder": "./db/"}]})
    first = renamed.layers[0]
    assert (first.name, first.folders) == ("data-access", ["db"])


def test_merge_ignores_invalid_fields_with_a_note(python_service: Path) -> None:
    heuristic = heuristic_analysis(scan_codebase(python_service))
    bad = {"language": 3, "frameworks": "Flask", "layers": [{"name": "../up", "folders": ["x"]}],
           "confidence": 7, "entities": ["../etc"], "architecture": "Layered"}  # fmt: skip
    merged = merge_analysis(heuristic, bad)
    assert merged.language == "Python" and merged.frameworks == ["Flask"]
    assert merged.confidence == heuristic.confidence and merged.entities == ["Book"]
    assert merged.notes == [
        "agent answer: 'language' ignored (not a valid value)",
        "agent answer: 'layers' ignored (not a valid value)",
        "agent answer: 'confidence' ignored (not a valid value)",
        "agent answer: 'entities' ignored (not a valid value)",
    ]


def test_analyse_lets_the_user_win(python_service: Path) -> None:
    heuristic = heuristic_analysis(scan_codebase(python_service))
    qa = answers(heuristic, {"architecture": "Clean Architecture"})
    final = analyse(heuristic, json.dumps(AGENT_ANSWER), qa)
    assert final.architecture == "Clean Architecture" and final.sources["architecture"] == "user"
    assert final.frameworks == ["WSGI"]
    garbage = analyse(heuristic, "I could not do it, sorry", qa)
    assert garbage.frameworks == [] and garbage.notes[-1].startswith("agent answer not usable")


def test_a_choice_wins_over_the_agent_and_a_default_yields_to_it(python_service: Path) -> None:
    heuristic = heuristic_analysis(scan_codebase(python_service))
    answer = json.dumps({"architecture": "Library (core + public facade)"})
    chosen = analyse(heuristic, answer, answers(heuristic, {"architecture": "Layered"}))
    assert (chosen.architecture, chosen.sources["architecture"]) == ("Layered", "user")
    defaulted = answers(heuristic, {"architecture": "Layered"}, chosen=[])
    taken = analyse(heuristic, answer, defaulted)
    assert (taken.architecture, taken.sources["architecture"]) == (
        "Library (core + public facade)", "agent",
    )  # fmt: skip
    assert purpose(defaulted, taken) == "Library (core + public facade) Python project like " + (
        "library-service"
    )
    older = validate(QAAnswers, {**dump(defaulted), "given": None})  # a state from before
    assert analyse(heuristic, answer, older).architecture == "Library (core + public facade)"
    assert purpose(older, taken) == defaulted.purpose
