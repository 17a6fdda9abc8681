"""Where a plan file's units of work are, by the shape of its sections: sessions written
as bold items, TDD cycles, phases and numbered sections that hold work, and `Session N`
sections that only record work done (a journal)."""

from __future__ import annotations

import re

from executor.plan.text import stepwords
from executor.plan.text import vocabulary as voc
from executor.plan.text.inline import plain
from executor.plan.text.markdown import Block, Document, Section

BOLD_SESSION = re.compile(
    r"^(?:\d{1,3}[.)]\s+)?(?:\*\*|__)session\s+#?(\d+)\s*[:\-–—.]\s*(.+?)(?:\*\*|__)\s*(.*)$",
    re.I,
)

_KEYCAP = re.compile(r"^((?:\d\uFE0F?\u20E3|\U0001F51F)+)\s*")  # 1️⃣ 2️⃣ ... 🔟
_DOTTED = re.compile(r"^(\d+(?:\.\d+)+|\d+)[.)]?\s+(.+)$")


def unit_id(text: str) -> tuple[str | None, str]:
    """(the unit's own id, its title): `Phase A: Model` -> A, `1.1 Project Setup` -> 1.1,
    `Phase 8.1: Caching` -> 8.1, `1️⃣ SessionId VO (Cycle 1)` -> 1."""
    if (found := voc.PHASE_ID_HEADING.match(text)) is not None:
        return found.group(1), found.group(2) or ""
    if (phase := voc.PHASE_HEADING.match(text)) is not None:
        return phase.group(1), voc.phase_name(phase.group(2) or "")
    for pattern in (voc.SUB_PHASE, _DOTTED):
        if (m := pattern.match(text)) is not None:
            return m.group(1), m.group(2)
    if (cap := _KEYCAP.match(text)) is not None:
        return re.sub(r"\D", "", cap.group(1).replace("\U0001f51f", "10")), text[cap.end() :]
    return None, text


def numbered(section: Section) -> bool:
    """A sub-section with an id of its own (`1.1`, `Phase 8.1`, `2.`), not a phase."""
    text = plain(section.title, ticks=False)
    return unit_id(text)[0] is not None and voc.PHASE_HEADING.match(text) is None


def is_phase(section: Section) -> bool:
    text = plain(section.title, ticks=False)
    return bool(voc.PHASE_HEADING.match(text) or voc.PHASE_ID_HEADING.match(text))


def is_sub_phase(section: Section) -> bool:
    """`### Phase 8.1: Caching`: a phase's part that holds its own work."""
    return voc.SUB_PHASE.match(plain(section.title, ticks=False)) is not None


def is_cycle(section: Section) -> bool:
    """Sub-sections naming two or more of RED, GREEN, REFACTOR: one TDD cycle."""
    roles = {stepwords.step_role(plain(c.title, ticks=False)).role for c in section.children}
    return len(roles - {None}) >= 2


def holds_work(section: Section, *, own: bool = False) -> bool:
    """Work items: checkbox items, or list items and step sections (a phase's own)."""
    blocks = section.blocks if own else section.all_blocks()
    if any(b.kind == "item" and b.checked is not None for b in blocks):
        return True
    return own and any(b.kind == "item" and not b.item for b in blocks)


def is_record(section: Section) -> bool:
    """A `Session N` section that records work done rather than planning it: it holds no
    open box and no step, and says it is done (`✅`, `Completed`)."""
    first: list[Block] = []  # its first blocks: where an entry says it is done
    for part in section.walk():
        first += [part.heading] if part is not section and part.heading is not None else []
        first += part.blocks
        if len(first) >= 4:
            break
    said = " ".join([section.title, *(b.text for b in first[:4])])
    if not voc.says_done_word(said):  # most sessions: no word of work done
        return False
    blocks = section.all_blocks()
    if any(b.kind == "item" and b.checked is False for b in blocks):
        return False
    return not any(
        stepwords.step_role(plain(b.text, ticks=False)).role for b in blocks if b.kind == "heading"
    )


def work_units(doc: Document) -> list[Section]:
    """A file with no sessions: the sections that hold its work, read by structure.
    A TDD cycle (a section whose sub-sections are RED / GREEN / REFACTOR steps) is a
    unit anywhere, and so is a sub-phase holding work items (`### Phase 8.1: ...`);
    under a phase heading (`## Phase 1`, `### Fase 2 - ...`), its
    numbered sub-sections (`### 1.1 Project Setup`, `### Phase 8.1`) are the units,
    else the phase itself when it holds work items."""
    units: list[Section] = []
    for section in doc.root.walk():
        if section.heading is None or any(section.line in range(u.line, u.end + 1)
                                          for u in units):  # fmt: skip
            continue
        if is_cycle(section) or (is_sub_phase(section) and holds_work(section)):
            units.append(section)
            continue
        if not is_phase(section):
            continue
        parts = [c for c in section.children if numbered(c) and c.all_blocks()]
        if parts:
            units.extend(parts)
        elif holds_work(section, own=True):
            units.append(section)
    return units


def bold_sessions(doc: Document) -> list[tuple[Block, int, list[Block], int]]:
    """`1. **Session 1: Title** (3h)` items (or such lines in a paragraph) and the
    blocks up to the next one, heading or phase."""
    found: list[tuple[Block, int, list[Block], int]] = []
    current: list[Block] | None = None
    for section in doc.root.walk():
        if section.heading is not None:
            current = None
        for block in section.blocks:
            starts = (
                [(n, ln) for n, ln in block.lines() if BOLD_SESSION.match(ln)]
                if block.kind in ("item", "paragraph") and not block.item
                else []
            )
            if starts:
                line, _ = starts[0]
                current = []
                found.append((block, line, current, section.end))
            elif current is not None:
                current.append(block)
    return found
