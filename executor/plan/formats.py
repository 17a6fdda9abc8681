"""Which reader a plan needs: format names, `--format` values and detection.

Detection reads the text with a few line patterns (no parse), so choosing a reader
costs next to nothing:
- F `taskmaster`: a `.json` file (Task Master's `tasks.json`);
- D `speckit`: checklist task lines `- [ ] T001 ...` (more of them than other units);
- E `kiro`: numbered checklist tasks `- [ ] 1. Title` / `- [ ]* 2.1 Title`;
- C `superpowers`: `## Task N` / `### Task 1.2` headings (more than session headings);
- A `phase` / B `overview`: `Session N` headings (or `Phase A:` sections of work); B
  when the file is PROJECT_PLAN.md or no session has a TDD step heading.
A folder is A when it holds PHASE files, B with only PROJECT_PLAN.md, D or E with a
tasks.md, F with a tasks.json, else the one markdown file in it that reads as a plan
(several: UserError listing them).
"""

from __future__ import annotations

import re
from pathlib import Path

from executor.errors import UserError
from executor.plan.models import PlanFormat
from executor.plan.text import words
from executor.plan.text.vocabulary import PHASE_FILE

#: format -> (letter, names accepted by --format)
FORMATS: dict[PlanFormat, tuple[str, tuple[str, ...]]] = {
    "phase": ("A", ("a", "phase", "phases")),
    "overview": ("B", ("b", "overview", "project-plan", "project_plan")),
    "superpowers": ("C", ("c", "superpowers", "tasks-plan")),
    "speckit": ("D", ("d", "speckit", "spec-kit")),
    "kiro": ("E", ("e", "kiro")),
    "taskmaster": ("F", ("f", "taskmaster", "task-master")),
}
#: What each format is, in the words a person would use (for "this is a ..." messages).
KINDS: dict[PlanFormat, str] = {
    "phase": "a planner PHASE file",
    "overview": "a PROJECT_PLAN.md overview",
    "superpowers": "a superpowers task plan",
    "speckit": "a spec-kit tasks.md",
    "kiro": "a Kiro tasks.md",
    "taskmaster": "a Task Master tasks.json",
}
OVERVIEW_NAMES = ("PROJECT_PLAN.md", "project_plan.md", "Project_Plan.md")
SPECKIT_NAMES = ("tasks.md", "TASKS.md")
TASKMASTER_NAME = "tasks.json"


def is_plan_file_name(name: str) -> bool:
    """A PHASE file, an overview or a spec-kit task list, by its name alone."""
    return (
        bool(PHASE_FILE.match(name))
        or name in OVERVIEW_NAMES
        or name in SPECKIT_NAMES
        or name == TASKMASTER_NAME
    )


def plan_target(path: Path) -> Path:
    """What a plan named `path` is read from (`detect`'s second half), resolved; `path`
    itself when that cannot be told (it is gone, or its folder holds several plans)."""
    try:
        return detect(path)[1].resolve() if path.exists() else path.resolve()
    except UserError:
        return path.resolve()


_SESSION = re.compile(rf"^ {{0,3}}#{{1,6}}[ \t]+(?:{words.SESSION})[ \t]*#?\d", re.I | re.M)
_TASK = re.compile(
    rf"^ {{0,3}}#{{2,4}}[ \t]+(?:{words.TASK})[ \t]*#?(?:\d|[a-z]+\d+(?:[-.][a-z]*\d+)*[ \t:])",
    re.I | re.M,
)
#: A spec-kit task: a box with an id (`T001`, `**T-101**`, `**任务 1.1**:`).
_SPECKIT_TASK = re.compile(
    rf"^[ \t]*[-*][ \t]+\[[ xX]\][ \t]+(?:\*\*|__)?(?:T-?\d{{2,}}\b|(?:{words.TASK})[ \t]*\d)",
    re.M | re.I,
)
_BOX = re.compile(r"^[-*][ \t]+\[[ xX]\][ \t]+\S", re.M)
_PHASE_HEAD = re.compile(rf"^ {{0,3}}#{{1,6}}[ \t]+(?:{words.PHASE})[ \t]*\d", re.I | re.M)
_KIRO_TASK = re.compile(
    r"^[ \t]*[-*][ \t]+\[[ xX-]\]\*?[ \t]+(?:\d+\.|\d+(?:\.\d+)+)[ \t]+\S", re.M
)
#: A Task Master file whose tag maps straight to its list (`{"master": [{"id": 1 ...`).
_TAG_LIST = re.compile(r'^\s*\{\s*"[^"]+"\s*:\s*\[\s*\{', re.S)
_PHASE_UNIT = re.compile(r"^ {0,3}#{1,6}[ \t]+phase[ \t]+[a-z]\b", re.I | re.M)
_STEP_HEADING = re.compile(
    r"^ {0,3}#{2,6}[ \t]+.*(?:\b(?:red|green|refactor)\b|tdd workflow)", re.I | re.M
)


def format_named(name: str) -> PlanFormat:
    """The format for a `--format` value (`a`..`f` or a name); UserError lists them."""
    wanted = name.strip().lower()
    for fmt, (_, names) in FORMATS.items():
        if wanted in names:
            return fmt
    choices = ", ".join(f"{letter} ({fmt})" for fmt, (letter, _) in FORMATS.items())
    raise UserError(f"unknown plan format {name!r}; choose one of {choices}")


def describe(fmt: PlanFormat) -> str:
    """`C (superpowers)`."""
    return f"{FORMATS[fmt][0]} ({fmt})"


