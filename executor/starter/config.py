"""The project's config as `init` writes it: `[tool.executor]` appended to an existing
pyproject.toml, else a new `.executor.toml` (`executor.project_config` reads both).

pyproject.toml is never rewritten: its bytes are kept as they are (comments, order,
quoting, line endings) and the table is appended after them, in the file's own line
endings. The result is parsed before anything is written, so a file that would not read
back is never left behind.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from executor.errors import ConfigError

#: What the table says about itself (every run option can be set in it).
_HINT = "# every run option can be set here, keyed with underscores; `executor config` shows them"


@dataclass(frozen=True)
class ConfigFile:
    """The config file to write: its new bytes, and whether it is a new file."""

    path: Path
    data: bytes
    created: bool

    @property
    def where(self) -> str:
        """`[tool.executor] in pyproject.toml` / `.executor.toml`."""
        return self.path.name if self.created else f"[tool.executor] in {self.path.name}"


def existing_config(root: Path) -> Path | None:
    """The config already in `root`: `.executor.toml`, or a pyproject.toml with a
    `[tool.executor]` table. ConfigError when pyproject.toml cannot be read as TOML."""
    dotfile = root / ".executor.toml"
    if dotfile.exists():
        return dotfile
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and "executor" in _parse(pyproject, _read(pyproject)).get("tool", {}):
        return pyproject
    return None


def config_file(root: Path, test_command: str) -> ConfigFile:
    """The config to write in `root` (check `existing_config` first)."""
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        text = f"{_HINT}\ntest_command = {_toml_string(test_command)}\n"
        return ConfigFile(root / ".executor.toml", text.encode(), created=True)
    data = _read(pyproject)
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    lines = ["[tool.executor]", _HINT, f"test_command = {_toml_string(test_command)}", ""]
    table = newline.join(line.encode() for line in lines)
    joined = data + (b"" if not data or data.endswith(b"\n") else newline)
    joined += (newline if data.strip() else b"") + table
    parsed = _parse(pyproject, joined)
    if parsed.get("tool", {}).get("executor", {}).get("test_command") != test_command:
        raise ConfigError(f"{pyproject}: [tool.executor] could not be added to it as TOML")
    return ConfigFile(pyproject, joined, created=False)


def _toml_string(text: str) -> str:
    """`text` as a TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise ConfigError(f"{path}: cannot be read: {e.strerror or e}") from None


def _parse(path: Path, data: bytes) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 only
        import tomli as tomllib
    try:
        parsed = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(
            f"{path} is not valid TOML ({e}); fix it first, so [tool.executor] can be added"
        ) from None
    tool = parsed.get("tool")
    return {**parsed, "tool": tool if isinstance(tool, dict) else {}}
