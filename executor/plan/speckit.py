"""Reader D: spec-kit checklist task files (`specs/<feature>/tasks.md`).

Each `## Phase N: ...` section (`Phase 3.2` too; `Phase 6: Polish` like any other) is one
session and one phase, numbered in plan order; its `- [ ] T012 [P] [US1] ...` lines are
its tasks (`Session.tasks`, markers kept in the text). A sub-heading says which step its
tasks belong to: `### RED: ...` / `### Red — ...`, `### GREEN ...`, `### REFACTOR ...`, or
one about tests (`### Tests for User Story 1`) for RED; the rest are GREEN. A phase
without test tasks (Setup, Foundational, Polish) is not TDD: one GREEN step holding its
tasks, verified by the test command (the whole suite when none is named).

A task's own command is what it tells the reader to run ("Run `npm run typecheck`",
"run tests with `uv run pytest x -v`"; installing is not verification); a step runs its
tasks' commands in order. A task that asks a person to check by hand ("needs manual
verification in the browser") is a human checkpoint of its phase, like the
`**Checkpoint**:` lines. Files: the paths a task names (with a folder; a bare file name
only when the task names no path, as in "Add X to `package.json`"). `**Dependencies**:
Phase 2 ...` names the phases a phase needs (else: the previous one), and an
execution-order line after the phases (`Phase 1 → Phase 2`) adds to them.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from executor.plan import vocabulary as voc
from executor.plan import words
from executor.plan.checks import judge
from executor.plan.commands import join, text_command
from executor.plan.files import as_file, is_source_name, prose_paths
from executor.plan.inline import code_spans, plain, read_label
from executor.plan.markdown import Block, Section, parse
from executor.plan.models import (
    Diagnostic,
    FileSpec,
    Phase,
    Plan,
    PlanCommand,
    PlanFormat,
    PlanTask,
    Session,
    Step,
    StepRole,
)
from executor.plan.phasedeps import phase_dependencies
from executor.plan.sessiontext import located, split_source, trimmed_end
from executor.plan.source import file_plan

_TITLE_PREFIX = re.compile(r"^(?:implementation\s+)?tasks?\s*:\s*", re.I)
_ARROW = re.compile(r"\s*(?:→|->|⟶|=>)\s*")
_COMMAND_LABEL = re.compile(r"^(?:test command|run tests?|tests? run with|verify with)$", re.I)
_MANUAL = re.compile(r"\bmanual(?:ly)?\s+(?:verification|test|check)|\bby hand\b", re.I)
_DEPENDS = re.compile(r"\(depends on ([^)]*)\)|\bdepends(?:\s+on)?\s*:\s*([^\n]*)", re.I)
_TESTS_FIRST = re.compile(r"\btests?\s+first\b|\btdd\b", re.I)
_MARKERS = re.compile(r"^(?:\[[^\]]*\]\s*)+")
#: A task that writes tests (not test fixtures, helpers or configuration).
_WRITES_TESTS = re.compile(
    r"^(?:write|add|create)\b[^.]*\b(?:tests?|failing)\b(?!\s+(?:fixtures?|helpers?|utils?"
    r"|utilities|data|scaffold\w*|infrastructure|setup|config\w*|harness|doubles?))",
    re.I,
)
_MANUAL_WORD = re.compile(words.MANUAL, re.I)
#: A check a person walks through (`following them end-to-end`).
_WALK = re.compile(r"\bend-to-end\b|\bfollowing\s+them\b|\bwalk\s+through\b", re.I)
_META = re.compile(r"^\s*(?:depends(?:\s+on)?|dependencies|deps|files?|blocked\s+by)\s*:", re.I)
_TASK_REF = re.compile(r"\bT(\d{2,})([a-z]?)(?:\s*[-–—]\s*T(\d{2,}))?")


class SpeckitReader:
    format: PlanFormat = "speckit"

    def read(self, path: Path) -> Plan:
        plan, text = file_plan(path, path.parent.name, self.format)
        if text is not None:
            _TaskFile(path, text, plan).run()
        return plan


class _TaskFile:
    def __init__(self, path: Path, text: str, plan: Plan) -> None:
        self.path = path
        self.plan = plan
        self.lines = split_source(text)
        self.doc = parse(text)
        #: (line, check) of a test command stated before the first phase.
        self.command: tuple[int, str] | None = None
        #: Commands named before the first phase that are not checks.
        self.not_checks: list[PlanCommand] = []
        #: The file says its verification is manual (`**Tests**: ... Verification is manual`).
        self.manual_checks = False

    def run(self) -> None:
        phases: list[tuple[Section, str, str]] = []
        for section in self.doc.root.walk():
            if section.heading is None:
                continue
            text = plain(section.title, ticks=False)
            if section.level == 1 and not phases:
                self.plan.name = _TITLE_PREFIX.sub("", text)
            if m := voc.SPECKIT_PHASE.match(text):
                phases.append((section, m.group(1), (m.group(2) or text).strip()))
        first = phases[0][0].line if phases else self.doc.count + 1
        for block in self.doc.blocks:
            if block.line < first and block.kind in ("paragraph", "item"):
                for line, text in block.lines():
                    found = _label_command(text)
                    if found is not None and self.command is None:
                        self.command = _checked(found, line, self.not_checks)
                    label = read_label(text)
                    if label is not None and label.label.lower() in (
                        "tests",
                        "testing",
                        "verification",
                    ):
                        self.manual_checks = self.manual_checks or bool(
                            _MANUAL_WORD.search(label.rest)
                        )
        labels = [n for _, n, _ in phases]
        for number, (section, written, name) in enumerate(phases, start=1):
            session = self.session(number, name, section)
            if written != str(number) and any(n != str(i) for i, n in enumerate(labels, 1)):
                session.label = written
            self.plan.phases.append(
                Phase(
                    number=number,
                    name=name,
                    label=session.label,
                    source_file=self.path,
                    line=section.line,
                    sessions=[session],
                )
            )
        after = phases[-1][0].end if phases else self.doc.count
        stated = phase_dependencies(self.doc.blocks, self.plan.sessions())
        for session in self.plan.sessions():  # a `Phase Dependencies` section says more
            if session.phase in stated and session.dependencies_line is None:
                session.dependencies = stated[session.phase]
        self.apply_order([b for b in self.doc.blocks if b.line > after])

    def apply_order(self, blocks: list[Block]) -> None:
        """A "Critical Path" / execution-order line after the phases (`Phase 1 → Phase 2`,
        `Phases 3, 4, 5 → Phase 6`) also orders the phases: a phase waits for what the
        plan says runs before it, even where its own **Dependencies** line says none
        (then with a warning: the plan disagrees with itself)."""
        sessions = {s.number: s for s in self.plan.sessions()}
        for block in blocks:
            if block.kind not in ("paragraph", "item"):
                continue
            text = plain(block.first, ticks=False)
            parts = [voc.parse_session_refs(p, word="phase") for p in _ARROW.split(text)]
            for before, after in itertools.pairwise(parts):
                for later in after or []:
                    session = sessions.get(later)
                    if session is None:
                        continue
                    missing = [
                        n
                        for n in before or []
                        if n < later and n in sessions and n not in session.dependencies
                    ]
                    if not missing:
                        continue
                    session.dependencies = sorted({*session.dependencies, *missing})
                    if session.dependencies_line is None:
                        continue  # the default order (after the phase before): no conflict
                    self.plan.diagnostics.append(
                        Diagnostic(
                            severity="warning",
                            path=self.path,
                            line=block.line,
                            message=f"Phase {later} waits for phase "
                            + ", ".join(map(str, missing))
                            + ": this line orders them so, though the phase's own dependencies "
                            f"(line {session.dependencies_line}) leave it out",
                        )
                    )

    def session(self, number: int, name: str, section: Section) -> Session:
        tasks: list[PlanTask] = []
        checkpoints: list[str] = []
        deps: list[int] | None = None
        deps_line: int | None = None
        command: tuple[int, str] | None = None
        not_checks: list[PlanCommand] = []
        role: StepRole = "red" if _TESTS_FIRST.search(name) else "green"
        details: dict[int, list[str]] = {}
        items: list[tuple[Block, StepRole]] = []
        for block in section.all_blocks():
            if block.kind == "heading" and not block.nested:
                role = _role(plain(block.text, ticks=False))
                continue
            if block.kind == "item" and not block.item and voc.SPECKIT_TASK.match(block.text):
                items.append((block, role))
                details[block.line] = []
                continue
            if block.top in details:
                details[block.top].append(block.text)
                continue
            if block.kind != "paragraph" or block.item:
                continue
            for line, text in block.lines():
                label = read_label(text)
                if label is None:
                    continue
                kind = label.label.lower()
                if kind.startswith("checkpoint"):
                    checkpoints.append(plain(label.rest))
                elif kind.startswith("depend"):
                    refs = voc.parse_session_refs(plain(label.rest, ticks=False), word="phase")
                    deps, deps_line = [r for r in (refs or []) if 0 < r < number], line
                elif _COMMAND_LABEL.match(label.label) and code_spans(label.rest):
                    command = _checked(code_spans(label.rest)[0], line, not_checks) or command
        first_work = next(
            (i for i, (b, r) in enumerate(items) if r == "green" and not _writes_tests(b.text)),
            len(items),
        )
        for i, (block, task_role) in enumerate(items):
            if task_role == "green" and i < first_work:
                task_role = "red"  # "Write unit tests for X" before X is written
            task = _task(
                block, task_role, details[block.line], not_checks, manual_checks=self.manual_checks
            )
            tasks.append(task)
            if task.manual:
                checkpoints.append(f"{task.label}: {plain(task.text, ticks=False)}")
        end = trimmed_end(self.lines, section.end, section.line)
        files = _files(tasks)
        steps = {
            r: _step(r, [t for t in tasks if t.role == r], section.line)
            for r in ("red", "green", "refactor")
        }
        tdd = steps["red"] is not None
        if not tdd:
            steps = {"green": _step("green", tasks, section.line, always=True)}
        return Session(
            number=number,
            title=name,
            phase=number,
            tdd=tdd,
            red=steps.get("red"),
            green=steps.get("green"),
            refactor=steps.get("refactor"),
            files=files,
            dependencies=deps if deps is not None else ([number - 1] if number > 1 else []),
            dependencies_line=deps_line,
            default_test_command=(command or self.command or (None, None))[1],
            default_command_line=(command or self.command or (None, None))[0],
            not_checks=[*(self.not_checks if number == 1 else []), *not_checks],
            checkpoints=checkpoints,
            **located(self.path, self.lines, section.line, end),
            box_lines=[t.line for t in tasks],
            claimed_done=bool(tasks) and all(t.done for t in tasks if not _commits(t.text)),
            tasks=tasks,
        )


def _role(heading: str) -> StepRole:
    found = voc.step_role(heading).role
    if found is not None:
        return found
    return "red" if voc.is_test_section(heading) else "green"


def _label_command(text: str) -> str | None:
    label = read_label(text)
    if label is not None and _COMMAND_LABEL.match(label.label):
        spans = code_spans(label.rest)
        return spans[0] if spans else None
    return None


def _words(text: str) -> str:
    """A task's words: no id, markers or code spans (`T001 [P] Create `specs/x/`` ->
    `Create`)."""
    return re.sub(r"`[^`]*`", "", _MARKERS.sub("", voc.SPECKIT_TASK.sub(r"\2", text))).strip()


def _commits(text: str) -> bool:
    """A task that only commits (`Commit all changes`): the executor's own, never left to do."""
    return voc.step_meaning(_words(text)) == "commit"


