"""Reader D: spec-kit checklist task files (`specs/<feature>/tasks.md`).

Each `## Phase N: ...` section is one session and one phase; its `- [ ] T012 ...` lines
are its tasks, sorted into RED (tests) and GREEN by their sub-heading. A phase without
test tasks is one GREEN step; a task asking for a check by hand is a human checkpoint.
docs/plan-format.md describes the format as read."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from executor.plan.models import (
    Diagnostic,
    Phase,
    Plan,
    PlanCommand,
    PlanFormat,
    PlanTask,
    Session,
    StepRole,
)
from executor.plan.readers import speckittasks as tasks_
from executor.plan.readers.phasedeps import phase_dependencies
from executor.plan.text import stepwords, words
from executor.plan.text import vocabulary as voc
from executor.plan.text.files import is_test_name
from executor.plan.text.inline import code_spans, plain, read_label
from executor.plan.text.markdown import Block, Section, parse
from executor.plan.text.sessiontext import located, split_source, trimmed_end
from executor.plan.text.source import file_plan

_TITLE_PREFIX = re.compile(r"^(?:implementation\s+)?tasks?\s*:\s*", re.I)
_ARROW = re.compile(r"\s*(?:→|->|⟶|=>)\s*")
_COMMAND_LABEL = re.compile(r"^(?:test command|run tests?|tests? run with|verify with)$", re.I)
_TESTS_FIRST = re.compile(r"\btests?\s+first\b|\btdd\b", re.I)
_MANUAL_WORD = re.compile(words.MANUAL, re.I)


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
        #: Tasks read so far (an id-less task is numbered by its place in the file).
        self.ordinal = 0
        self.with_ids = False

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
                        self.command = tasks_.checked(found, line, self.not_checks)
                    label = read_label(text)
                    if label is not None and label.label.lower() in (
                        "tests",
                        "testing",
                        "verification",
                    ):
                        self.manual_checks = self.manual_checks or bool(
                            _MANUAL_WORD.search(label.rest)
                        )
        candidates = [b for sec, _, _ in phases for b in sec.all_blocks() if _is_box(b)]
        #: a file whose tasks carry ids: its other boxes are checklists, not tasks
        self.with_ids = any(tasks_.task_label(b.text)[0] is not None for b in candidates)
        kept = [p for p in phases if any(self.is_task(b) for b in p[0].all_blocks())]
        written = [w for _, w, _ in kept]
        as_written = all(w.isdigit() for w in written) and all(
            int(a) < int(b) for a, b in itertools.pairwise(written)
        )
        previous = 0
        for index, (section, ident, name) in enumerate(kept, start=1):
            number = int(ident) if as_written else index
            session = self.session(number, previous, name, section)
            if ident != str(number):
                session.label = ident
            previous = number
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

    def is_task(self, block: Block) -> bool:
        """A checkbox item at the top of a phase; in a file whose tasks carry ids
        (`T001`, `任务 1.1`), only those."""
        return _is_box(block) and (
            not self.with_ids or tasks_.task_label(block.text)[0] is not None
        )

    def session(self, number: int, previous: int, name: str, section: Section) -> Session:
        tasks: list[PlanTask] = []
        checkpoints: list[str] = []
        deps: list[int] | None = None
        deps_line: int | None = None
        command: tuple[int, str] | None = None
        not_checks: list[PlanCommand] = []
        role: StepRole = "red" if _TESTS_FIRST.search(name) else "green"
        details: dict[int, list[tuple[int, str]]] = {}
        items: list[tuple[Block, StepRole]] = []
        for block in section.all_blocks():
            if block.kind == "heading" and not block.nested:
                role = _role(plain(block.text, ticks=False))
                continue
            if self.is_task(block):
                items.append((block, role))
                details[block.line] = []
                continue
            if block.top in details:
                details[block.top] += block.lines()
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
                    command = tasks_.checked(code_spans(label.rest)[0], line, not_checks) or command
        ordinal = self.ordinal
        for i, (block, task_role) in enumerate(items):
            task = tasks_.read_task(
                block,
                ordinal + i + 1,
                task_role,
                details[block.line],
                not_checks,
                manual_checks=self.manual_checks,
            )
            tasks.append(task)
        self.ordinal += len(items)
        _test_first(tasks)
        for task in tasks:
            if task.manual:
                checkpoints.append(f"{task.label}: {plain(task.text, ticks=False)}")
        end = trimmed_end(self.lines, section.end, section.line)
        files = tasks_.file_specs(tasks)
        steps = {
            r: tasks_.make_step(r, [t for t in tasks if t.role == r], section.line)
            for r in ("red", "green", "refactor")
        }
        tdd = steps["red"] is not None
        if not tdd:
            steps = {"green": tasks_.make_step("green", tasks, section.line, always=True)}
        return Session(
            number=number,
            title=name,
            phase=number,
            tdd=tdd,
            red=steps.get("red"),
            green=steps.get("green"),
            refactor=steps.get("refactor"),
            files=files,
            dependencies=deps if deps is not None else ([previous] if previous else []),
            dependencies_line=deps_line,
            default_test_command=(command or self.command or (None, None))[1],
            default_command_line=(command or self.command or (None, None))[0],
            not_checks=[*(self.not_checks if number == 1 else []), *not_checks],
            checkpoints=checkpoints,
            **located(self.path, self.lines, section.line, end),
            box_lines=[t.line for t in tasks],
            claimed_done=bool(tasks) and all(t.done for t in tasks if not tasks_.commits(t.text)),
            tasks=tasks,
        )


def _role(heading: str) -> StepRole:
    found = stepwords.step_role(heading).role
    if found is not None:
        return found
    return "red" if stepwords.is_test_section(heading) else "green"


def _label_command(text: str) -> str | None:
    label = read_label(text)
    if label is not None and _COMMAND_LABEL.match(label.label):
        spans = code_spans(label.rest)
        return spans[0] if spans else None
    return None


def _is_box(block: Block) -> bool:
    return block.kind == "item" and not block.item and block.checked is not None


def _test_first(tasks: list[PlanTask]) -> None:
    """Which tasks are RED: those under a RED or tests heading, and a task that writes
    tests before the implementation it tests: it writes test files that an implementation
    task of the phase says it needs (`1.4: 依赖任务 1.3`), or, when neither says it needs
    the other, it comes before the phase's first implementation task. A test that needs
    the implementation (`T-104`, depends on `T-103`) is written after it: GREEN."""
    writes = {t.label for t in tasks if tasks_.writes_tests(t.text, t.files)}
    work = [t for t in tasks if t.role == "green" and t.label not in writes]
    first_work = next((i for i, t in enumerate(tasks) if t in work), len(tasks))
    for i, task in enumerate(tasks):
        if task.role != "green" or task.label not in writes:
            continue
        named = bool(task.files) and all(is_test_name(f) for f in task.files)
        needed = named and any(task.label in w.depends_on for w in work)
        needs = any(w.label in task.depends_on for w in work)
        if needed or (not needs and i < first_work):
            task.role = "red"
