"""Where the values of a JSON document are: character spans, for exact edits.

The standard library's decoder reads each value (`raw_decode`) and says where it ends;
walking objects and arrays with it gives each member's span without a private parser.
Task Master ticks rewrite one `"status"` value span and nothing else of the file.
"""

from __future__ import annotations

import json
import re

_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\n\r]*")

Span = tuple[int, int]


def _skip(text: str, i: int) -> int:
    m = _WS.match(text, i)
    assert m is not None
    return m.end()


def members(text: str, start: int) -> dict[str, Span]:
    """Each member of the object whose `{` is at `start`: key -> span of its value."""
    found: dict[str, Span] = {}
    i = _skip(text, start + 1)
    if text[i] == "}":
        return found
    while True:
        key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        i = _skip(text, _skip(text, i) + 1)  # past the colon
        _, end = _DECODER.raw_decode(text, i)
        found[key] = (i, end)
        i = _skip(text, end)
        if text[i] == "}":
            return found
        i = _skip(text, i + 1)


def items(text: str, start: int) -> list[Span]:
    """The span of each item of the array whose `[` is at `start`."""
    found: list[Span] = []
    i = _skip(text, start + 1)
    if text[i] == "]":
        return found
    while True:
        _, end = _DECODER.raw_decode(text, i)
        found.append((i, end))
        i = _skip(text, end)
        if text[i] == "]":
            return found
        i = _skip(text, i + 1)


def line_of(text: str, offset: int) -> int:
    """1-based line of a character offset (lines end at LF, CRLF or CR)."""
    head = text[:offset]
    return head.count("\n") + head.count("\r") - head.count("\r\n") + 1