def _writes_tests(text: str) -> bool:
    """A task that writes tests (`[P] [US1] Write unit tests for X in ...`)."""
    return bool(_WRITES_TESTS.match(_words(text)))


def _checked(command: str, line: int, refused: list[PlanCommand]) -> tuple[int, str] | None:
    """(line, command) when it is a check; else None, and it is kept with why."""
    why = judge(command)
    if why is None:
        return line, command
    if command not in {c.command for c in refused}:
        refused.append(PlanCommand(command=command, line=line, why_not=why))
    return None


def _task(
    block: Block,
    role: StepRole,
    details: list[str],
    refused: list[PlanCommand],
    *,
    manual_checks: bool = False,
) -> PlanTask:
    """One task line; `manual_checks`: the file says its verification is manual."""
    m = voc.SPECKIT_TASK.match(block.text)
    assert m is not None
    lines = block.text.split("\n")
    meta = next((i for i, ln in enumerate(lines) if i and _META.match(ln)), len(lines))
    text = " ".join(lines[:meta])  # `Depends: T001` / `Files: ...` lines are not the title
    named = text_command(text)
    command = _checked(named, block.line, refused) if named else None
    checking = voc.step_meaning(_words(text)).startswith("verify")
    walked = (named is not None and command is None) or _WALK.search(text) is not None
    return PlanTask(
        label=m.group(1),
        text=text[m.start(2) :].strip(),
        line=block.line,
        done=bool(block.checked),
        role=role,
        files=task_paths("\n".join([block.text.replace("\n", " "), *details]), checking=checking),
        command=command[1] if command else None,
        manual=bool(_MANUAL.search(text)) or (manual_checks and checking and walked),
        depends_on=_depends_on(block.text),
    )


