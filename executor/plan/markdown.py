"""mistune 3 behind a small seam: one parse per file, top-level blocks stamped with lines.

mistune gives no source positions (upstream issue #218), so a `BlockParser` subclass
records, for every top-level token, the 1-based line where its match started. List items
get their lines from a scan of the list's own source lines (marker lines, in document
order). Inline helpers flatten mistune's inline children into text and split paragraphs
at soft breaks, so `**Label**: value` lines can be read one by one.

Tested against mistune 3.1 (pinned `<3.2` in pyproject); `tests/plan/test_markdown.py`
fails loudly if a new mistune moves the hooks this module relies on.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import mistune
from mistune.block_parser import BlockParser
from mistune.core import BlockState
from mistune.plugins import import_plugin

Token = dict[str, Any]

#: Key we add to top-level tokens: the 1-based source line where the block starts.
LINE = "_line"

_LIST_MARKER = re.compile(r"^\s{0,64}(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


class _LineState(BlockState):
    """BlockState that stamps top-level paragraphs with their start offset."""

    line_starts: list[int]

    def add_paragraph(self, text: str) -> None:
        last = self.last_token()
        super().add_paragraph(text)
        if self.parent is None and self.tokens[-1] is not last:
            self.tokens[-1][LINE] = _line_of(self, self.cursor)


def _line_of(state: _LineState, offset: int) -> int:
    root: Any = state
    while root.parent is not None:
        root = root.parent
    return bisect.bisect_right(root.line_starts, offset)


class _LineBlockParser(BlockParser):
    state_cls = _LineState

    def parse_method(self, m: re.Match[str], state: BlockState) -> int | None:
        before = len(state.tokens)
        rv = super().parse_method(m, state)
        if state.parent is None and isinstance(state, _LineState):
            line = _line_of(state, m.start())
            for tok in state.tokens[before:]:
                tok.setdefault(LINE, line)
        return rv


_MARKDOWN: mistune.Markdown | None = None


def _markdown() -> mistune.Markdown:
    global _MARKDOWN
    if _MARKDOWN is None:
        md = mistune.Markdown(
            renderer=None,
            block=_LineBlockParser(),
            inline=mistune.InlineParser(),
            plugins=[import_plugin("task_lists")],
        )
        _MARKDOWN = md
    return _MARKDOWN


def parse_blocks(text: str) -> list[Token]:
    """Top-level mistune tokens of `text`, each with `tok[LINE]` (1-based).

    Tokens mistune folds into a previous one (setext underlines) keep the earlier line.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    state = _LineState()
    state.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    tokens, _ = _markdown().parse(text, state)
    assert isinstance(tokens, list)
    last = 1
    for tok in tokens:  # a token without a stamp (should not happen) inherits the last line
        last = tok.setdefault(LINE, last)
    return tokens


# --- inline helpers -----------------------------------------------------------------


def inline_text(children: list[Token], *, ticks: bool = True) -> str:
    """Plain text of inline children; code spans keep their backticks when `ticks`."""
    parts: list[str] = []
    for tok in children:
        kind = tok["type"]
        if kind == "codespan":
            parts.append(f"`{tok['raw']}`" if ticks else tok["raw"])
        elif kind in ("softbreak", "linebreak"):
            parts.append(" ")
        elif "children" in tok:
            parts.append(inline_text(tok["children"], ticks=ticks))
        else:
            parts.append(str(tok.get("raw", "")))
    return "".join(parts).strip()


def code_spans(children: list[Token]) -> list[str]:
    """The code spans of inline children, in order, nested ones included."""
    found: list[str] = []
    for tok in children:
        if tok["type"] == "codespan":
            found.append(tok["raw"])
        elif "children" in tok:
            found.extend(code_spans(tok["children"]))
    return found


def split_lines(children: list[Token]) -> list[list[Token]]:
    """Split a paragraph's inline children at soft/hard breaks: one list per source line."""
    lines: list[list[Token]] = [[]]
    for tok in children:
        if tok["type"] in ("softbreak", "linebreak"):
            lines.append([])
        else:
            lines[-1].append(tok)
    return lines


@dataclass
class Labelled:
    """`**Label**: rest` (or `**Label:** rest`) read from one inline line."""

    label: str
    rest: list[Token]


def read_label(line: list[Token]) -> Labelled | None:
    """The bold label opening `line`, if it is followed by (or ends with) a colon."""
    if not line or line[0]["type"] != "strong":
        return None
    label = inline_text(line[0]["children"], ticks=False)
    rest = line[1:]
    if label.endswith(":"):
        return Labelled(label[:-1].strip(), rest)
    if rest and rest[0]["type"] == "text" and rest[0]["raw"].lstrip().startswith(":"):
        first = {**rest[0], "raw": rest[0]["raw"].lstrip()[1:].lstrip()}
        return Labelled(label.strip(), [first, *rest[1:]] if first["raw"] else rest[1:])
    return None


# --- lists --------------------------------------------------------------------------


@dataclass
class Item:
    """One list item: its own inline text, checkbox state, line and nesting depth."""

    children: list[Token]
    checked: bool | None
    line: int
    depth: int
    blocks: list[Token] = field(default_factory=list)


def list_items(tok: Token, lines: list[str], next_line: int) -> Iterator[Item]:
    """Items of a top-level list token in document order (nested ones flattened).

    `lines` are the file's source lines; the list spans `tok[LINE]` up to `next_line`
    (exclusive). Item lines come from the marker lines in that span, matched in order;
    when the count differs (markers inside code blocks) an item gets the list's line.
    """
    items = list(_walk_items(tok, 0))
    markers = _marker_lines(lines, tok[LINE], next_line)
    exact = len(markers) == len(items)
    for i, (node, depth) in enumerate(items):
        own: list[Token] = []
        blocks: list[Token] = []
        for child in node.get("children", []):
            if child["type"] in ("block_text", "paragraph") and not own:
                own = child.get("children", [])
            elif child["type"] != "list":
                blocks.append(child)
        checked = node.get("attrs", {}).get("checked") if node["type"] == "task_list_item" else None
        yield Item(own, checked, markers[i] if exact else tok[LINE], depth, blocks)


def _walk_items(tok: Token, depth: int) -> Iterator[tuple[Token, int]]:
    for node in tok.get("children", []):
        if node["type"] in ("list_item", "task_list_item"):
            yield node, depth
            for child in node.get("children", []):
                if child["type"] == "list":
                    yield from _walk_items(child, depth + 1)


def _marker_lines(lines: list[str], start: int, end: int) -> list[int]:
    found: list[int] = []
    fence: str | None = None
    for n in range(start, min(end, len(lines) + 1)):
        text = lines[n - 1]
        m = _FENCE.match(text)
        if m:
            fence = None if fence and m.group(1).startswith(fence) else (fence or m.group(1)[:3])
            continue
        if fence is None and _LIST_MARKER.match(text):
            found.append(n)
    return found
