"""Project settings from pyproject.toml / .executor.toml, and test command mapping."""

from __future__ import annotations

from pathlib import Path

import pytest

from executor.errors import ConfigError
from executor.project_config import (
    ProjectConfig,
    find_root,
    load_project_config,
    map_test_command,
)

PYPROJECT = """
[project]
name = "demo"
dependencies = ["a>=1", "b"]

[tool.executor]
test_command = "python -m pytest -q"  # the default

[tool.executor.test_command_map]
"docker compose run --rm django pytest" = "pytest"
'npm test' = "npx vitest run"

[tool.ruff]
line-length = 100
"""


def test_pyproject_settings_are_read_and_mapped(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    config = load_project_config(tmp_path)
    assert config.test_command == "python -m pytest -q"
    assert config.source == tmp_path / "pyproject.toml"
    plan_cmd = "docker compose run --rm django pytest apps/ledger/tests -q"
    assert map_test_command(plan_cmd, config) == "pytest apps/ledger/tests -q"
    assert map_test_command("npm test", config) == "npx vitest run"
    assert map_test_command("npm testing", config) == "npm testing"  # prefixes end at a space
    assert map_test_command("make test", config) == "make test"


def test_the_longest_prefix_wins() -> None:
    config = ProjectConfig(
        test_command_map={"docker compose run": "x", "docker compose run --rm web": "y"}
    )
    assert map_test_command("docker compose run --rm web pytest", config) == "y pytest"


def test_executor_toml_wins_and_takes_top_level_keys(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / ".executor.toml").write_text('test_command = "make test"\n', encoding="utf-8")
    config = load_project_config(tmp_path)
    assert (config.test_command, config.test_command_map) == ("make test", {})


def test_no_settings_anywhere(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    assert load_project_config(tmp_path) == ProjectConfig()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tool.executor]\ntest_command = 3\n", "test_command: expected a non-empty string"),
        ("[tool.executor]\ntets_command = 'x'\n", "unknown setting 'tets_command'"),
        ("[tool.executor]\ntest_command_map = {a = 1}\n", "test_command_map: expected a table"),
        ("[tool.executor\n", "not valid TOML"),
    ],
)
def test_bad_settings_name_the_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"pyproject\.toml") as info:
        load_project_config(tmp_path)
    assert message in str(info.value)


def test_root_is_the_git_folder(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    deep = tmp_path / "project-plans" / "x"
    deep.mkdir(parents=True)
    assert find_root(deep) == tmp_path
    assert find_root(deep / "PHASE_1.md") == tmp_path