def detect_text(text: str, name: str = "") -> PlanFormat | None:
    """The format `text` is written in, or None when it reads as no plan at all."""
    if name.endswith(".json"):
        return "taskmaster" if '"tasks"' in text or _TAG_LIST.search(text) else None
    text = words.normal(text)  # full-width `：`, `１` as ASCII
    if PHASE_FILE.match(name):
        return "phase"  # the planner's own file, whatever its tasks look like
    sessions = len(_SESSION.findall(text))
    tasks = len(_TASK.findall(text))
    checklist = len(_SPECKIT_TASK.findall(text))
    if checklist and checklist >= max(sessions, tasks):
        return "speckit"
    kiro = len(_KIRO_TASK.findall(text))
    if kiro >= 2 and kiro > max(sessions, tasks):
        return "kiro"
    if name.lower() == "tasks.md" and not sessions and not tasks and _boxed_phases(text):
        return "speckit"  # a checkbox list under phase headings, in spec-kit's file
    if tasks > sessions:
        return "superpowers"
    if sessions:
        if PHASE_FILE.match(name):
            return "phase"
        if name in OVERVIEW_NAMES or not _STEP_HEADING.search(text):
            return "overview"
        return "phase"
    if len(_PHASE_UNIT.findall(text)) >= 2:
        return "overview" if name in OVERVIEW_NAMES else "phase"
    return None


#: (format, a line of its shape, what breaks a file of that shape when it gives no session)
_SHAPES: list[tuple[PlanFormat, re.Pattern[str], str]] = [
    ("speckit", _SPECKIT_TASK, "no '## Phase N: Title' heading holds its task lines"),
    ("kiro", _KIRO_TASK, "its numbered tasks are not '- [ ] 1. Title' items of one list"),
    ("superpowers", re.compile(rf"^ {{0,3}}#{{1,6}}[ \t]+(?:{words.TASK})\b", re.I | re.M),
     "its task headings carry no number or id ('### Task 1: Title', '### Task p01-t01:')"),
    ("phase", re.compile(rf"^ {{0,3}}#{{1,6}}[ \t]+(?:{words.SESSION}|{words.PHASE})\b",
                         re.I | re.M),
     "its headings number no session ('## Session 1: Title') and no phase holds work"),
]  # fmt: skip


def resemblance(text: str) -> tuple[PlanFormat, int, str, str] | None:
    """For a file that gave no session: the format it looks like by its first line of that
    shape, that line (number, text), and what breaks it. None: it looks like no plan."""
    normal = words.normal(text)
    found = [
        (m.start(), fmt, why) for fmt, pattern, why in _SHAPES if (m := pattern.search(normal))
    ]
    if not found:
        return None
    start, fmt, why = min(found)
    line = normal.count("\n", 0, start) + 1
    return fmt, line, text.split("\n")[line - 1].strip(), why


def _boxed_phases(text: str) -> bool:
    """Phase headings with top-level checkbox items after them."""
    first = _PHASE_HEAD.search(text)
    return first is not None and _BOX.search(text, first.end()) is not None


def detect(path: Path) -> tuple[PlanFormat, Path]:
    """The format of the plan at `path` and the path its reader reads (a folder of PHASE
    files / an overview, or the one plan file)."""
    if not path.is_dir():
        if path.suffix == ".json":  # the one JSON plan we read: its reader says what is amiss
            return "taskmaster", path
        return _detect_file(path) or ("overview" if path.name in OVERVIEW_NAMES else "phase"), path
    names = {p.name for p in path.iterdir() if p.is_file()}
    if any(PHASE_FILE.match(n) for n in names):
        return "phase", path
    if any(n in names for n in OVERVIEW_NAMES):
        return "overview", path
    for n in SPECKIT_NAMES:
        if n in names:
            return _detect_file(path / n) or "speckit", path / n
    if TASKMASTER_NAME in names:
        return "taskmaster", path / TASKMASTER_NAME
    if (path / ".taskmaster" / "tasks" / TASKMASTER_NAME).is_file():  # a project folder
        return "taskmaster", path / ".taskmaster" / "tasks" / TASKMASTER_NAME
    kiro = sorted(path.glob(".kiro/specs/*/tasks.md"))
    if len(kiro) == 1:
        return "kiro", kiro[0]
    plans = [(fmt, p) for p in sorted(path.glob("*.md")) if (fmt := _detect_file(p))]
    if len(plans) == 1:
        return plans[0]
    if plans:
        listed = "\n".join(f"  {p}: format {describe(fmt)}" for fmt, p in plans)
        raise UserError(
            f"{len(plans)} plans in {path}; name the one you mean (e.g. --plan PATH):\n{listed}"
        )
    return "phase", path  # the phase reader reports what is missing


def others_beside(folder: Path, fmt: PlanFormat) -> list[Path]:
    """Plans of another format in a folder read as PHASE files or an overview (a
    tasks.md, a superpowers plan): the folder's reader does not read them."""
    if fmt not in ("phase", "overview"):
        return []
    return [
        p
        for p in sorted(folder.glob("*.md"))
        if not PHASE_FILE.match(p.name)
        and p.name not in OVERVIEW_NAMES
        and _detect_file(p) in ("superpowers", "speckit", "kiro")
    ]


def plan_file(folder: Path, fmt: PlanFormat) -> Path:
    """For a forced format C to F: the file in `folder` to read (the folder if none)."""
    if fmt in ("speckit", "kiro"):
        return next((folder / n for n in SPECKIT_NAMES if (folder / n).is_file()), folder)
    if fmt == "taskmaster":
        return folder / TASKMASTER_NAME if (folder / TASKMASTER_NAME).is_file() else folder
    found = [p for p in sorted(folder.glob("*.md")) if _detect_file(p) == fmt]
    return found[0] if len(found) == 1 else folder


def _detect_file(path: Path) -> PlanFormat | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return detect_text(text, path.name)
