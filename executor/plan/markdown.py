"""Markdown as plans use it: one pass over the lines, every block with its source line.

Why not a full CommonMark parser: plans need headings, fenced code, list items with
checkboxes, paragraph lines and a few inline marks, each with its exact line (errors
name `file:line`, and ticks edit the exact line). mistune gave no positions and cost
about 0.75 ms per plan session; this scanner does the subset in one loop over the lines.

What it recognises (CommonMark where it matters for plans):
- ATX headings (`## Title ##`) and setext headings (a paragraph line underlined with
  `===` or `---`);
- fenced code (``` or ~~~, any indentation, closed by the same fence or the file end):
  nothing inside a fence is a heading or an item;
- list items (`-`, `*`, `+`, `1.`, `1)`) with `[ ]` / `[x]` / `[X]` checkboxes, nested
  by indentation; lines that continue an item's first paragraph are joined to its text;
- thematic breaks, block quotes; everything else is a paragraph line.
Blocks inside a list item (an indented paragraph or fence after a blank line) are
marked `nested` with the line of their item.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^( *)(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_ITEM = re.compile(r"^( *)([-*+]|\d{1,9}[.)])(?:([ \t]+)(.*))?$")
_BOX = re.compile(r"^\[([ xX])\](?:[ \t]+(.*)|$)")
_RULE = re.compile(r"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_QUOTE = re.compile(r"^ {0,3}>[ ]?(.*)$")


@dataclass(slots=True)
class Block:
    """One block: `heading`, `item`, `text` (a paragraph line), `code`, `rule` or `quote`."""

    kind: str
    #: 1-based line where the block starts (for a fence: the opening fence line).
    line: int
    #: Last source line of the block (items: including joined continuation lines).
    end: int
    #: Heading text, item text (checkbox removed, continuations joined with a space),
    #: the line's text, or a fence's content (raw lines joined with newlines).
    text: str
    #: Heading level; for an item its nesting depth (0 = top level).
    level: int = 0
    indent: int = 0
    #: Item checkbox: None without one, else ticked or not.
    checked: bool | None = None
    #: Fence info string (`python`, `mermaid`).
    info: str = ""
    #: Line of the top-level list item this block sits inside (0: not inside one).
    item: int = 0


def scan(text: str) -> list[Block]:
    """The blocks of `text` in order (CRLF and CR line ends read like LF)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    return _Scanner([ln.expandtabs(4) if "\t" in ln else ln for ln in lines]).run()


class _Scanner:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.blocks: list[Block] = []
        #: content columns of the open list items, outermost first
        self.stack: list[int] = []
        self.top_item = 0  # line of the open top-level item
        self.last: Block | None = None  # what a continuation line would extend
        self.blank_before = True

    def close_list(self) -> None:
        self.stack.clear()
        self.top_item = 0

    def add(self, block: Block) -> None:
        self.blocks.append(block)
        self.last, self.blank_before = block, False

    def run(self) -> list[Block]:
        lines, count, i = self.lines, len(self.lines), 0
        while i < count:
            raw = lines[i]
            number = i + 1
            i += 1
            stripped = raw.strip()
            if not stripped:
                self.blank_before = True
                continue
            indent = len(raw) - len(raw.lstrip(" "))
            first = stripped[0]
            if first in "`~" and (fence := _FENCE.match(raw)):
                mark = fence.group(2)
                info = fence.group(3).strip()
                if not (mark[0] == "`" and "`" in info):
                    i = self.fence(number, indent, mark, info)
                    continue
            lazy = not self.blank_before and self.last is not None
            if lazy and self.last is not None and self.last.kind == "text" and first in "=-":
                setext = _SETEXT.match(raw)
                if setext is not None and not self.last.item:
                    under = self.last
                    under.kind, under.end = "heading", number
                    under.level = 1 if setext.group(1)[0] == "=" else 2
                    self.close_list()
                    self.last = None
                    continue
            if self.stack and indent < self.stack[0] and not lazy:
                self.close_list()
            if first == "#" and (atx := _ATX.match(raw)):
                self.close_list()
                text = (atx.group(2) or "").strip()
                self.add(Block("heading", number, number, text, len(atx.group(1))))
                self.last = None
                continue
            if first in "-*_" and _RULE.match(raw):
                self.close_list()
                self.add(Block("rule", number, number, stripped))
                self.last = None
                continue
            if first in "-*+0123456789" and (m := _ITEM.match(raw)):
                self.item(m, number, indent)
                continue
            if first == ">" and (quote := _QUOTE.match(raw)):
                self.add(Block("quote", number, number, quote.group(1).strip(), 0, indent))
                continue
            last = self.last
            if lazy and last is not None and last.kind == "item":
                last.text = f"{last.text} {stripped}" if last.text else stripped
                last.end = number
                continue
            inside = 0
            if self.stack and indent >= self.stack[0]:
                inside = self.top_item
            elif lazy and last is not None and last.kind == "text":
                inside = last.item
            self.add(Block("text", number, number, stripped, 0, indent, None, "", inside))
        return self.blocks

    def fence(self, number: int, indent: int, mark: str, info: str) -> int:
        """Read a fenced block opening at line `number`; return the index after it."""
        lines, count, i = self.lines, len(self.lines), number
        body: list[str] = []
        while i < count:
            closing = lines[i].strip()
            if closing.startswith(mark) and not closing.strip(mark[0]):
                break
            line = lines[i]
            body.append(line[min(indent, len(line) - len(line.lstrip(" "))) :])
            i += 1
        if self.stack and indent < self.stack[0]:
            self.close_list()
        item = self.top_item if self.stack else 0
        end = min(i + 1, count)
        self.add(Block("code", number, end, "\n".join(body), 0, indent, None, info, item))
        self.last = None
        return i + 1

    def item(self, m: re.Match[str], number: int, indent: int) -> None:
        content = m.group(4) or ""
        spaces = m.group(3) or " "
        stack = self.stack
        while stack and indent < stack[-1]:
            stack.pop()
        if not stack:
            self.top_item = number
        checked: bool | None = None
        if content.startswith("[") and (box := _BOX.match(content)):
            checked = box.group(1) != " "
            content = box.group(2) or ""
        self.add(Block("item", number, number, content.strip(), len(stack), indent, checked))
        stack.append(indent + len(m.group(2)) + (len(spaces) if len(spaces) <= 4 else 1))


