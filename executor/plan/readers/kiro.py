"""Reader E: Kiro spec task lists (`.kiro/specs/<feature>/tasks.md`).

`- [ ] 1. Title` items are the numbered tasks, `- [ ] 1.1 Title` their sub-tasks (nested
under the task, or at the same indent and related only by their number). Each unit of
work is one session, numbered in file order (the Kiro number is its `label`): a task
with nested sub-tasks is a group (a phase, not a session) and each sub-task a session; a
task without is itself a session in the phase of its number. `- [ ]* 2.3` marks an
optional task (`Session.optional`: run only when asked for); `N. Checkpoint - ...` asks
a person to confirm (`Session.is_checkpoint`); `[-]` is Kiro's "in progress". The
detail bullets are the task's work (`_Requirements: 1.2_` lines are traceability, not
dependencies); tasks run in order, each after the required one before it.
`requirements.md` and `design.md` beside the file are context for every session.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from executor.plan.commands.checks import judge
from executor.plan.commands.written import text_command
from executor.plan.models import (
    Diagnostic,
    FileSpec,
    Phase,
    Plan,
    PlanCommand,
    PlanFormat,
    Session,
    Step,
)
from executor.plan.readers.waves import wave_dependencies
from executor.plan.text import stepwords, words
from executor.plan.text.files import prose_paths
from executor.plan.text.inline import plain
from executor.plan.text.markdown import Block, parse
from executor.plan.text.sessiontext import located, split_source, trimmed_end
from executor.plan.text.source import file_plan
from executor.plan.text.words import Unit

TASK = re.compile(r"^(\d+(?:\.\d+)+|\d+(?=\.))\.?\s+(.+)$", re.S)
_CHECKPOINT = re.compile(rf"^(?:final\s+|最终|最終|最后|最後)?\s*(?:{words.CHECKPOINT})", re.I)
#: A heading that names a group of tasks: `## 1. Set up`, `## Phase 2: Name`.
_GROUP = re.compile(r"^(\d+)\.\s+(.+)$")
_PHASE = Unit(words.PHASE)
#: Traceability lines: `_Requirements: 1.2_`, `_需求: 2.5_`, `_요구사항: 6.1_`, `_要件: 3.1_`.
_REQUIREMENTS = re.compile(
    r"^[_*]*(?:requirements|validates|需求|要件|要求|요구\s*사항|anforderungen|exigences"
    r"|requisitos|y[eê]u\s+c[aầ]u)\b[^:：]{0,20}[:：]",
    re.I,
)
CONTEXT = ("requirements.md", "design.md")


@dataclass
class _Task:
    item: Block
    label: str
    title: str
    subtasks: list[_Task] = field(default_factory=list)
    details: list[Block] = field(default_factory=list)

    @property
    def top(self) -> int:
        return int(self.label.split(".")[0])


class KiroReader:
    format: PlanFormat = "kiro"

    def read(self, path: Path) -> Plan:
        plan, text = file_plan(path, path.parent.name, self.format)
        if text is not None:
            _SpecTasks(path, text, plan).run()
        return plan


class _SpecTasks:
    def __init__(self, path: Path, text: str, plan: Plan) -> None:
        self.path = path
        self.plan = plan
        self.lines = split_source(text)
        self.blocks = parse(text).blocks
        self.context = [path.parent / n for n in CONTEXT if (path.parent / n).is_file()]

    def run(self) -> None:
        tasks = self.tasks()
        units: list[tuple[_Task, _Task | None]] = []
        for task in tasks:
            if "." not in task.label:
                phase = Phase(number=task.top, name=plain(task.title), source_file=self.path,
                              line=task.item.line)  # fmt: skip
                if self.plan.phase(task.top) is None:
                    self.plan.phases.append(phase)
            if task.subtasks:
                units += [(sub, task) for sub in task.subtasks]
            else:
                units.append((task, None))
        headings = self.group_headings(units)
        required = 0
        for number, (task, group) in enumerate(units, start=1):
            found = self.plan.phase(task.top)
            if found is None:  # `- [ ] 3.1` with no task 3 before it: its heading names it
                name, line = headings.get(task.top, (plain(task.title), None))
                found = Phase(number=task.top, name=name, source_file=self.path, line=line)
                self.plan.phases.append(found)
            last = group is not None and task is _last_required(group)
            session = self.session(task, number, required, group if last else None)
            if group is not None and group.item.star:
                session.optional = True  # `- [ ]* 11. Unit tests`: the whole group is optional
            if not session.optional:
                required = number
            found.sessions.append(session)
        self.plan.phases.sort(key=lambda p: p.number)
        by_label = {s.label: s for s in self.plan.sessions() if s.label}
        waves = wave_dependencies(self.blocks, by_label)
        for label, needed in waves.items():
            by_label[label].dependencies = needed

    def group_headings(self, units: list[tuple[_Task, _Task | None]]) -> dict[int, tuple[str, int]]:
        """Groups written as headings above flat `- [ ] 1.1` tasks (`## 1. Set up`,
        `## Phase 2: Name`; a heading at their level with no number, such as `##
        Documentation` above `8.1`, names the group of the tasks below it)."""
        headings = [b for b in self.blocks if b.kind == "heading" and not b.nested]
        numbered: dict[int, tuple[str, int]] = {}
        levels: set[int] = set()
        for h in headings:
            text = plain(h.text, ticks=False)
            m = _GROUP.match(text) or _PHASE.match(text)
            if m is not None and m.group(1).isdigit():
                numbered.setdefault(int(m.group(1)), (m.group(2).strip() or text, h.line))
                levels.add(h.level)
        if not numbered:
            return {}
        for task, _ in units:
            if task.top in numbered:
                continue
            above = [h for h in headings if h.level in levels and h.line < task.item.line]
            if above:
                numbered[task.top] = (plain(above[-1].text, ticks=False), above[-1].line)
        return numbered

    def tasks(self) -> list[_Task]:
        """The numbered checkbox items, nested sub-tasks under their task, with the
        blocks inside each that are not sub-tasks (its details)."""
        found: list[_Task] = []
        by_line: dict[int, _Task] = {}
        for block in self.blocks:
            if block.kind == "item" and block.checked is not None:
                m = TASK.match(block.first)
                if m is not None and self.repeats(block, found, by_line):
                    continue
                if m is not None:
                    task = _Task(block, m.group(1), m.group(2).strip())
                    parent = by_line.get(block.item)
                    if parent is None and not block.item:
                        found.append(task)
                        by_line[block.line] = task
                        continue
                    if parent is not None and "." in task.label and "." not in parent.label:
                        parent.subtasks.append(task)
                        by_line[block.line] = task
                        continue
            owner = by_line.get(block.item)
            if owner is not None:
                owner.details.append(block)
        return found

    def repeats(self, block: Block, found: list[_Task], by_line: dict[int, _Task]) -> bool:
        """A task line repeated word for word (an editor's duplicate) is read once; the
        repeat is named at its line."""
        seen = [t for t in [*found, *(s for t in found for s in t.subtasks)]
                if t.item.first == block.first and t.item.line != block.line]  # fmt: skip
        if not seen:
            return False
        self.plan.diagnostics.append(
            Diagnostic(
                severity="warning",
                path=self.path,
                line=block.line,
                message=f"this task line repeats line {seen[0].item.line} word for word: "
                "read once (the repeat adds no session)",
            )
        )
        by_line[block.line] = seen[0]
        return True

    def session(self, task: _Task, number: int, before: int, group: _Task | None) -> Session:
        item = task.item
        end = trimmed_end(self.lines, item.end, item.line)
        lines = [
            (n, ln) for b in task.details for n, ln in b.lines() if not _REQUIREMENTS.match(ln)
        ]
        details = [ln for _, ln in lines]
        text = "\n".join([task.title, *details])
        commands: list[tuple[int, str]] = []
        refused: list[PlanCommand] = []
        for n, ln in lines:
            if (named := text_command(ln)) is None:
                continue
            if (why := judge(named)) is None:
                commands.append((n, named))
            else:
                refused.append(PlanCommand(command=named, line=n, why_not=why))
        files = [FileSpec(path=p, line=item.line) for p in prose_paths(text, bare=True)
                 if not p.startswith("/")]  # fmt: skip
        boxes = [item.line] + ([group.item.line] if group is not None else [])
        return Session(
            number=number,
            title=plain(task.title),
            phase=task.top,
            label=task.label,
            tdd=False,
            green=Step(
                role="green",
                heading=plain(task.title),
                tasks=[plain(d) for d in details],
                files=[f.path for f in files],
                test_command=commands[-1][1] if commands else None,
                command_line=commands[-1][0] if commands else None,
                line=item.line,
            ),
            not_checks=refused,
            files=files,
            dependencies=[before] if before else [],
            optional=item.star,
            is_checkpoint=bool(_CHECKPOINT.match(plain(task.title))),
            checkpoints=[plain(t) for t in [task.title, *details] if stepwords.by_hand(plain(t))],
            status="in-progress" if item.mark == "-" else None,
            context_files=self.context,
            **located(self.path, self.lines, item.line, end),
            box_lines=boxes,
            claimed_done=bool(item.checked),
        )


def _last_required(group: _Task) -> _Task | None:
    """The sub-task whose completion completes the group (the last one not optional)."""
    required = [t for t in group.subtasks if not t.item.star]
    return required[-1] if required else None
