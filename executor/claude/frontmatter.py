"""A tiny reader for the YAML frontmatter of Claude Code markdown files.

Claude Code reads subagents and slash commands as markdown whose first lines are
`---`, then `key: value` lines, then `---`. We write only flat string values, so this
reader accepts only that subset (no PyYAML dependency) and rejects anything a YAML parser
could read differently: a plain value containing `: ` or ` #`, or one starting with a YAML
indicator character, must be quoted.
"""

from __future__ import annotations

import re

from executor.errors import FrontmatterError

_KEY_RE = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9_-]*):(?:[ \t]+(?P<value>.*))?$")
#: Characters that start something other than a plain scalar in YAML.
_INDICATORS = tuple("[]{}&*!|>'\"%@`#,")


def _value(raw: str, *, source: str, line: int) -> str:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        inner = raw[1:-1]
        if raw[0] == "'":
            return inner.replace("''", "'")
        if "\\" in inner or '"' in inner:
            raise FrontmatterError(
                "escapes and inner quotes are not supported in double-quoted values",
                source=source,
                line=line,
            )
        return inner
    if raw.startswith(_INDICATORS) or raw[:2] in {"- ", "? ", ": "} or raw in {"-", "?", ":"}:
        raise FrontmatterError(f"quote this value: {raw!r}", source=source, line=line)
    if ": " in raw or " #" in raw or raw.endswith(":"):
        raise FrontmatterError(
            f"a plain value must not contain ': ' or ' #' (quote it): {raw!r}",
            source=source,
            line=line,
        )
    return raw


def parse_frontmatter(text: str, *, source: str = "<text>") -> tuple[dict[str, str], str]:
    """Split `text` into (frontmatter fields, body).

    Raises FrontmatterError naming `source` and the line when the block is missing,
    unterminated, has a line that is not `key: value`, or repeats a key.
    """
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise FrontmatterError("expected '---' on the first line", source=source, line=1)
    fields: dict[str, str] = {}
    for index, line in enumerate(lines[1:], start=2):
        if line.strip() == "---":
            body = "\n".join(lines[index:])
            return fields, body + ("\n" if text.endswith("\n") and body else "")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _KEY_RE.match(line)
        if m is None:
            raise FrontmatterError(
                f"expected 'key: value', got {line!r}", source=source, line=index
            )
        key = m.group("key")
        if key in fields:
            raise FrontmatterError(f"duplicate key {key!r}", source=source, line=index)
        fields[key] = _value(m.group("value") or "", source=source, line=index)
    raise FrontmatterError(
        "the frontmatter is not closed with '---'", source=source, line=len(lines)
    )
