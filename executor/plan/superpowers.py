"""Reader C: task plans with explicit steps (superpowers-style `docs/plans/*.md`).

Each `## Task N` / `### Task N` heading is one session, numbered in plan order; tasks
under `## Phase N` (or `## Chunk N`) headings form the phases, else there is one phase.
A task's `**Files:**` list (Create / Modify / Test / Delete; Read is not a change) gives
its files, `**Depends on:** Task N` its dependencies (else: the previous task).

Steps (`- [ ] **Step k: ...**`) are mapped by meaning (`vocabulary.step_meaning`):
writing the failing test and verifying it fails are RED (the verify step's `Run:` is
RED's command, its `Expected:` the expectation); implementation and verify-passes steps
are GREEN; a refactor step is REFACTOR (none: `refactor` is None). Steps before the first
RED step of a TDD task are preparation and go with RED. A task with no failing-test step
is not TDD: all its steps are one GREEN step. A `Commit` step is the executor's job: it
is left out of the steps and of `brief_text` (its box still counts for `claimed_done`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from executor.plan import vocabulary as voc
from executor.plan.files import task_file_spec
from executor.plan.markdown import Block, code_spans, plain, read_label, scan
from executor.plan.models import (
    Diagnostic,
    FileSpec,
    Phase,
    Plan,
    PlanFormat,
    Session,
    Step,
    StepRole,
)
from executor.plan.sessiontext import brief_text, source_hash, split_source
from executor.plan.source import read_source

_RUN = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?:run|command|test command)(?:\*\*|__)?\s*:"
    r"(?:\*\*|__)?\s*(.*)$",
    re.I,
)
_EXPECTED = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?expected(?:\s+(?:output|result))?(?:\*\*|__)?\s*:"
    r"(?:\*\*|__)?\s*(.*)$",
    re.I,
)
_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?")
_SEPARATOR = re.compile(r"^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
_DEPENDS = re.compile(r"^(?:depends on|dependencies|requires|prerequisites?|blocked by)$", re.I)
_TEST_KINDS = {"test", "tests"}


@dataclass
class _Step:
    number: str
    title: str
    line: int
    checked: bool | None
    end: int = 0
    command: str | None = None
    expected: str | None = None

    @property
    def meaning(self) -> voc.StepMeaning:
        return voc.step_meaning(self.title)


@dataclass
class _Task:
    number: int
    title: str
    line: int
    level: int
    phase: int
    end: int = 0
    blocks: list[Block] = field(default_factory=list)


class SuperpowersReader:
    format: PlanFormat = "superpowers"

    def read(self, path: Path) -> Plan:
        text, problems = read_source(path)
        plan = Plan(name=path.stem, folder=path.parent, source_file=path, format=self.format)
        plan.diagnostics.extend(problems)
        if text is not None:
            _TaskPlan(path, text, plan).run()
        return plan


class _TaskPlan:
    def __init__(self, path: Path, text: str, plan: Plan) -> None:
        self.path = path
        self.plan = plan
        self.lines = split_source(text)
        self.blocks = scan(text)
        self.stripped = [ln.rstrip("\r\n") for ln in self.lines]

    def warn(self, line: int, message: str) -> None:
        self.plan.diagnostics.append(
            Diagnostic(severity="warning", path=self.path, line=line, message=message)
        )

    def run(self) -> None:
        tasks = self.tasks()
        numbers = {t.number: i for i, t in enumerate(tasks, start=1)}
        for index, task in enumerate(tasks, start=1):
            session = self.session(task, index, numbers)
            phase = self.plan.phase(task.phase)
            assert phase is not None
            phase.sessions.append(session)

    # --- structure -----------------------------------------------------------------

    def tasks(self) -> list[_Task]:
        headings = [(b, plain(b.text, ticks=False)) for b in self.blocks if b.kind == "heading"]
        task_levels = [b.level for b, text in headings if voc.TASK_HEADING.match(text)]
        task_level = min(task_levels, default=7)
        tasks: list[_Task] = []
        current: _Task | None = None
        phase = 0
        for block in self.blocks:
            if block.kind == "heading":
                text = plain(block.text, ticks=False)
                if block.level == 1 and self.plan.name == self.path.stem:
                    self.plan.name = re.sub(r"\s+implementation plan$", "", text, flags=re.I)
                task = voc.TASK_HEADING.match(text)
                group = voc.GROUP_HEADING.match(text)
                ends = task or (group and block.level < task_level)
                if current is not None and (ends or block.level <= current.level):
                    current.end = self.trimmed_end(block.line - 1, current.line)
                    current = None
                if group and block.level < task_level:
                    phase += 1
                    name = (group.group(2) or "").strip() or text
                    self.plan.phases.append(
                        Phase(number=phase, name=name, source_file=self.path, line=block.line)
                    )
                if task:
                    if phase == 0:
                        phase = 1
                        self.plan.phases.append(
                            Phase(number=1, name=self.plan.name, source_file=self.path)
                        )
                    current = _Task(
                        int(task.group(1)), task.group(2).strip(), block.line, block.level, phase
                    )
                    tasks.append(current)
                    continue
            if current is not None:
                current.blocks.append(block)
        if current is not None:
            current.end = self.trimmed_end(len(self.lines), current.line)
        self.plan.phases = [p for p in self.plan.phases if p.number in {t.phase for t in tasks}]
        return tasks

    def trimmed_end(self, end: int, start: int) -> int:
        while end > start and (
            not self.stripped[end - 1].strip() or _SEPARATOR.match(self.stripped[end - 1])
        ):
            end -= 1
        return end

    # --- one task ------------------------------------------------------------------

    def session(self, task: _Task, number: int, numbers: dict[int, int]) -> Session:
        steps = self.steps(task)
        files, deps, deps_line = self.files_and_deps(task, numbers)
        test_files = [f for f in files if f.note.split(" ")[0] in _TEST_KINDS]
        work_files = [f for f in files if f not in test_files]
        roles = _roles(steps)
        by_role: dict[StepRole, list[_Step]] = {"red": [], "green": [], "refactor": []}
        for step, role in zip(steps, roles, strict=True):
            if role is not None:
                by_role[role].append(step)
        tdd = bool(by_role["red"])
        made = {
            role: _make_step(role, chosen, test_files if role == "red" else work_files)
            for role, chosen in by_role.items()
            if chosen
        }
        if not steps:
            made["green"] = Step(role="green", heading=task.title, line=task.line)
        source = "".join(self.lines[task.line - 1 : task.end])
        commits = [range(s.line, s.end + 1) for s, r in zip(steps, roles, strict=True) if r is None]
        boxes = [s.checked for s in steps if s.checked is not None]
        return Session(
            number=number,
            title=task.title,
            phase=task.phase,
            tdd=tdd,
            red=made.get("red"),
            green=made.get("green"),
            refactor=made.get("refactor"),
            files=files,
            dependencies=deps if deps is not None else ([number - 1] if number > 1 else []),
            dependencies_line=deps_line,
            source_file=self.path,
            line_start=task.line,
            line_end=task.end,
            source_hash=source_hash(source),
            source_text=source,
            brief_text=brief_text(self.lines, task.line, task.end, commits),
            box_lines=[s.line for s in steps if s.checked is not None],
            claimed_done=bool(boxes) and all(boxes),
        )

    def steps(self, task: _Task) -> list[_Step]:
        found: list[_Step] = []
        for block in task.blocks:
            if block.kind == "item":
                if block.level:
                    continue
            elif block.kind == "text":
                if block.item or not block.text.startswith(("**", "__")):
                    continue
            elif block.kind != "heading":
                continue
            first_line = _MARKER.sub("", self.stripped[block.line - 1]).strip()
            if block.kind == "heading":
                first_line = block.text
            m = voc.STEP_LINE.match(plain(first_line, ticks=False))
            if m is None:
                continue
            title = m.group(2).strip().strip("*_").strip()
            checked = block.checked if block.kind == "item" else None
            found.append(_Step(m.group(1), title, block.line, checked))
        for i, step in enumerate(found):
            end = found[i + 1].line - 1 if i + 1 < len(found) else task.end
            step.end = self.trimmed_end(end, step.line)
            self.read_run_lines(step, task)
        return found

    def read_run_lines(self, step: _Step, task: _Task) -> None:
        """The step's first `Run:` command and `Expected:` text, outside code blocks."""
        fences = [b for b in task.blocks if b.kind == "code" and step.line <= b.line <= step.end]
        inside = {n for b in fences for n in range(b.line, b.end + 1)}
        for n in range(step.line, step.end + 1):
            if n in inside:
                continue
            for part in re.split(r"(?<=\S)\s+(?=(?:Run|Expected)\s*:)", self.stripped[n - 1]):
                run = _RUN.match(part)
                if run and step.command is None:
                    spans = code_spans(run.group(1))
                    if spans:
                        step.command = spans[0]
                    elif not run.group(1).strip():
                        step.command = _first_line(fences, n + 1)
                expected = _EXPECTED.match(part)
                if expected and step.expected is None and step.command is not None:
                    step.expected = plain(expected.group(1), ticks=False) or None

    def files_and_deps(
        self, task: _Task, numbers: dict[int, int]
    ) -> tuple[list[FileSpec], list[int] | None, int | None]:
        files: list[FileSpec] = []
        deps: list[int] | None = None
        deps_line: int | None = None
        in_files = False
        for block in task.blocks:
            if block.kind == "item" and in_files and block.level == 0:
                spec = task_file_spec(block.text, block.line)
                if spec is not None:
                    files.append(spec)
                continue
            in_files = False
            if block.kind != "text" or block.item:
                continue
            label = read_label(block.text)
            if label is None:
                continue
            if re.fullmatch(r"files?", label.label, re.I):
                in_files = True
            elif _DEPENDS.match(label.label):
                deps, deps_line = self.dependencies(task, label.rest, block.line, numbers)
        return files, deps, deps_line

    def dependencies(
        self, task: _Task, text: str, line: int, numbers: dict[int, int]
    ) -> tuple[list[int], int]:
        refs = voc.parse_session_refs(plain(text, ticks=False), word="task")
        if refs is None:
            self.warn(line, f"cannot read the dependency '{plain(text)}'; expected 'Task N'")
            return [], line
        deps: list[int] = []
        for ref in refs:
            if ref in numbers and numbers[ref] not in deps:
                deps.append(numbers[ref])
            elif ref not in numbers:
                self.warn(
                    line, f"Task {task.number} depends on Task {ref}, which this plan does not have"
                )
        return deps, line


