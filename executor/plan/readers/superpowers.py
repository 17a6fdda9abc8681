"""Reader C: task plans with explicit steps (superpowers-style `docs/plans/*.md`).

Each `## Task N` / `### Task N` / `### Task 1.2` heading section is one session,
numbered in plan order (the written id is its `label`); `## Phase N` / `## Chunk N` /
`## Slice N` headings above the tasks form the phases (else there is one phase), and a
`### Slice N gate` heading is a human checkpoint after the task before it. When a fence
that nests badly surfaces a stray heading inside a task, the steps that go on numbering
after it still belong to the task. Steps and their commands are read by
`executor.plan.readers.tasksteps`; a task's `**Files:**` list (Create / Modify / Test / Delete;
Read is not a change) and the files its steps create give its files, `**Depends on:**
Task N` its dependencies (else: the previous task).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from executor.plan.models import Diagnostic, FileSpec, Phase, Plan, PlanFormat, Session
from executor.plan.readers.account import typo_of
from executor.plan.readers.tasksteps import TaskSteps
from executor.plan.text import vocabulary as voc
from executor.plan.text import words
from executor.plan.text.files import task_file_spec
from executor.plan.text.inline import plain, read_label
from executor.plan.text.markdown import Block, Section, parse
from executor.plan.text.sessiontext import located, split_source, trimmed_end
from executor.plan.text.source import file_plan

_DEPENDS = re.compile(r"^(?:depends on|dependencies|requires|prerequisites?|blocked by)$", re.I)
_GATE = re.compile(rf"\bgate\b|{words.CHECKPOINT}|{words.MANUAL}|abnahme|acceptance", re.I)
_FILES = re.compile(words.FILES_LABEL, re.I)


@dataclass
class _Task:
    label: str
    title: str
    heading: Block
    phase: int
    sections: list[Section] = field(default_factory=list)
    end: int = 0
    checkpoints: list[str] = field(default_factory=list)

    @property
    def blocks(self) -> list[Block]:
        found: list[Block] = []
        for i, section in enumerate(self.sections):
            if i and section.heading is not None:
                found.append(section.heading)
            found.extend(section.all_blocks())
        return found


class SuperpowersReader:
    format: PlanFormat = "superpowers"

    def read(self, path: Path) -> Plan:
        plan, text = file_plan(path, path.stem, self.format)
        if text is not None:
            _TaskPlan(path, text, plan).run()
        return plan


class _TaskPlan:
    def __init__(self, path: Path, text: str, plan: Plan) -> None:
        self.path = path
        self.plan = plan
        self.lines = split_source(text)
        self.doc = parse(text)

    def warn(self, line: int, message: str) -> None:
        self.plan.diagnostics.append(
            Diagnostic(severity="warning", path=self.path, line=line, message=message)
        )

    def run(self) -> None:
        tasks = self.tasks()
        numbers = {t.label: i for i, t in enumerate(tasks, start=1)}
        for index, task in enumerate(tasks, start=1):
            phase = self.plan.phase(task.phase)
            assert phase is not None
            phase.sessions.append(self.session(task, index, numbers))

    # --- structure -----------------------------------------------------------------

    def tasks(self) -> list[_Task]:
        headings = [s for s in self.doc.root.walk() if s.heading is not None]
        texts = {id(s): plain(s.title, ticks=False) for s in headings}
        task_levels = [s.level for s in headings if voc.TASK_HEADING.match(texts[id(s)])]
        task_level = min(task_levels, default=7)
        tasks: list[_Task] = []
        current: _Task | None = None
        phase = 0
        for section in headings:
            text = texts[id(section)]
            assert section.heading is not None
            if section.level == 1 and self.plan.name == self.path.stem:
                self.plan.name = re.sub(r"\s+implementation plan$", "", text, flags=re.I)
            task = voc.TASK_HEADING.match(text)
            group = voc.GROUP_HEADING.match(text)
            if group and section.level < task_level:
                phase += 1
                label = group.group(1) if group.group(1) != str(phase) else None
                name = (group.group(2) or "").strip() or text
                self.plan.phases.append(
                    Phase(number=phase, name=name, label=label, source_file=self.path,
                          line=section.line)
                )  # fmt: skip
                current = None
            elif task:
                if phase == 0:
                    phase = 1
                    self.plan.phases.append(
                        Phase(number=1, name=self.plan.name, source_file=self.path)
                    )
                current = _Task(task.group(1), task.group(2).strip(), section.heading, phase)
                current.sections.append(section)
                tasks.append(current)
            elif current is not None and section.level == task_level:
                if _GATE.search(text):
                    current.checkpoints.append(text)
                    current = None
                else:
                    current.sections.append(section)  # kept only if its steps go on
            elif section.level < task_level:
                current = None
        for each in tasks:
            self.trim(each)
        self.plan.phases = [p for p in self.plan.phases if p.number in {t.phase for t in tasks}]
        return tasks

    def trim(self, task: _Task) -> None:
        """Keep the stray sections after a task only up to the last one holding a step
        numbered after the task's own steps (a bad fence surfaced their headings)."""
        own = TaskSteps.numbers(task.sections[0].all_blocks())
        last = 0
        for i, section in enumerate(task.sections[1:], start=1):
            if typo_of(plain(section.title, ticks=False)) is not None:
                break  # `### Tsak 3:` starts a task the reader cannot read: lint names it
            if any(n > max(own, default=0) for n in TaskSteps.numbers(section.all_blocks())):
                last = i
        task.sections = task.sections[: last + 1]
        task.end = trimmed_end(self.lines, task.sections[-1].end, task.heading.line)

    # --- one task ------------------------------------------------------------------

    def session(self, task: _Task, number: int, numbers: dict[str, int]) -> Session:
        blocks = task.blocks
        steps = TaskSteps(blocks, task.end)
        files, deps, deps_line = self.files_and_deps(task, blocks, numbers)
        for path, line in steps.changed_files(files):
            files.append(FileSpec(path=path, note="named in a step", line=line))
        made = steps.session_steps(task.title, task.heading.line, files)
        # the commit step is the executor's own: never work left to do
        boxes = [s.checked for s in steps.steps if s.checked is not None and s.meaning != "commit"]
        by_hand = [f"Step {s.number}: {s.title}" for s in steps.steps if s.by_hand]
        return Session(
            number=number,
            title=task.title,
            phase=task.phase,
            label=task.label if task.label != str(number) else None,
            tdd=steps.tdd,
            red=made.get("red"),
            green=made.get("green"),
            refactor=made.get("refactor"),
            files=files,
            dependencies=deps if deps is not None else ([number - 1] if number > 1 else []),
            dependencies_line=deps_line,
            checkpoints=[*task.checkpoints, *by_hand],
            **located(self.path, self.lines, task.heading.line, task.end, steps.commit_lines()),
            not_checks=steps.not_checks,
            box_lines=[s.line for s in steps.steps if s.checked is not None],
            claimed_done=bool(boxes) and all(boxes),
        )

    def files_and_deps(
        self, task: _Task, blocks: list[Block], numbers: dict[str, int]
    ) -> tuple[list[FileSpec], list[int] | None, int | None]:
        files: list[FileSpec] = []
        deps: list[int] | None = None
        deps_line: int | None = None
        in_files = False
        for block in blocks:
            if block.kind == "item" and in_files and block.level == 0:
                spec = task_file_spec(block.text, block.line)
                if spec is not None and spec.path not in {f.path for f in files}:
                    files.append(spec)
                continue
            if block.kind == "paragraph" and not block.item:
                label = read_label(block.first)
                in_files = label is not None and bool(_FILES.fullmatch(words.normal(label.label)))
                if label is not None and _DEPENDS.match(label.label):
                    deps, deps_line = self.dependencies(task, label.rest, block.line, numbers)
            elif block.kind != "item":
                in_files = in_files and block.kind == "html"
        return files, deps, deps_line

    def dependencies(
        self, task: _Task, text: str, line: int, numbers: dict[str, int]
    ) -> tuple[list[int], int]:
        refs = voc.parse_session_refs(plain(text, ticks=False), word="task")
        if refs is None:
            self.warn(line, f"cannot read the dependency '{plain(text)}'; expected 'Task N'")
            return [], line
        deps: list[int] = []
        for ref in map(str, refs):
            if ref in numbers and numbers[ref] not in deps:
                deps.append(numbers[ref])
            elif ref not in numbers:
                self.warn(
                    line, f"Task {task.label} depends on Task {ref}, which this plan does not have"
                )
        return deps, line
