"""Every line that looks like work is read, or named: nothing in a plan is lost silently.

After a plan is read, each of its markdown files is scanned for lines that look like
work (headings naming a unit by number, task ids, checkbox items, step lines, typos such
as `Sesion 3`): one outside every session the reader made is named by `lint`, an error
when work was not read, a warning when it was taken for something else."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path

from executor.plan.models import Diagnostic, Plan, Severity
from executor.plan.text import words
from executor.plan.text.inline import plain
from executor.plan.text.markdown import Block, Document, parse, source_lines
from executor.plan.text.source import read_source
from executor.words import plural

#: (word, what it names): the units a heading may name.
_UNITS: list[tuple[words.Unit, str]] = [
    (words.Unit(words.SESSION), "session"),
    (words.Unit(words.TASK, r"\d+(?:\.\d+)*"), "task"),
    (words.Unit(words.PHASE, r"\d+(?:\.\d+)*|(?<=\s)[A-Z]\d?"), "phase"),
    (words.Unit(words.STORY), "story"),
    (words.Unit(words.STEP, r"\d+[a-z]?"), "step"),
]
_ENGLISH = ("session", "task", "phase", "story", "step")
_WORD_NUMBER = re.compile(r"^(?:\*\*|__)?([A-Za-z]{3,10})\s*#?(\d+(?:\.\d+)*)\b")
_ANY_UNIT = re.compile(
    rf"{words.SESSION}|{words.TASK}|{words.PHASE}|{words.STORY}|{words.STEP}", re.I
)
#: A line that may open with a word and a number (worth the typo check).
_MAYBE_UNIT = re.compile(r"^(?:\*\*|__)?[A-Za-z]{3,10}\s*#?\d")
_KNOWN_WORD = re.compile(rf"(?:{words.SESSION}|{words.TASK}|{words.PHASE}|{words.STEP})", re.I)
_TASK_ID = re.compile(r"^(?:\*\*|__)?T\d{2,}[a-z]?\b")
_KIRO_NUMBER = re.compile(r"^(?:\d+\.|\d+(?:\.\d+)+\.?)(?:\*\*|__)?\s+\S")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_WORK_LINE = re.compile(
    r"^\s*(?:#{1,6}\s+\S|[-*+]\s+\[[ xX]\]\s+|(?:[-*+]\s+)?\*\*(?:step|task)\s+\d)", re.I
)


@dataclass(frozen=True)
class _Found:
    line: int
    kind: str  # what it looks like: a unit name, "task" (an id), "checkbox"
    text: str
    typo: str | None = None
    #: Its box is ticked (work claimed done), or, for a heading, nothing open below it.
    done: bool = False


def unread(plan: Plan) -> list[Diagnostic]:
    """The diagnostics for lines that look like work and were not read as work."""
    if plan.format == "taskmaster" or not plan.sessions():
        return []  # a file that gave no session already says so, once
    out: list[Diagnostic] = []
    spans = _covered(plan)
    for path in _files(plan):
        text, problems = read_source(path)
        if text is None or problems:
            continue
        covered = sorted(spans.get(path, []), key=lambda r: (r.start, r.stop))
        doc = parse(text)
        out += _named(path, doc, covered, plan)
        out += _unclosed(path, text, doc)
    return out


def _files(plan: Plan) -> list[Path]:
    found = [s.source_file for s in plan.sessions()]
    found += [p.source_file for p in plan.phases if p.source_file is not None]
    if plan.source_file is not None:
        found.append(plan.source_file)
    return [p for p in dict.fromkeys(found) if p.suffix != ".json" and p.is_file()]


def _covered(plan: Plan) -> dict[Path, list[range]]:
    """The lines each file's sessions and phase headings cover (one pass over the plan:
    per file it would be files x sessions)."""
    spans: dict[Path, list[range]] = {}
    for s in plan.sessions():
        spans.setdefault(s.source_file, []).append(range(s.line_start, s.line_end + 1))
    for p in plan.phases:
        if p.source_file is not None and p.line is not None:
            spans.setdefault(p.source_file, []).append(range(p.line, p.line + 1))
    return spans


def _inside(line: int, covered: list[range], starts: list[int]) -> bool:
    """`line` in one of `covered` (sorted by start; `starts` their starts)."""
    i = bisect_right(starts, line) - 1
    return i >= 0 and (line in covered[i] or (i > 0 and line in covered[i - 1]))


def _named(path: Path, doc: Document, covered: list[range], plan: Plan) -> list[Diagnostic]:
    found: list[_Found] = []
    starts = [r.start for r in covered]
    for block in doc.blocks:
        if block.kind not in ("heading", "item", "paragraph"):
            continue
        if _inside(block.line, covered, starts):  # a session's: only a misspelt unit is news
            if not _may_be_typo(block):
                continue
            looks = _looks_like(block)
            if looks and looks.typo and not any(block.line == r.start for r in covered):
                found.append(looks)  # a step or task the reader could not read
            continue
        looks = _looks_like(block)
        if looks is None:
            continue
        if block.kind == "heading" and _known(looks, plan, path):
            continue  # `#### Session 2` of an overview whose PHASE file holds Session 2
        if block.kind == "heading":
            end = _section_end(doc, block)
            if any(r.start in range(block.line, end + 1) for r in covered):
                continue  # it holds sessions: `# Session 8` made of `## Part N` sessions
            looks = _Found(looks.line, looks.kind, looks.text, looks.typo, _settled(doc, block))
        found.append(looks)
    out: list[Diagnostic] = []
    group: list[_Found] = []
    under = ("", "")

    def flush() -> None:
        if group:
            first, last = group[0].line, group[-1].line
            where = f" under '{under[0]}'" if under[0] else ""
            lines = f"lines {first}-{last}" if last != first else f"line {first}"
            taken = (
                "ticked, so taken for a record of work done"
                if under[1] == "task line"
                else "taken for a checklist"
            )
            out.append(
                _diag(
                    "warning",
                    path,
                    first,
                    f"{plural(len(group), under[1])}{where} ({lines}) outside every session: "
                    f"{taken}, not work to run",
                )
            )
            group.clear()

    for f in found:
        if f.kind == "checkbox" or (f.kind == "task" and f.done):
            key = (_section_of(doc, f.line), "task line" if f.kind == "task" else "checkbox item")
            if group and key != under:
                flush()
            under = key
            group.append(f)
            continue
        flush()
        out.append(_diag("warning" if f.done else "error", path, f.line, _message(f, plan)))
    flush()
    return out


def _known(looks: _Found, plan: Plan, path: Path) -> bool:
    """A session or phase heading whose unit the plan has, read from another file."""
    m = re.search(r"\d+", words.normal(looks.text))
    if looks.typo or m is None:
        return False
    number = int(m.group())
    if looks.kind == "session":
        found = plan.session(number)
        return found is not None and found.source_file != path
    return looks.kind == "phase" and any(
        p.number == number and p.source_file != path for p in plan.phases
    )


def _section_end(doc: Document, heading: Block) -> int:
    """The last line of a heading's section."""
    for block in doc.blocks:
        if (
            block.line > heading.line
            and block.kind == "heading"
            and not block.nested
            and block.level <= heading.level
        ):
            return block.line - 1
    return doc.count


