"""The template syntax, and rendering it. Two tokens, nothing else:

    {{Name}}        a placeholder: `Name` matches [A-Za-z][A-Za-z0-9_]*
    {{ '{{' }}      a literal `{{` (Jinja's own idiom for it)

Template creation escapes EVERY `{{` of the source, so rendering never mistakes source
text for a placeholder, and a template is also valid Jinja for these two forms.
Rendering is a single left-to-right pass: substituted values are never re-scanned. A
`{{` that starts neither token is emitted as one `{` and scanning moves one character
on; this is what happens for a source `{` directly before a placeholder (`{{{Name}}`).
Any other such `{{` (e.g. `{{ name }}` typed by hand) is *stray*: rendering keeps it
as text and `verify_template` reports it, because it would have been escaped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

ESCAPED_BRACES = "{{ '{{' }}"
_TOKEN = re.compile(r"\{\{(?:([A-Za-z][A-Za-z0-9_]*)|( '\{\{' ))\}\}")
_OPEN = re.compile(r"\{\{")


@dataclass(frozen=True)
class Token:
    """A placeholder (`name` set) or an escaped `{{` (`name` None) at `start:end`."""

    start: int
    end: int
    name: str | None


def tokens(text: str) -> Iterator[Token]:
    """Placeholders and escapes in `text`, left to right, as the renderer sees them."""
    pos = 0
    while (m := _OPEN.search(text, pos)) is not None:
        i = m.start()
        while True:
            tok = _TOKEN.match(text, i)
            if tok is not None or text[i + 2 : i + 3] != "{":
                break
            i += 1  # `{{{...`: the first `{` is text
        if tok is None:
            pos = i + 1
            continue
        yield Token(tok.start(), tok.end(), tok.group(1))
        pos = tok.end()


def stray_braces(text: str) -> list[int]:
    """Line numbers of `{{` that are neither a placeholder nor an escape (nor adjacent)."""
    covered = [(t.start, t.end) for t in tokens(text)]
    lines: list[int] = []
    for m in _OPEN.finditer(text):
        i = m.start()
        inside = any(s - 1 <= i < e for s, e in covered)
        if not inside:
            line = text.count("\n", 0, i) + 1
            if line not in lines:
                lines.append(line)
    return lines


def placeholders_in(text: str) -> list[str]:
    """Placeholder names used in `text`, first use first."""
    return list(dict.fromkeys(t.name for t in tokens(text) if t.name is not None))


def render(text: str, values: Mapping[str, str]) -> str:
    """Substitute placeholders and unescape `{{`. KeyError names an undeclared placeholder."""
    out: list[str] = []
    pos = 0
    for t in tokens(text):
        out.append(text[pos : t.start])
        out.append("{{" if t.name is None else values[t.name])
        pos = t.end
    out.append(text[pos:])
    return "".join(out)
