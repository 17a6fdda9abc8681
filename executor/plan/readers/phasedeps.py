"""Which phases each phase waits for, from a spec-kit `Phase Dependencies` section
(`- **US2 (Phase 4)**: Depends on Phase 2 and US1 ...`) or a plan's table of phases with a
`Dependencies` column (`table_dependencies`). Only earlier phases count; what a bullet
says replaces the default (the phase before). docs/plan-format.md has the phrasings."""

from __future__ import annotations

import re

from executor.plan.models import Session
from executor.plan.text import words
from executor.plan.text.inline import plain, read_label
from executor.plan.text.markdown import Block

_SECTION = re.compile(r"^(?:phase\s+)?dependenc(?:y|ies)\b|^user\s+story\s+dependencies$", re.I)
_DEPENDS = re.compile(r"\bdepends?\s+on\b(.*)$|^\s*(no\s+dependencies)", re.I | re.S)
_PHASE_NUMBER = re.compile(r"\bphase\s+(\d+)(\+)?", re.I)
_STORY = re.compile(r"\b(?:US|user\s+story)\s*(\d+)\b", re.I)
#: Where what a phase depends on ends: `Depends on US1 (needs ...). Can run ...`.
_CLAUSE_END = re.compile(r"[.;(]|\s[—–-]\s")
_ALL_STORIES = re.compile(r"\ball\b[^.;]*\buser\s+stor(?:y|ies)\b|\buser\s+stories\b", re.I)


def phase_dependencies(blocks: list[Block], sessions: list[Session]) -> dict[int, list[int]]:
    """Phase number -> the phases it waits for, from the plan's dependencies section."""
    found: dict[int, list[int]] = {}
    inside = False
    for block in blocks:
        if block.kind == "heading":
            inside = bool(_SECTION.match(plain(block.text, ticks=False)))
            continue
        if not inside or block.kind != "item" or block.level:
            continue
        label = read_label(block.first)
        if label is None:
            continue
        subjects = _phases(label.label, sessions, subject=True)
        said = _DEPENDS.search(plain(label.rest, ticks=False))
        if not subjects or said is None:
            continue
        clause = _CLAUSE_END.split(said.group(1) or "", maxsplit=1)[0]
        objects = [] if said.group(2) else _phases(clause, sessions, subject=False)
        if not objects and not said.group(2):
            continue  # `Depends on Problem model`: nothing we can name
        for phase in subjects:  # several bullets about one phase add up
            found[phase] = sorted({*found.get(phase, []), *(p for p in objects if p < phase)})
    return found


def _phases(text: str, sessions: list[Session], *, subject: bool) -> list[int]:
    """The phases `text` names: `Phase 2`, `Phase 3+`, `Final Phase`, `US2`, `Setup`."""
    numbers = {s.phase for s in sessions}
    stories = [s.phase for s in sessions if _STORY.search(s.title)]
    found: list[int] = []
    for m in _PHASE_NUMBER.finditer(text):
        first = int(m.group(1))
        if m.group(2):
            found += [n for n in stories if n >= first] or [n for n in numbers if n >= first]
        elif first in numbers:
            found.append(first)
    if subject and found:
        return found  # `**US2 (Phase 4)**`: the number decides
    if re.search(r"\bfinal\s+phase\b", text, re.I) and numbers:
        found.append(max(numbers))
    for m in _STORY.finditer(text):
        found += [
            s.phase for s in sessions if re.search(rf"\bstory\s+{m.group(1)}\b", s.title, re.I)
        ]
    if _ALL_STORIES.search(text):
        found += stories
    words = plain(text, ticks=False).lower()
    for s in sessions:
        name = re.split(r"\s*[(:\-–—]", s.title, maxsplit=1)[0].strip().lower()
        if name and not _STORY.search(name) and re.search(rf"\b{re.escape(name)}\b", words):
            found.append(s.phase)
    return list(dict.fromkeys(found))


_DEPENDS_HEADER = re.compile(
    rf"dependenc|depends|abh[aä]ngigkeit|voraussetzung|{words.DEPENDS}|前置|依存関係|의존|"
    r"d[ée]pendances?|dependencias|depend[eê]ncias",
    re.I,
)
_TABLE_PHASE = re.compile(rf"(?:{words.PHASE})\s*(\d+)\b", re.I)
_EVERY = re.compile(r"^\s*(?:alle|all|todas?|toutes|全部|所有|すべて|全て|모두)\b", re.I)


def table_dependencies(rows: list[str]) -> dict[int, list[int]]:
    """Phase number -> the earlier phases it waits for, from the source lines of one
    markdown table with a phase column and a dependencies column; {} for any other."""
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]
    if len(cells) < 3:
        return {}
    column = next((i for i, c in enumerate(cells[0]) if _DEPENDS_HEADER.search(c)), None)
    if column is None:
        return {}
    found: dict[int, list[int]] = {}
    for row in cells[2:]:  # after the header and its `|---|` line
        subject = _TABLE_PHASE.search(plain(row[0], ticks=False)) if row else None
        if subject is None or column >= len(row):
            continue
        phase = int(subject.group(1))
        said = plain(row[column], ticks=False)
        if _EVERY.match(said):
            found[phase] = sorted(n for n in found if n < phase)
        else:
            found[phase] = [
                n for m in _TABLE_PHASE.finditer(said) if (n := int(m.group(1))) < phase
            ]
    return found
