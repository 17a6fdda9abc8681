"""`executor.starter`: what a folder is taken for, and the config appended to a
pyproject.toml in its own line endings (the CLI tests run the whole command)."""

from __future__ import annotations

from pathlib import Path

import pytest

from executor.errors import ConfigError
from executor.starter.config import config_file, existing_config
from executor.starter.detect import code_name, detect


@pytest.mark.parametrize(
    ("files", "kind", "command"),
    [
        ({}, "python", "python -m pytest"),
        ({"requirements.txt": ""}, "python", "python -m pytest"),
        ({"go.mod": "module x\n"}, "go", "go test ./..."),
        ({"Cargo.toml": "[package]\n"}, "rust", "cargo test"),
        # a script that is one runner is run directly: its report counts the tests
        ({"package.json": '{"scripts": {"test": "jest"}}'}, "node", "npx jest"),
        ({"package.json": '{"scripts": {"test": "vitest"}}'}, "node", "npx vitest run"),
        ({"package.json": '{"scripts": {"test": "node --test test/"}}'}, "node",
         "node --test test/"),
        # anything else stays `npm test` (judged by its exit code alone)
        ({"package.json": '{"scripts": {"test": "tsc && node --test"}}'}, "node", "npm test"),
        ({"package.json": '{"scripts": {"test": "mocha"}}'}, "node", "npm test"),
        ({"package.json": '{"scripts": {"test": "jest", "pretest": "tsc"}}'}, "node",
         "npm test"),
        ({"package.json": "{}"}, "node", "node --test"),
        ({"package.json": "not json"}, "node", "node --test"),
        # a Python project with a package.json for its front end is a Python project
        ({"pyproject.toml": "", "package.json": '{"scripts": {"test": "jest"}}'}, "python",
         "python -m pytest"),
    ],
)  # fmt: skip
def test_the_kind_and_test_command(
    tmp_path: Path, files: dict[str, str], kind: str, command: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, "utf-8")
    project = detect(tmp_path)
    assert (project.kind, project.test_command) == (kind, command)


def test_code_names() -> None:
    assert code_name("My App 2") == "my_app_2"
    assert code_name("2048") == "app_2048"
    assert code_name("---") == "app"


def test_a_crlf_pyproject_keeps_its_bytes_and_line_endings(tmp_path: Path) -> None:
    original = b'[project]\r\nname = "x"\r\n'
    (tmp_path / "pyproject.toml").write_bytes(original)
    assert existing_config(tmp_path) is None
    edit = config_file(tmp_path, 'pytest -k "not slow"')
    assert edit.data.startswith(original + b"\r\n[tool.executor]\r\n")
    assert edit.data.endswith(b'test_command = "pytest -k \\"not slow\\""\r\n')
    assert b"\n" not in edit.data.replace(b"\r\n", b"")


def test_a_pyproject_that_is_not_toml_is_said_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project\n", "utf-8")
    with pytest.raises(ConfigError, match="is not valid TOML"):
        existing_config(tmp_path)
