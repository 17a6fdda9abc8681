"""The words plans use: headings, bold labels, dependency and estimate phrasing.

Pure functions from a piece of text to what it means, so each variant in
docs/plan-format.md has one place (and one test) that recognises it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from executor.plan.text import words
from executor.plan.text.words import Unit

SESSION_HEADING = Unit(words.SESSION)
#: Starts like a session heading but is not one we can read ("Session: X", "Session 3a").
LOOKS_LIKE_SESSION = re.compile(r"^sessions?\s*(?:#|:|\d|[-–—]\s*\w)", re.IGNORECASE)
PHASE_HEADING = Unit(words.PHASE)
#: A phase named by a letter or a number and a letter (`Phase A: ...`, `Phase 1B: ...`).
PHASE_ID_HEADING = re.compile(
    r"^phase\s+(\d+[a-z]|[a-z])(?![\w.])\s*(?:[:\-–—.]\s*(.*))?$", re.IGNORECASE
)
#: A sub-phase holding its own work (`Phase 8.1: Caching`, `Fase 2.3 - Tela`).
SUB_PHASE = re.compile(rf"^(?:{words.PHASE})\s*(\d+\.\d+(?:\.\d+)*)\s*[:\-–—.]?\s*(.*)$", re.I)
#: A record says its work is done: `✅`, `Completed`, `完了`, `已完成` (`says_done_word`).
_DONE_WORDS = re.compile(
    r"✅|✔|\b(?:completed?|done|finished)\b|完了|完成|已完成|완료|erledigt|abgeschlossen"
    r"|termin[ée]e?|conclu[ií]do|completad[oa]"
)


def says_done_word(text: str) -> bool:
    """A word of work done in `text` (searched lowered: a case-blind pattern costs more)."""
    return _DONE_WORDS.search(text.lower()) is not None


#: A part of a session file (`## Part 2: RegisterScreen (TDD)`).
PART_HEADING = re.compile(r"^part\s+(\d+)(?![\w.])\s*[:\-–—.]\s*(.*)$", re.IGNORECASE)
PHASE_FILE = re.compile(r"^phase[_\- ]?(\d+)(?:[_\- ](.*))?\.(?:md|markdown)$", re.IGNORECASE)

_TRAILING_PAREN = re.compile(r"\s*\(([^()]*)\)\s*$")
_HOURS_RANGE = re.compile(
    r"(\d+(?:\.\d+)?)\s*(?:-|–|—|to)\s*(\d+(?:\.\d+)?)\s*(h|hrs?|hours?|min|mins|minutes?|days?)\b",
    re.IGNORECASE,
)
_HOURS = re.compile(r"(\d+(?:\.\d+)?)\s*(h|hrs?|hours?|min|mins|minutes?|days?)\b", re.IGNORECASE)
_PHASE_META = re.compile(r"session|week|hour|day|tdd|\bh\b", re.IGNORECASE)
#: What a heading says about its own state, not its title: `✅ COMPLETE`, `🚧 IN PROGRESS`,
#: a date `(2025-11-05)`, ` - Implementation Plan`.
_STATUS_SUFFIX = re.compile(
    r"\s*(?:[✅✔☑🚧⏳❌]\uFE0F?\s*)+(?:\**(?:mostly\s+)?(?:completed?|done|in progress|"
    r"not started|pending)\**)?\s*$|\s+(?:completed?|done)\s*$|\s*\(\d{4}-\d\d-\d\d\)\s*$"
    r"|\s*[-–—:]\s*implementation (?:plan|summary)\s*$",
    re.IGNORECASE,
)
_DONE_SUFFIX = re.compile(r"✅|\b(?:completed?|done)\b\**\s*$", re.IGNORECASE)

SectionKind = str
#: Ordered: the first matching pattern names the section.
_SECTIONS: list[tuple[re.Pattern[str], SectionKind]] = [
    (re.compile(r"tdd|workflow|red[\s\-–/]*green", re.I), "container"),
    (re.compile(r"context", re.I), "context"),
    (re.compile(r"coverage", re.I), "coverage"),
    (re.compile(r"test cases|tests to write|test plan", re.I), "test_cases"),
    (re.compile(rf"\bfiles?\b|^(?:{words.FILES_LABEL})$", re.I), "files"),
    (
        re.compile(
            r"exit criteria|success criteria|acceptance criteria|done when|definition of done"
            rf"|{words.EXIT_LABEL}",
            re.I,
        ),
        "exit",
    ),
    (re.compile(r"objective|goals? of|^goals?$|deliverables", re.I), "objectives"),
    (
        re.compile(r"dependenc|requires completion|prerequisite|depends on|^requires$", re.I),
        "dependencies",
    ),
    (re.compile(r"^blocks|^blocked by others|^unblocks", re.I), "ignore"),
    (re.compile(r"^status$", re.I), "status"),
    (re.compile(r"next session", re.I), "next"),
    (
        re.compile(r"^run tests?$|^run$|test command|^command$|^verify$|^run the tests$", re.I),
        "run",
    ),
    (re.compile(r"^expected", re.I), "expected"),
    (re.compile(r"estimated tests|^tests$|test count|number of tests", re.I), "tests_count"),
    (re.compile(r"estimated time|time estimate|^time$|duration|^estimate$|effort", re.I), "time"),
]


@lru_cache(maxsize=1024)  # plans repeat the same few labels in every session
def section_kind(text: str) -> SectionKind | None:
    """What a session sub-heading or bold label introduces, or None if unknown."""
    text = text.strip().rstrip(":").strip()
    for pattern, kind in _SECTIONS:
        if pattern.search(text):
            return kind
    return None


@dataclass
class TitleParts:
    title: str
    tdd: bool
    hours: float | None
    #: `Enhanced UX Features (Optional)`: the plan leaves it to the reader.
    optional: bool = False


_SAYS_TDD = re.compile(r"\bTDD\b")
_OPTIONAL = re.compile(r"\((?:optional|opcional|optionnel|facultatif|可选|可選|任意|선택)\)", re.I)


def split_title(raw: str) -> TitleParts:
    """`Ledger Models (TDD) (2-3 hours)` -> title, tdd flag, hours (range midpoint).

    Status marks (`✅ COMPLETE`) and dates are dropped; `(Django Channels + TDD)` marks
    the session TDD and stays in the title."""
    title, tdd, hours = raw.strip(), False, None
    while True:
        status = _STATUS_SUFFIX.search(title)
        if status and status.start() > 0:
            title = title[: status.start()].rstrip()
            continue
        m = _TRAILING_PAREN.search(title)
        if not m:
            break
        inner = m.group(1).strip()
        if re.fullmatch(r"tdd", inner, re.I):
            tdd = True
        elif (h := parse_hours(inner)) is not None and len(inner) < 30:
            hours = h
        else:
            break
        title = title[: m.start()].rstrip()
    tdd = tdd or _SAYS_TDD.search(title) is not None
    return TitleParts(title.rstrip(" -–—:"), tdd, hours, _OPTIONAL.search(title) is not None)


def says_done(heading: str) -> bool:
    """A heading that marks its own work finished (`Phase A: Model ✅ COMPLETE`)."""
    return bool(_DONE_SUFFIX.search(heading.strip()))


def phase_name(raw: str) -> str:
    """Phase name without `(Sessions 1-4)` / `(Week 2)` style suffixes and status marks."""
    name = raw.strip()
    while True:
        if (status := _STATUS_SUFFIX.search(name)) and status.start() > 0:
            name = name[: status.start()].rstrip()
        elif (m := _TRAILING_PAREN.search(name)) and _PHASE_META.search(m.group(1)):
            name = name[: m.start()].rstrip()
        else:
            return name


def _to_hours(value: float, unit: str) -> float:
    unit = unit.lower()
    if unit.startswith("min"):
        return value / 60
    if unit.startswith("day"):
        return value * 8
    return value


def parse_hours(text: str) -> float | None:
    """`2.5 hours` -> 2.5, `2-3 hours` -> 2.5, `90 minutes` -> 1.5, `1 day` -> 8."""
    m = _HOURS_RANGE.search(text)
    if m:
        lo, hi = float(m.group(1)), float(m.group(2))
        return _to_hours((lo + hi) / 2, m.group(3))
    m = _HOURS.search(text)
    if m:
        return _to_hours(float(m.group(1)), m.group(2))
    return None


def parse_count(text: str) -> int | None:
    """`~70 tests`, `15,000 tokens`, `15k` -> the number."""
    m = _COUNT.search(text)
    if not m:
        return None
    value = float(m.group(1).replace(",", "").replace("_", ""))
    return int(value * 1000) if m.group(2) else int(value)


_COUNT = re.compile(r"(\d[\d,_]*(?:\.\d+)?)\s*([kK])?\b")
_REF_PARTS = re.compile(r"\s*(?:,|&|\band\b|\bor\b)\s*")
_REF_RANGE = re.compile(r"(\d+)\s*(?:-|–|—|to)\s*#?(\d+)")
_NONE = re.compile(r"^\s*[(*_]*\s*(?:none|n/?a|nothing|no dependencies|no prior \w+|-+)\b", re.I)
_REF_CACHE: dict[str, re.Pattern[str]] = {}


def _refs_pattern(word: str) -> re.Pattern[str]:
    found = _REF_CACHE.get(word)
    if found is None:
        found = re.compile(
            rf"\b{word}s?\s+#?\d+(?:\s*(?:,|&|\band\b|\bor\b|-|–|—|\bto\b)\s*(?:{word}s?\s+)?#?\d+)*",
            re.IGNORECASE,
        )
        _REF_CACHE[word] = found
    return found


def parse_session_refs(text: str, word: str = "session") -> list[int] | None:
    """Numbers of the `word`s (sessions, tasks, phases) named in `text`; [] for
    `None (first session)`; None if unreadable.

    Accepts `Session 1`, `Sessions 1, 2`, `Session 1, Session 2`, `Sessions 1-3`,
    `Session 1 (models)`; prose without a number is unreadable.
    """
    refs: list[int] = []
    for m in _refs_pattern(word).finditer(text):
        body = re.sub(rf"(?i){word}s?\s+", "", m.group(0))
        for part in _REF_PARTS.split(body):
            part = part.strip().lstrip("#")
            rng = _REF_RANGE.fullmatch(part)
            if rng:
                lo, hi = int(rng.group(1)), int(rng.group(2))
                refs.extend(range(lo, hi + 1) if hi >= lo and hi - lo < 1000 else [lo, hi])
            elif part.isdigit():
                refs.append(int(part))
    if refs:
        return list(dict.fromkeys(refs))
    if _NONE.match(text) or not text.strip():
        return []
    return None


_DRIVE = re.compile(r"^[A-Za-z]:/")
_PATHISH = re.compile(r"^[\w.@~+\-/\\()\[\]]+$")
_FILE_NAME = re.compile(r"^[\w\-@+.]*[A-Za-z_][\w\-@+]*\.[A-Za-z][A-Za-z0-9]{0,5}$")


def looks_like_path(text: str) -> bool:
    """A code span naming a file (`ledger/models.py`, `src/App.vue`), not a command,
    an identifier or a URL path: no spaces, and a last part with a file extension."""
    if not _PATHISH.match(text):
        return False
    return bool(_FILE_NAME.match(text.replace("\\", "/").rsplit("/", 1)[-1]))


def path_problem(path: str) -> str | None:
    """Why `path` leaves the repository (absolute, home, `..`), or None if it stays inside."""
    p = path.replace("\\", "/")
    if p.startswith("/") or _DRIVE.match(p):
        return "is absolute"
    if p.startswith("~"):
        return "points into a home directory"
    if ".." in p.split("/"):
        return "climbs out with '..'"
    return None


# --- task plans (format C) and checklist task files (format D) ------------------------

#: `Task 3`, `Task 1.2`, `Task 3a`, `Task p01-t01` (an id of letters and numbers).
TASK_HEADING = Unit(words.TASK, r"\d+(?:\.\d+)*[a-z]?|[a-z]+\d+(?:[-.][a-z]*\d+)*")
#: Headings that group tasks into phases in a task plan (`## Phase 2`, `## Chunk 1: X`).
GROUP_HEADING = Unit(rf"{words.PHASE}|chunk|part|milestone|stage|slice|sprint")
#: A spec-kit task: `T012 [P] [US1] Contract test for ... in tests/contract/x.py`.
#: `T012 [P] ...`, `**T012** ...` (bold ids), the text running over several lines.
SPECKIT_TASK = re.compile(
    rf"^(?:\*\*|__)?(T-?\d{{2,}}[a-z]?|(?:{words.TASK})\s*\d+(?:\.\d+)*|\d+(?:\.\d+)+)(?!\w)"
    r"(?:\*\*|__)?\s*[.:：)]?\s*(?:\*\*|__)?\s*(.*)$",
    re.S | re.I,
)
#: A task id written with its unit word (`任务 1.1`, `Task 3`): the number is the id.
TASK_ID_WORD = re.compile(rf"^(?:{words.TASK})\s*(\d+(?:\.\d+)*)$", re.I)
#: `Phase 3.2: ...`, `フェーズ 1: ...`; `Phase N: Polish ...` is the template's own
#: placeholder, kept by authors: the next phase in plan order.
SPECKIT_PHASE = Unit(words.PHASE, r"\d+(?:\.\d+)*|N")
