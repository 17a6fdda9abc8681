"""Project settings: `[tool.executor]` in pyproject.toml, or `.executor.toml`, at the root.

`test_command` is the project's test command (for plans that name none), and
`test_command_map` maps a plan's command to the one to run here: an exact key, else the
longest key that is a prefix followed by a space (`map_test_command`). `.executor.toml`
wins when both files have settings (docs/plan-format.md, "Project settings").
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pydantic import Field

from executor.datamodel import Strict
from executor.errors import ConfigError
from executor.runoptions import settings_problems

FILES = (".executor.toml", "pyproject.toml")


class ProjectConfig(Strict, frozen=True):
    """The settings that apply to a repository (all optional). (A record, not a
    dataclass: the resume path reads it and cannot pay for importing `dataclasses`.)"""

    test_command: str | None = None
    test_command_map: dict[str, str] = Field(default_factory=dict)
    #: defaults for run options (`checkpoints = "session"`, `max_retries = 3`, ...), keyed
    #: as the option with underscores (executor.runoptions), checked when read
    defaults: dict[str, Any] = Field(default_factory=dict)
    #: The file they were read from (None: no settings anywhere).
    source: Path | None = None


def find_root(start: Path) -> Path:
    """The repository root above `start` (the folder holding `.git`), else `start`'s folder."""
    start = Path(start).absolute()
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def load_project_config(root: Path) -> ProjectConfig:
    """The settings in `root` (see the module docstring); ConfigError if they are bad."""
    for name in FILES:
        path = Path(root) / name
        if not path.is_file():
            continue
        data = _parse(path)
        executor = (
            data.get("tool", {}).get("executor") if isinstance(data.get("tool"), dict) else None
        )
        if name == ".executor.toml":
            return _settings(executor if executor is not None else data, path)
        if executor is not None:
            return _settings(executor, path)
    return ProjectConfig()


def map_test_command(command: str, config: ProjectConfig) -> str:
    """`command` as the project runs it: an exact key of `test_command_map`, else the
    longest key that is a prefix of it (at a word boundary), else unchanged."""
    mapping = config.test_command_map
    if command in mapping:
        return mapping[command]
    best = max((key for key in mapping if command.startswith(key + " ")), key=len, default=None)
    if best is None:
        return command
    return mapping[best] + command[len(best) :]


def _settings(table: Any, path: Path) -> ProjectConfig:
    where = f"{path.name}: [tool.executor]" if path.name == "pyproject.toml" else path.name
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table of settings")
    command = table.get("test_command")
    if command is not None and (not isinstance(command, str) or not command.strip()):
        raise ConfigError(f"{where}: test_command: expected a non-empty string")
    mapping = table.get("test_command_map", {})
    if not isinstance(mapping, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in mapping.items()
    ):
        raise ConfigError(
            f"{where}: test_command_map: expected a table of plan command = local command"
        )
    defaults = {k: v for k, v in table.items() if k not in {"test_command", "test_command_map"}}
    problems = settings_problems(defaults)
    if problems:
        raise ConfigError(f"{where}: " + "; ".join(problems))
    return ProjectConfig(
        test_command=command, test_command_map=dict(mapping), defaults=defaults, source=path
    )


def settings_meaning(name: str, data: bytes | None) -> str:
    """What the executor reads of a settings file (`name` of `FILES`, `data` its bytes,
    None: absent), as canonical text: the whole of `.executor.toml`, `[tool.executor]` of
    pyproject.toml ("" when there is none); a file TOML cannot read counts as its bytes.
    Two versions of a file with the same meaning configure the executor the same way."""
    if data is None or (name == "pyproject.toml" and b"executor" not in data):
        return ""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 only
        import tomli as tomllib
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return repr(data)
    tool = doc.get("tool")
    table = (
        doc
        if name == ".executor.toml"
        else tool.get("executor")
        if isinstance(tool, dict)
        else None
    )
    if table is None:
        return ""
    import json

    return json.dumps(table, sort_keys=True, default=str)


def _parse(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the settings: {e}") from e
    if path.name == "pyproject.toml" and "executor" not in text:
        return {}  # no settings of ours: not worth a TOML parse (the resume path reads this)
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 only
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from e
