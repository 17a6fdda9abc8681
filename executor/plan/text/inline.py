"""Inline markdown as plans use it: code spans, plain text and bold labels.

The block parser leaves inline text raw (markdown-it's inline rules are off: parsing
every paragraph's emphasis and links costs as much again as the blocks, and plans only
need these few marks). Each helper is a regular expression over one piece of raw text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


def code_spans_at(text: str) -> list[tuple[int, str]]:
    """The code spans of `text` with where each starts."""
    if "`" not in text:
        return []
    return [
        (m.start(), m.group(2).strip() if m.group(1) != "`" else m.group(2))
        for m in _CODE_SPAN.finditer(text)
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


_LABEL = re.compile(r"^(\*\*|__)(.+?)\1\s*([:：]?)\s*(.*)$", re.S)


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
    if label.endswith((":", "：")):  # `**Label:**`, `**文件：**` (a full-width colon)
        return Labelled(
            plain(label[:-1], ticks=False).strip(), (colon + " " + rest).strip() if colon else rest
        )
    if colon:
        return Labelled(plain(label, ticks=False), rest)
    return None