def task_paths(text: str, *, checking: bool = False) -> list[str]:
    """The files a task names. In code spans: the paths with a folder (relative, or
    absolute under the author's checkout), else the first file name (`Add X to
    `package.json``: other names in it are files the task talks about). With no code
    span, the paths written plainly (`Docs skeleton (docs/README.md, SECURITY.md)`),
    unless the task is a check (`Execute quickstart.md §1`: it reads them)."""
    spans = prose_paths(text)
    written = [] if checking else [p for p in prose_paths(text, bare=True) if p not in spans]
    if spans:
        found = [p for p in spans if "/" in p.rstrip("/") or p.endswith("/")]
        found = [p for p in found if not p.startswith("/") or "/Users/" in p or "/home/" in p]
        return found or [p for p in spans if is_source_name(p) and "/" not in p][:1]
    return [p for p in written if not p.startswith("/")]


def _depends_on(text: str) -> list[str]:
    refs: list[str] = []
    for group in (a or b for a, b in _DEPENDS.findall(text)):
        for m in _TASK_REF.finditer(group):
            width = len(m.group(1))
            if m.group(3):
                refs += [f"T{n:0{width}d}" for n in range(int(m.group(1)), int(m.group(3)) + 1)]
            else:
                refs.append(f"T{m.group(1)}{m.group(2)}")
    return refs


def _step(role: StepRole, tasks: list[PlanTask], line: int, *, always: bool = False) -> Step | None:
    if not tasks and not always:
        return None
    files = list(dict.fromkeys(f for t in tasks for f in t.files))
    return Step(
        role=role,
        heading={"red": "Write the tests", "green": "Implement the tasks"}.get(role, "Refactor"),
        tasks=[plain(f"{t.label} {t.text}") for t in tasks],
        files=files,
        test_command=join([t.command for t in tasks if t.command]),
        command_line=next((t.line for t in tasks if t.command), None),
        line=tasks[0].line if tasks else line,
    )


def _files(tasks: list[PlanTask]) -> list[FileSpec]:
    seen: dict[str, FileSpec] = {}
    for task in tasks:
        note = task.label
        for path in task.files:
            if as_file(path) is not None:
                seen.setdefault(path, FileSpec(path=path, note=note, line=task.line))
    return list(seen.values())
