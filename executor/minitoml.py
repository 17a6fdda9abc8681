"""The Python 3.10 fallback for the project settings (`executor.project_config`): the
subset of TOML they use, `[tables]`, `key = "string"` (basic or literal strings), quoted
keys, inline tables of strings and comments; anything else is a clear ConfigError.

Its own module so that its patterns are compiled only when it is used (never on 3.11+).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from executor.errors import ConfigError

_KEY = r'(?:"(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_\-]+)'
_STRING = r'(?:"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_TABLE = re.compile(rf"^\[\s*({_KEY}(?:\s*\.\s*{_KEY})*)\s*\]$")
_PAIR = re.compile(rf"^({_KEY})\s*=\s*(.+)$")
_INLINE_PAIR = re.compile(rf"\s*({_KEY})\s*=\s*({_STRING})\s*(?:,|$)")
_DOTTED = re.compile(_KEY)
_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r"}
#: Tables the settings live in; every other table of a pyproject.toml is skipped.
_READ = (["tool", "executor"], ["tool", "executor", "test_command_map"], ["test_command_map"])


def parse_minimal_toml(text: str, path: Path) -> dict[str, Any]:
    """The subset of TOML the settings use (see the module docstring); other tables of
    the file (a real pyproject.toml has many) are skipped unread."""
    root: dict[str, Any] = {}
    table: dict[str, Any] | None = root
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _strip_comment(raw).strip()
        if not line:
            continue
        if line.startswith("["):
            m = _TABLE.match(line)
            keys = [_unquote(k) for k in _DOTTED.findall(m.group(1))] if m else []
            table = _table_at(root, keys) if keys in _READ else None
            continue
        if table is None:
            continue
        pair = _PAIR.match(line)
        if pair is None:
            raise ConfigError(f'{path}:{number}: expected `key = "value"`')
        table[_unquote(pair.group(1))] = _value(pair.group(2).strip(), path, number)
    return root


def _table_at(root: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    table = root
    for key in keys:
        table = table.setdefault(key, {})
    return table


def _value(text: str, path: Path, number: int) -> Any:
    if re.fullmatch(_STRING, text):
        return _unquote(text)
    if text.startswith("{") and text.endswith("}"):
        body, pos, out = text[1:-1], 0, {}
        while body[pos:].strip():
            m = _INLINE_PAIR.match(body, pos)
            if m is None:
                raise ConfigError(f"{path}:{number}: only strings are read in an inline table")
            out[_unquote(m.group(1))] = _unquote(m.group(2))
            pos = m.end()
        return out
    raise ConfigError(f"{path}:{number}: only string values are read here (Python 3.10)")


def _unquote(text: str) -> str:
    if text.startswith("'"):
        return text[1:-1]
    if text.startswith('"'):
        return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), text[1:-1])
    return text


def _strip_comment(line: str) -> str:
    quote: str | None = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote and (quote == "'" or line[i - 1] != "\\"):
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return line[:i]
    return line