def _settled(doc: Document, heading: Block) -> bool:
    """Nothing open under a heading: no unticked box, task line or step in its section
    (a description, or a record of work already done)."""
    for block in doc.blocks:
        if block.line <= heading.line:
            continue
        if block.kind == "heading" and not block.nested and block.level <= heading.level:
            return True
        looks = _looks_like(block)
        if looks is not None and looks.kind != "heading" and not looks.done:
            return False
    return True


def _section_of(doc: Document, line: int) -> str:
    title = ""
    for block in doc.blocks:
        if block.line > line:
            break
        if block.kind == "heading" and not block.nested:
            title = plain(block.text, ticks=False)
    return title


def _may_be_typo(block: Block) -> bool:
    """Cheap first look: could `typo_of` find a misspelt unit word in this block?"""
    text = block.text if block.kind == "heading" else block.first
    return not text.isascii() or _MAYBE_UNIT.match(text.lstrip("*_ ")) is not None


def _looks_like(block: Block) -> _Found | None:
    """What a block looks like, when it looks like work."""
    if block.kind == "heading":
        text = plain(block.text, ticks=False)
        if not _ANY_UNIT.search(words.normal(text)[:40]) and not _MAYBE_UNIT.match(text):
            return None
        for unit, kind in _UNITS:
            if unit.match(text) is not None:
                return _Found(block.line, kind, text)
        typo = typo_of(text)
        return _Found(block.line, typo[0], text, typo[1]) if typo else None
    if block.kind not in ("item", "paragraph"):
        return None
    raw = block.first
    typo = typo_of(raw) if _MAYBE_UNIT.match(raw) else None  # most lines are prose: cheap first
    if block.kind == "paragraph" or block.checked is None:
        if typo and typo[0] == "step":
            return _Found(block.line, "step", plain(raw, ticks=False), typo[1])
        return None
    done = bool(block.checked)
    if _TASK_ID.match(raw) or _KIRO_NUMBER.match(raw.lstrip("*_")):
        return _Found(block.line, "task", plain(raw, ticks=False), done=done)
    if typo and typo[0] == "step":
        return _Found(block.line, "step", plain(raw, ticks=False), typo[1])
    return _Found(block.line, "checkbox", raw, done=done)


