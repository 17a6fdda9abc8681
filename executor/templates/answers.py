"""Reading what an agent wrote, and writing what it reads.

`extract_json` finds the JSON value in an agent's answer however it is wrapped: bare,
in a ```json fence, or inside prose. It does not repair invalid JSON (trailing commas,
comments, single quotes): an answer that is not JSON is no answer, and the caller falls
back to its deterministic result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from executor.templates.scan import Codebase

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


def extract_json(text: str, *, want: type = dict) -> Any | None:
    """The first JSON value of type `want` (dict or list) in `text`, else None."""
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCE.finditer(text))]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, want):
            return value
    opener = "{" if want is dict else "["
    for m in re.finditer(re.escape(opener), text):
        try:
            value, _ = _DECODER.raw_decode(text, m.start())
        except ValueError:
            continue
        if isinstance(value, want):
            return value
    return None


def fence(text: str, info: str = "") -> str:
    """`text` in a code fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip()}\n{ticks}"


def tree(paths: Iterable[str], *, limit: int) -> str:
    """An indented folder tree of `paths` (sorted), cut after `limit` lines."""
    lines: list[str] = []
    shown_dirs: set[str] = set()
    paths = list(paths)
    for count, path in enumerate(paths):
        parts = path.split("/")
        for depth in range(len(parts) - 1):
            folder = "/".join(parts[: depth + 1])
            if folder not in shown_dirs:
                shown_dirs.add(folder)
                lines.append("  " * depth + parts[depth] + "/")
        lines.append("  " * (len(parts) - 1) + parts[-1])
        if len(lines) >= limit:
            rest = len(paths) - count - 1
            if rest:
                lines.append(f"... ({rest} more files)")
            break
    return "\n".join(lines)


def excerpt(codebase: Codebase, path: str, *, max_chars: int, max_lines: int) -> str | None:
    """The start of a text file, with a note saying how much was left out."""
    text = codebase.text(path)
    if text is None:
        return None
    lines = text.splitlines()
    cut = "\n".join(lines[:max_lines])[:max_chars]
    shown = cut.count("\n") + 1 if cut else 0
    if shown < len(lines) or len(cut) < len("\n".join(lines)):
        return f"{cut}\n... (truncated: {shown} of {len(lines)} lines shown)"
    return cut
