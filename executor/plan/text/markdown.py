"""Markdown as CommonMark reads it: every block with its exact source lines, and the tree
of heading sections that plans are built from.

markdown-it-py parses the blocks with the inline rules off (plans need the raw text, and
it halves the cost), imported on first parse only (the exit-42 resume path never pays
for it). YAML front matter is blanked and a ```` ```markdown ```` block holding fences of
its own is closed where its author closed it, on a copy with the same lines so every line
number stays exact."""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

    from markdown_it import MarkdownIt

_BOX = re.compile(r"^\[([ xX-])\](\\?\*)?(?:[ \t]+|$)")  # `[ ]\*`: an escaped optional mark
_LINE_BREAK = re.compile(r"\r\n?|\n")
_FENCE_LINE = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^`\s]*)[^`]*$")
_FRONT_KEY = re.compile(r"^[\w-]+\s*:")
#: A line of the plan itself, never of a document it quotes: a step or a task.
_PLAN_LINE = re.compile(
    r"^\s*(?:[-*]\s+\[[ xX]\]\s+)?(?:\*\*|__)step\s+\d+|^#{1,4}\s+(?:task|session)\s+\d", re.I
)


@dataclass(slots=True)
class Block:
    """One block: `heading`, `paragraph`, `item` (a list item: its first paragraph is
    its text), `code` (fenced or indented), `html`, `rule` or `table`."""

    kind: str
    #: 1-based first and last source line.
    line: int
    end: int
    #: Heading text; paragraph or item text (raw inline markdown, lines joined with
    #: "\n"; an item's checkbox removed); code content.
    text: str = ""
    #: Heading level; for an item its list depth (0 = not inside another item).
    level: int = 0
    #: Item checkbox: None without one, else ticked (`[x]`/`[X]`) or not (`[ ]`, `[-]`).
    checked: bool | None = None
    #: Item checkbox mark (" ", "x", "X", "-"; "" without one) and Kiro's optional `*`.
    mark: str = ""
    star: bool = False
    #: Fence info string (`bash`, `mermaid`); an ordered item's number.
    info: str = ""
    #: Line of the innermost / outermost list item holding this block (0: none).
    item: int = 0
    top: int = 0
    #: Inside a block quote.
    quote: bool = False

    def lines(self) -> list[tuple[int, str]]:
        """A paragraph's or item's text as (source line, text) pairs."""
        return [(self.line + i, part) for i, part in enumerate(self.text.split("\n"))]

    @property
    def first(self) -> str:
        """The first line of the text."""
        return self.text.split("\n", 1)[0]

    @property
    def nested(self) -> bool:
        """Inside a list item or a quote (not a top-level block)."""
        return bool(self.item) or self.quote


