"""The Q&A questions as data, and checking the answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from executor.datamodel import dump, validate
from executor.errors import UserError
from executor.exitcodes import ExitCode
from executor.templates import answers, heuristic_analysis, questions, scan_codebase
from executor.templates.models import Question


def test_questions_have_defaults_from_the_analysis(react_app: Path) -> None:
    qs = {q.id: q for q in questions(heuristic_analysis(scan_codebase(react_app)))}
    assert list(qs) == [
        "template_name", "language", "purpose", "architecture", "example_files", "agents",
        "confirmed",
    ]  # fmt: skip
    assert {q.id: q.kind for q in qs.values()} == {
        "template_name": "text", "language": "select", "purpose": "text",
        "architecture": "select", "example_files": "text", "agents": "select",
        "confirmed": "confirm",
    }  # fmt: skip
    assert qs["template_name"].default == "task-board"
    assert qs["language"].default == "TypeScript"
    assert qs["architecture"].default == "Component-based"
    assert qs["architecture"].choices[0].value == "Component-based"
    assert [c.value for c in qs["agents"].choices] == ["ai", "builtin", "none"]
    assert qs["confirmed"].default is True
    assert {q.flag for q in qs.values()} == {
        "--name", "--language", "--purpose", "--architecture", "--example-files", "--agents",
        "--yes",
    }  # fmt: skip
    assert validate(Question, dump(qs["agents"])) == qs["agents"]


def test_answers_take_defaults_and_normalise(python_service: Path) -> None:
    analysis = heuristic_analysis(scan_codebase(python_service))
    qa = answers(analysis, {"example_files": " library_service/**, tests ,", "agents": "none"})
    assert qa.template_name == "library-service"
    assert qa.example_files == ["library_service/**", "tests"]
    assert (qa.agents, qa.confirmed, qa.language) == ("none", True, "Python")


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"template_name": "My Template"}, "template name 'My Template' is not valid (--name)"),
        ({"template_name": "../x"}, "template name '../x' is not valid (--name)"),
        ({"agents": "all"}, "--agents must be one of ai, builtin, none, got 'all'"),
    ],
)
def test_bad_answers_are_user_errors(
    python_service: Path, given: dict[str, str], message: str
) -> None:
    analysis = heuristic_analysis(scan_codebase(python_service))
    with pytest.raises(UserError) as e:
        answers(analysis, given)
    assert str(e.value).startswith(message)
    assert e.value.exit_code == ExitCode.USAGE_ERROR