def typo_of(text: str) -> tuple[str, str] | None:
    """(unit, the word written) when `text` opens with a unit word misspelt by one
    letter and a number (`Sesion 3`, `Tsak 3:`, `**Setp 2:**`)."""
    m = _WORD_NUMBER.match(words.normal(text).strip())
    if m is None:
        return None
    word = m.group(1).lower()
    if word in _ENGLISH or _KNOWN_WORD.fullmatch(word):
        return None
    for unit in _ENGLISH:
        if word in (unit + "s", unit + "es", "stories"):
            return None  # `Phases 1, 4 & 5`: the plural names several
        if len(word) >= 4 and _distance(word, unit) == 1:
            return unit, m.group(1)
    return None


def _distance(a: str, b: str) -> int:
    """Edit distance with adjacent swaps (`tsak` -> `task` is 1)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        row = [i]
        for j, cb in enumerate(b, start=1):
            cost = 0 if ca == cb else 1
            best = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                best = min(best, prev2[j - 2] + 1)
            row.append(best)
        prev2, prev = prev, row
    return prev[-1]


def _message(f: _Found, plan: Plan) -> str:
    if f.typo:
        return (
            f"'{f.text}' looks like a {f.kind} ('{f.typo}' for '{f.kind.capitalize()}'?) but "
            f"was not read as one: correct the word, or the {f.kind} is lost"
        )
    if f.kind == "task":
        return (
            f"task line '{_short(f.text)}' is outside every session: it was not read; move "
            "it into a phase (or session) of the plan"
        )
    if f.done and f.kind == "phase" and plan.format == "speckit":
        return f"phase '{_short(f.text)}' holds no task: it is no session"
    if f.done:
        return (
            f"heading '{_short(f.text)}' looks like a {f.kind} but is outside every session "
            f"and holds no open work: taken for a description ({_reader_hint(plan)})"
        )
    return (
        f"heading '{_short(f.text)}' looks like a {f.kind} but was not read as one "
        f"({_reader_hint(plan)}): its work would be lost"
    )


def _reader_hint(plan: Plan) -> str:
    return {
        "phase": "sessions here are 'Session N: Title' headings",
        "overview": "sessions here are 'Session N: Title' headings under a phase",
        "superpowers": "tasks here are '### Task N: Title' headings",
        "speckit": "phases here are '## Phase N: Title' headings holding '- [ ] T001' tasks",
        "kiro": "tasks here are '- [ ] 1.1 Title' checkbox items",
        "taskmaster": "tasks are the entries of the tasks list",
    }[plan.format]


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


def _unclosed(path: Path, text: str, doc: Document) -> list[Diagnostic]:
    """A fence never closed runs to the end of its container: name it, and the work
    lines it swallows."""
    lines = source_lines(text)
    out: list[Diagnostic] = []
    for block in doc.blocks:
        if block.kind != "code":
            continue
        opening = _FENCE.match(lines[block.line - 1])
        if opening is None:
            continue
        last = lines[block.end - 1].strip() if block.end - 1 < len(lines) else ""
        mark = opening.group(1)
        if (
            block.end > block.line
            and last.startswith(mark[0] * len(mark))
            and not last.strip(mark[0])
        ):
            continue  # closed
        hidden = [n for n in range(block.line + 1, block.end + 1)
                  if _WORK_LINE.match(lines[n - 1])]  # fmt: skip
        severity: Severity = "error" if hidden else "warning"
        what = ""
        if hidden:
            shown = _short(lines[hidden[0] - 1].strip())
            what = f"; it hides work-shaped lines from line {hidden[0]} on ('{shown}')"
        out.append(
            _diag(
                severity,
                path,
                block.line,
                f"code fence opened here is never closed: lines {block.line}-{block.end} are "
                f"read as code{what}; close it with {mark}",
            )
        )
    return out


def _diag(severity: Severity, path: Path, line: int, message: str) -> Diagnostic:
    return Diagnostic(severity=severity, path=path, line=line, message=message)