@dataclass
class Section:
    """A heading and everything up to the next heading of its level or above."""

    heading: Block | None
    #: Blocks between the heading and its first sub-heading (nested ones included).
    blocks: list[Block] = field(default_factory=list)
    children: list[Section] = field(default_factory=list)
    #: Last line of the section (before the next heading of its level or above).
    end: int = 0

    @property
    def level(self) -> int:
        return self.heading.level if self.heading is not None else 0

    @property
    def line(self) -> int:
        return self.heading.line if self.heading is not None else 1

    @property
    def title(self) -> str:
        return self.heading.text if self.heading is not None else ""

    def walk(self) -> Iterator[Section]:
        """This section and every section below it, in document order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def all_blocks(self) -> list[Block]:
        """Every block of the section, its sub-headings included, in document order."""
        found: list[Block] = []
        for section in self.walk():
            if section is not self and section.heading is not None:
                found.append(section.heading)
            found.extend(section.blocks)
        return found


@dataclass
class Document:
    blocks: list[Block]
    root: Section
    #: Number of source lines.
    count: int


_KEPT: dict[str, Document] | None = None


@contextmanager
def kept() -> Iterator[dict[str, Document]]:
    """While a plan is loaded, each text is parsed once: the readers and the check that
    every work-shaped line was read (`executor.plan.readers.account`) share the Document
    (nothing changes a Document); the documents go when the load ends."""
    global _KEPT
    outer, _KEPT = _KEPT, {} if _KEPT is None else _KEPT
    try:
        yield _KEPT
    finally:
        _KEPT = outer


def parse(text: str) -> Document:
    """The blocks and heading sections of `text` (CRLF and CR line ends read like LF)."""
    if _KEPT is not None and (known := _KEPT.get(text)) is not None:
        return known
    document = _parse(text)
    if _KEPT is not None:
        _KEPT[text] = document
    return document


def _parse(text: str) -> Document:
    lines = source_lines(text)
    blocks = _blocks(_parser().parse(_readable(text)))
    for block in blocks:  # a list item's map runs over the blank line after it
        while block.kind == "item" and block.end > block.line and not lines[block.end - 1].strip():
            block.end -= 1
    return Document(blocks, _sections(blocks, len(lines)), len(lines))


def source_lines(text: str) -> list[str]:
    """The lines of `text` without their ends, split at LF, CRLF and CR only (never
    `str.splitlines`, which also splits at form feeds and Unicode separators that
    CommonMark does not count as line ends)."""
    lines = _LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


_MD: MarkdownIt | None = None


def _parser() -> MarkdownIt:
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt

        _MD = MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"])
        _quiet()
    return _MD


def _quiet() -> None:
    """markdown-it's block rules each call `LOGGER.debug(...)` every time they are tried,
    on every line (3.6 million calls for 10,000 sessions, ~4% of the parse); when nobody
    listens for its debug lines as the parser is made, its loggers' `debug` does
    nothing (a log level set later does not bring them back)."""
    import logging

    if logging.getLogger("markdown_it").isEnabledFor(logging.DEBUG):
        return
    for name in list(logging.Logger.manager.loggerDict):
        if name.startswith("markdown_it."):
            logging.getLogger(name).debug = _ignore  # type: ignore[method-assign]


def _ignore(*args: object, **kwargs: object) -> None:
    """A debug line nobody listens for."""


# --- reading the text as a careful person does (same lines) ---------------------------


def _readable(text: str) -> str:
    if not (text.startswith("---") or "```markdown" in text or "```md" in text):
        return text
    lines = _LINE_BREAK.split(text)
    _blank_front_matter(lines)
    if "```markdown" in text or "```md" in text:
        _balance_markdown_fences(lines)
    return "\n".join(lines)


def _blank_front_matter(lines: list[str]) -> None:
    if not lines or lines[0].rstrip() != "---":
        return
    for i in range(1, min(len(lines), 60)):
        if lines[i].rstrip() in ("---", "..."):
            if any(_FRONT_KEY.match(ln) for ln in lines[1:i]):
                lines[: i + 1] = [""] * (i + 1)
            return


def _balance_markdown_fences(lines: list[str]) -> None:
    """Lengthen the fences of a markdown block whose own fences nest, so that CommonMark
    closes it where its author did."""
    i = 0
    while i < len(lines):
        m = _FENCE_LINE.match(lines[i])
        if m is None:
            i += 1
            continue
        mark, info = m.group(2), m.group(3).lower()
        close = _closing(lines, i, mark)
        if close is None:
            return  # never closed: CommonMark runs it to the end anyway
        if info in ("markdown", "md"):
            author = _author_close(lines, i, mark)
            if author is not None and author != close:
                lines[i] = lines[i].replace(mark, mark + mark[0], 1)
                lines[author] = lines[author].replace(mark, mark + mark[0], 1)
                close = author
        i = close + 1


def _closing(lines: list[str], opening: int, mark: str) -> int | None:
    """The line CommonMark closes the fence opened at `opening` at (a bare fence)."""
    for n in range(opening + 1, len(lines)):
        m = _FENCE_LINE.match(lines[n])
        if m and m.group(2)[0] == mark[0] and not m.group(3) and len(m.group(2)) >= len(mark):
            return n
    return None


def _author_close(lines: list[str], opening: int, mark: str) -> int | None:
    """Where the author of a markdown document block closed it. Inside it, fences come
    in pairs (an opener with or without an info string, a bare closer); a bare fence
    where a pair could open is either the next pair's opener or the block's own end, and
    it was the end when what follows is no code: the plan's next step or task, or a
    fence with an info string (a new block) before any bare closer. None: undecided."""
    inner = False
    maybe_end: int | None = None  # a bare fence taken as an opener for now
    for n in range(opening + 1, len(lines)):
        m = _FENCE_LINE.match(lines[n])
        if m is not None and m.group(2)[0] == mark[0]:
            if not inner:
                inner, maybe_end = True, None if m.group(3) else n
            elif not m.group(3):
                inner, maybe_end = False, None
            elif maybe_end is not None:
                return maybe_end
        elif _PLAN_LINE.match(lines[n]):
            return maybe_end
    return maybe_end


# --- tokens -> blocks -------------------------------------------------------------------


def _blocks(tokens: list[Any]) -> list[Block]:
    """One pass over markdown-it's block tokens."""
    out: list[Block] = []
    items: list[Block] = []  # open list items, outermost first
    quotes = 0
    i, count = 0, len(tokens)
    while i < count:
        tok = tokens[i]
        kind = tok.type
        i += 1
        if kind == "paragraph_open":
            text = tokens[i].content
            i += 2
            start, end = tok.map
            holder = items[-1] if items else None
            if holder is not None and not holder.text and start + 1 == holder.line:
                _item_text(holder, text)
                continue
            out.append(_inside(Block("paragraph", start + 1, end, text), items, quotes))
        elif kind == "list_item_open":
            start, end = tok.map
            block = _inside(Block("item", start + 1, end, level=len(items)), items, quotes)
            block.info = tok.info
            out.append(block)
            items.append(block)
        elif kind == "list_item_close":
            items.pop()
        elif kind == "heading_open":
            start, end = tok.map
            text = tokens[i].content.strip()
            i += 2
            heading = Block("heading", start + 1, end, text, int(tok.tag[1]))
            out.append(_inside(heading, items, quotes))
        elif kind in ("fence", "code_block"):
            start, end = tok.map
            code = Block("code", start + 1, end, tok.content.rstrip("\n"), info=tok.info.strip())
            out.append(_inside(code, items, quotes))
        elif kind == "blockquote_open":
            quotes += 1
        elif kind == "blockquote_close":
            quotes -= 1
        elif kind in ("html_block", "hr", "table_open"):
            start, end = tok.map
            name = {"html_block": "html", "hr": "rule", "table_open": "table"}[kind]
            out.append(_inside(Block(name, start + 1, end, tok.content), items, quotes))
            if kind == "table_open":
                while tokens[i].type != "table_close":
                    i += 1
    return out


def _inside(block: Block, items: list[Block], quotes: int) -> Block:
    if items:
        block.item, block.top = items[-1].line, items[0].line
    block.quote = quotes > 0
    return block


def _item_text(item: Block, text: str) -> None:
    if text.startswith("[") and (box := _BOX.match(text)):
        item.mark, item.star = box.group(1), bool(box.group(2))
        item.checked = item.mark in "xX"
        text = text[box.end() :]
    item.text = text


def _sections(blocks: list[Block], count: int) -> Section:
    """The tree of top-level headings (headings inside items and quotes are content)."""
    root = Section(None, end=count)
    stack = [root]
    for block in blocks:
        if block.kind == "heading" and not block.nested:
            while stack[-1].heading is not None and stack[-1].level >= block.level:
                stack.pop().end = block.line - 1
            section = Section(block)
            stack[-1].children.append(section)
            stack.append(section)
        else:
            stack[-1].blocks.append(block)
    for open_section in stack[1:]:
        open_section.end = count
    return root
