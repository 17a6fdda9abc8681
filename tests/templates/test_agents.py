"""Agent recommendations: prompt, tolerant parsing, fallback, and the subagent files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from executor.claude.frontmatter import parse_frontmatter
from executor.templates import (
    agent_files,
    agents_prompt,
    answers,
    build_settings,
    fallback_agents,
    generate_templates,
    heuristic_analysis,
    parse_agents_answer,
    scan_codebase,
    select_agents,
)

RECOMMENDED = [
    {
        "name": "wsgi-routing-specialist",
        "description": "Adds routes to BookRoutes: method, path, status codes",
        "reason": "All HTTP handling is hand-written WSGI in routes/",
        "technologies": ["Python", "WSGI"],
        "example_files": ["library_service/routes/books.py"],
        "priority": 9,
    },
    {
        "name": "In-Memory Repository Expert",
        "description": "Writes repositories: add, get, list, update, delete",
        "priority": "high",
        "tools": "Read, Edit, Write, bash; rm",
    },
    {"name": "architectural-reviewer", "description": "already shipped"},
    {"name": "no-description"},
    {"name": "!!!", "description": "a name with no letters"},
    "not an object",
]


def test_prompt_asks_for_the_seed_array(python_service: Path) -> None:
    prompt = agents_prompt(heuristic_analysis(scan_codebase(python_service)), template_name="lib")
    assert "ONE JSON array" in prompt and "`lib`" in prompt
    for key in ("name", "description", "reason", "technologies", "example_files", "priority"):
        assert f'"{key}"' in prompt
    assert '"library_service/routes"' in prompt


@pytest.mark.parametrize(
    "wrap",
    [
        lambda s: s,
        lambda s: f"Here are the agents:\n```json\n{s}\n```\n",
        lambda s: f'{{"agents": {s}}}',
    ],
)
def test_parse_keeps_the_valid_recommendations(wrap: object) -> None:
    specs = parse_agents_answer(wrap(json.dumps(RECOMMENDED)))  # type: ignore[operator]
    assert specs is not None
    assert [(s.name, s.priority, s.source) for s in specs] == [
        ("wsgi-routing-specialist", 9, "agent"),
        ("in-memory-repository-expert", 8, "agent"),
    ]
    assert specs[0].technologies == ["Python", "WSGI"]
    assert specs[1].tools == ["Read", "Edit", "Write"]


@pytest.mark.parametrize(
    "text", ["", "none needed", "[]", '[{"name": "x"}]', '{"error": "no access"}', "[1, 2,]"]
)
def test_unusable_answers_are_none(text: str) -> None:
    assert parse_agents_answer(text) is None


def test_fallback_covers_language_architecture_framework_and_tests(react_app: Path) -> None:
    specs = fallback_agents(heuristic_analysis(scan_codebase(react_app)))
    assert [s.name for s in specs] == [
        "component-based-architecture-specialist", "typescript-specialist",
        "react-testing-library-testing-specialist", "react-specialist",
    ]  # fmt: skip
    assert all(s.source == "builtin" for s in specs)
    assert specs[2].example_files == ["src/components/TaskList.test.tsx"]
    assert "src/components/TaskList.test.tsx" not in specs[1].example_files


def test_fallback_has_three_agents_even_without_frameworks_or_tests(tmp_path: Path) -> None:
    (tmp_path / "main.go").write_text("package main\n\nfunc main() {}\n", "utf-8")
    specs = fallback_agents(heuristic_analysis(scan_codebase(tmp_path)))
    assert [s.name for s in specs] == [
        "modular-architecture-specialist", "go-specialist", "go-testing-specialist",
    ]  # fmt: skip


def test_select_agents_follows_the_answer(python_service: Path) -> None:
    analysis = heuristic_analysis(scan_codebase(python_service))
    ai, builtin, none = (answers(analysis, {"agents": a}) for a in ("ai", "builtin", "none"))
    text = json.dumps(RECOMMENDED)
    assert select_agents(analysis, ai, text)[0].name == "wsgi-routing-specialist"
    assert select_agents(analysis, ai, "garbage") == fallback_agents(analysis)
    assert select_agents(analysis, ai, None) == fallback_agents(analysis)
    assert select_agents(analysis, builtin, text) == fallback_agents(analysis)
    assert select_agents(analysis, none, text) == []


def test_agent_files_are_claude_code_subagents(python_service: Path) -> None:
    codebase = scan_codebase(python_service)
    analysis = heuristic_analysis(codebase)
    settings = build_settings(analysis, generate_templates(codebase, analysis))
    specs = parse_agents_answer(json.dumps(RECOMMENDED)) or []
    specs[0].description = "Routes: method, path # and 'status' codes"  # needs quoting
    files = agent_files(specs, analysis, settings, template_name="lib")
    assert list(files) == [
        "agents/wsgi-routing-specialist.md", "agents/in-memory-repository-expert.md",
    ]  # fmt: skip
    fields, body = parse_frontmatter(files["agents/wsgi-routing-specialist.md"])
    assert fields == {
        "name": "wsgi-routing-specialist",
        "description": "Routes: method, path # and 'status' codes",
    }
    assert "- `library_service/routes/book.py`" not in body
    assert "- `library_service/routes/books.py`" in body
    assert "functions: snake_case (e.g. `create_app`, `to_dict`, `create_book`)" in body
    assert "lines up to 88 characters (configured in pyproject.toml)" in body
    fields, _ = parse_frontmatter(files["agents/in-memory-repository-expert.md"])
    assert fields["tools"] == "Read, Edit, Write"
