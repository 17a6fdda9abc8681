"""A session's text three ways: exact (`source_text`), hashed for drift (`source_hash`,
blind to checkbox state) and as the agent reads it (`brief_text`, without commit steps).

Why the hash ignores ticks: the executor ticks a session's boxes itself when the session
is done, and other tools tick them too; neither is an edit of what the session asks for,
so neither may look like plan drift on resume.

Why commit instructions are cut from the brief: committing is the executor's job (one
commit per verified session), so a plan's `Commit` step, its `git commit` blocks and its
"do not commit" lines are never handed to the agent; `source_text` keeps them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_LINE_END = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
#: A list item's checkbox: the marker, then `[ ]`, `[x]`/`[X]` (ticked) or Kiro's `[-]`
#: (in progress), followed by whitespace or Kiro's optional mark `*` (written `\*` too).
BOX = re.compile(r"^([ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+)\[([ xX-])\](?=[ \t*\\]|$)", re.MULTILINE)
_COMMIT_LINE = re.compile(
    r"^\s*(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)?[*_]*\s*"
    r"(?:(?:do\s+not|don't|never)\s+commit\b|git\s+commit\b|commit\b(?!\s*(?:message|hash|id)\b)"
    r"|git\s+commits?\s+created\b)",
    re.IGNORECASE,
)
_GIT_COMMIT = re.compile(r"^\s*(?:\S+=\S+\s+)*git\s+(?:-C\s+\S+\s+)?commit\b", re.MULTILINE)
_FENCE = re.compile(r"^ *(`{3,}|~{3,})")
_SEPARATOR = re.compile(r"^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
_MENTIONS_COMMIT = re.compile(r"commit", re.IGNORECASE)


def split_source(text: str) -> list[str]:
    """The lines of `text` with their line ends, split at LF, CRLF and CR only (the same
    lines `executor.plan.text.markdown.scan` numbers)."""
    return _LINE_END.findall(text)


def trimmed_end(lines: list[str], end: int, start: int) -> int:
    """`end` moved up past trailing blank lines and `---` separators (not below `start`)."""
    while end > start and (not lines[end - 1].strip() or _SEPARATOR.match(lines[end - 1])):
        end -= 1
    return end


def located(
    path: Path, lines: list[str], start: int, end: int, drop: Iterable[range] = ()
) -> dict[str, Any]:
    """The `Session` fields of lines `start..end` of `path`: where they are, their exact
    text, its hash and the agent's text (`brief_text`, without the ranges in `drop`)."""
    source = "".join(lines[start - 1 : end])
    brief = brief_text(lines, start, end, drop)
    return {
        "source_file": path,
        "line_start": start,
        "line_end": end,
        "source_hash": source_hash(source),
        "source_text": source,
        "brief_text": source if brief == source else brief,  # most sessions: one string
    }


def source_hash(text: str) -> str:
    """sha256 of `text` with every checkbox read as unticked."""
    if "[x]" in text or "[X]" in text or "[-]" in text:
        text = BOX.sub(r"\1[ ]", text)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def brief_text(lines: list[str], start: int, end: int, drop: Iterable[range] = ()) -> str:
    """Lines `start..end` (1-based, inclusive) of `lines` as the agent should read them.

    Left out: the line ranges in `drop` (e.g. a plan's commit steps), fenced blocks that
    run `git commit`, and lines that tell the reader to commit or not to commit.
    """
    dropped = {n for r in drop for n in r}
    text = "".join(lines[start - 1 : end])
    if not dropped and not _MENTIONS_COMMIT.search(text):
        return text.rstrip() + "\n"
    out: list[str] = []
    cut = False
    n = start
    while n <= end:
        line = lines[n - 1]
        if n in dropped:
            cut = True
            n += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            close = _closing(lines, n, end, fence.group(1))
            block = "".join(lines[n - 1 : close])
            if _GIT_COMMIT.search(block):
                cut = True
            else:
                out.append(block)
            n = close + 1
            continue
        if _COMMIT_LINE.match(line):
            cut = True
        else:
            out.append(line)
        n += 1
    if not cut:
        return text.rstrip() + "\n"
    return _squeeze("".join(out))


def _closing(lines: list[str], opening: int, end: int, mark: str) -> int:
    """Line of the fence closing the one opened at `opening` (or `end`)."""
    for n in range(opening + 1, end + 1):
        text = lines[n - 1].strip()
        if text.startswith(mark) and not text.strip(mark[0]):
            return n
    return end


def _squeeze(text: str) -> str:
    """No runs of more than one blank line where lines were cut out; one final newline."""
    return re.sub(r"\n[ \t]*\n(?:[ \t]*\n)+", "\n\n", text).rstrip() + "\n"