# --- inline ------------------------------------------------------------------------

_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|(?<![\w/.\\-])__(?=\S)(.+?)(?<=\S)__(?![\w/.])")
_EM = re.compile(
    r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])"
    r"|(?<![\w/.\\-])_(?=\S)(.+?)(?<=\S)_(?![\w/.])"
)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_ENTITY = re.compile(r"&(?:amp|lt|gt|quot|#39|nbsp);")
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&nbsp;": " "}


def code_spans(text: str) -> list[str]:
    """The code spans of an inline text, in order (`` `a` `` -> `a`)."""
    if "`" not in text:
        return []
    return [
        m.group(2).strip() if m.group(1) != "`" else m.group(2) for m in _CODE_SPAN.finditer(text)
    ]


def _plain_part(text: str) -> str:
    if "[" in text:
        text = _LINK.sub(r"\1", text)
    if "*" in text or "_" in text:
        text = _STRONG.sub(lambda m: m.group(1) or m.group(2), text)
        text = _EM.sub(lambda m: m.group(1) or m.group(2), text)
    if "\\" in text:
        text = _ESCAPE.sub(r"\1", text)
    if "&" in text:
        text = _ENTITY.sub(lambda m: _ENTITIES[m.group(0)], text)
    return text


def plain(text: str, *, ticks: bool = True) -> str:
    """Inline markdown as plain text: emphasis, links and escapes removed; code spans
    kept verbatim (with their backticks when `ticks`)."""
    if "`" not in text:
        return _plain_part(text).strip()
    parts: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(text):
        parts.append(_plain_part(text[pos : m.start()]))
        span = m.group(2).strip() if m.group(1) != "`" else m.group(2)
        parts.append(f"`{span}`" if ticks else span)
        pos = m.end()
    parts.append(_plain_part(text[pos:]))
    return "".join(parts).strip()


_LABEL = re.compile(r"^(\*\*|__)(.+?)\1\s*(:?)\s*(.*)$")


@dataclass(slots=True)
class Labelled:
    """`**Label**: rest` (or `**Label:** rest`) read from one line."""

    label: str
    rest: str


def read_label(text: str) -> Labelled | None:
    """The bold label opening `text`, if it ends with a colon or is followed by one."""
    if not text.startswith(("**", "__")):
        return None
    m = _LABEL.match(text)
    if m is None:
        return None
    label, colon, rest = m.group(2).strip(), m.group(3), m.group(4)
    if label.endswith(":"):
        return Labelled(
            plain(label[:-1], ticks=False).strip(), (colon + " " + rest).strip() if colon else rest
        )
    if colon:
        return Labelled(plain(label, ticks=False), rest)
    return None