def _roles(steps: list[_Step]) -> list[StepRole | None]:
    """Each step's role by meaning (None: a commit step, the executor's own)."""
    meanings = [s.meaning for s in steps]
    red_kinds = ("write_test", "verify_fail")
    first_red = next((i for i, m in enumerate(meanings) if m in red_kinds), None)
    roles: list[StepRole | None] = []
    current: StepRole = "green"
    for i, meaning in enumerate(meanings):
        role: StepRole | None
        if meaning == "commit":
            role = None
        elif first_red is None:
            role = "green"
        elif meaning in red_kinds or i < first_red:
            role = "red"
        elif meaning == "refactor" or (meaning == "verify_pass" and current == "refactor"):
            role = "refactor"
        else:
            role = "green"
        if role is not None:
            current = role
        roles.append(role)
    return roles


def _make_step(role: StepRole, steps: list[_Step], files: list[FileSpec]) -> Step:
    verify = "verify_fail" if role == "red" else "verify_pass"
    with_command = [s for s in steps if s.command]
    chosen = next((s for s in with_command if s.meaning == verify), None) or next(
        iter(with_command), None
    )
    paths = [f.path for f in files]
    for step in steps:
        paths += [p for p in code_spans(step.title) if voc.looks_like_path(p) and p not in paths]
    first = steps[0]
    return Step(
        role=role,
        heading=f"Step {first.number}: {first.title}",
        tasks=[f"Step {s.number}: {s.title}" for s in steps],
        files=paths,
        test_command=chosen.command if chosen else None,
        expected=chosen.expected if chosen else None,
        line=first.line,
    )


def _first_line(fences: list[Block], line: int) -> str | None:
    """The first command line of a fence opening at `line` or the line after (a `Run:`
    whose command follows in a code block)."""
    for fence in fences:
        if line <= fence.line <= line + 1:
            first = next((ln.strip() for ln in fence.text.splitlines() if ln.strip()), "")
            return first.lstrip("$ ").strip() or None
    return None
