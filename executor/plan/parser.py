"""One markdown file -> phases, sessions, Mermaid edges and diagnostics.

A single pass over the file's blocks (`executor.plan.markdown.scan`, each with its
source line). Headings open phases, sessions, steps and sections;
paragraph lines and list items are routed to the section they sit in. Nothing here
raises for content: what cannot be understood becomes a `Diagnostic` with file:line.
"""

from __future__ import annotations

import re
from pathlib import Path

from executor.plan import vocabulary as voc
from executor.plan.drafts import FileResult, SessionDraft, StepDraft, to_session
from executor.plan.files import list_item_files, tree_paths
from executor.plan.markdown import Block, code_spans, plain, read_label, scan
from executor.plan.mermaid import mermaid_edges
from executor.plan.models import (
    ChecklistItem,
    Diagnostic,
    FileSpec,
    Phase,
    Step,
    StepRole,
)
from executor.plan.sessiontext import split_source

_SEPARATOR = re.compile(r"^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
_VALUE_KINDS = ("time", "tests_count", "context", "next", "dependencies")


def parse_file(path: Path, text: str) -> FileResult:
    """Parse one plan file (PHASE file, PROJECT_PLAN.md or a single-file plan)."""
    return _FileParser(path, text).run()


class _FileParser:
    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text
        self.lines = split_source(text)
        self.stripped = [ln.rstrip("\r\n") for ln in self.lines]
        self.result = FileResult(path)
        m = voc.PHASE_FILE.match(path.name)
        self.file_phase = int(m.group(1)) if m else None
        self.file_phase_name = (m.group(2) or "").replace("_", " ").title() if m else ""
        self.phases: dict[int, Phase] = {}
        self.phase: Phase | None = None
        self.h1: str | None = None
        self.session: SessionDraft | None = None
        self.step: StepDraft | None = None
        self.section: str | None = None
        self.awaiting_command = False
        #: Level of the `TDD Workflow` heading whose list items open steps (None: not in one)
        self.workflow: int | None = None

    # --- diagnostics ---------------------------------------------------------------

    def error(self, line: int, message: str) -> None:
        self.result.diagnostics.append(
            Diagnostic(severity="error", path=self.path, line=line, message=message)
        )

    def warn(self, line: int, message: str) -> None:
        self.result.diagnostics.append(
            Diagnostic(severity="warning", path=self.path, line=line, message=message)
        )

    # --- driver --------------------------------------------------------------------

    def run(self) -> FileResult:
        for block in scan(self.text):
            kind = block.kind
            if kind == "heading":
                self.on_heading(block)
            elif kind == "code":
                if not block.item:
                    self.on_code(block)
            elif self.session is None or block.item:
                continue
            elif kind == "text":
                self.on_line(block.text, block.line)
            elif kind == "item":
                self.on_item(block)
        self.close_session(len(self.lines) + 1)
        self.result.phases = sorted(self.phases.values(), key=lambda p: p.number)
        return self.result

    # --- headings ------------------------------------------------------------------

    def on_heading(self, block: Block) -> None:
        level = block.level
        text = plain(block.text, ticks=False)
        line = block.line
        if level == 1 and self.h1 is None:
            self.h1 = text
        if m := voc.PHASE_HEADING.match(text):
            self.close_session(line)
            self.open_phase(int(m.group(1)), voc.phase_name(m.group(2) or ""), line)
            return
        if m := voc.SESSION_HEADING.match(text):
            self.close_session(line)
            self.open_session(int(m.group(1)), m.group(2), level, line)
            return
        if voc.LOOKS_LIKE_SESSION.match(text):
            self.close_session(line)
            self.error(
                line,
                f"heading '{text}' looks like a session but has no readable "
                "number; expected 'Session N: Title'",
            )
            return
        session = self.session
        if session is None:
            return
        if level <= session.level:
            self.close_session(line)
            return
        session.subheadings += 1
        if self.step is not None and level <= self.step.level:
            self.step = None
        self.awaiting_command = False
        self.workflow = None
        role = voc.step_role(text)
        if role.role is not None:
            self.open_step(role.role, text, level, line)
            return
        if role.container:
            session.tdd = True
            self.section = "ignore"
            self.workflow = level
            return
        if role.unrecognised_step:
            self.warn(
                line,
                f"step heading '{text}' names no TDD role; expected RED, GREEN "
                "or REFACTOR in its words (e.g. 'Step 1: Write Tests FIRST (RED)')",
            )
            self.step = None
            self.section = "ignore"
            return
        kind = voc.section_kind(text)
        if kind == "container":
            session.tdd = True
            self.section = "ignore"
            self.workflow = level
            return
        if self.step is not None and kind in (None, "test_cases", "files", "run", "expected"):
            self.section = "tasks" if kind is None else kind
            return
        self.step = None
        self.section = kind or "ignore"

    def open_phase(self, number: int, name: str, line: int) -> None:
        if self.file_phase is not None and number != self.file_phase and not self.phases:
            self.warn(
                line,
                f"heading says Phase {number} but the file name says Phase "
                f"{self.file_phase}; using {self.file_phase}",
            )
            number = self.file_phase
        phase = self.phases.get(number)
        if phase is None:
            phase = Phase(number=number, name=name, source_file=self.path, line=line)
            self.phases[number] = phase
        elif not phase.name:
            phase.name, phase.line = name, line
        self.phase = phase

    def current_phase(self) -> Phase:
        if self.phase is None:
            number = self.file_phase if self.file_phase is not None else 1
            name = self.file_phase_name or self.h1 or self.path.stem
            self.phase = self.phases.setdefault(
                number, Phase(number=number, name=name, source_file=self.path)
            )
        return self.phase

    def open_session(self, number: int, raw_title: str, level: int, line: int) -> None:
        parts = voc.split_title(raw_title)
        if not parts.title:
            self.warn(line, f"Session {number} has no title; expected 'Session {number}: Title'")
        self.session = SessionDraft(
            number=number,
            title=parts.title,
            phase=self.current_phase().number,
            level=level,
            line=line,
            tdd=parts.tdd,
            hours=parts.hours,
        )
        self.step = None
        self.section = None
        self.awaiting_command = False

    def open_step(self, role: StepRole, heading: str, level: int, line: int) -> None:
        session = self.session
        assert session is not None
        session.tdd = True
        self.section = "tasks"
        if role in session.steps:
            first = session.steps[role]
            self.warn(
                line,
                f"Session {session.number} has a second {role.upper()} step "
                f"(first at line {first.line}); its tasks are added to the first",
            )
            self.step = StepDraft(first, level)
            return
        step = Step(role=role, heading=heading, line=line)
        session.steps[role] = step
        self.step = StepDraft(step, level)

    # --- session close -------------------------------------------------------------

    def close_session(self, boundary: int) -> None:
        """Finish the open session; its source ends before `boundary` (a line number)."""
        d = self.session
        if d is None:
            return
        self.session = None
        self.step = None
        end = boundary - 1
        while end > d.line and (
            not self.stripped[end - 1].strip() or _SEPARATOR.match(self.stripped[end - 1])
        ):
            end -= 1
        self.judge_dependency_prose(d)
        if d.dependencies is not None:
            self.result.stated_dependencies.add(d.number)
        session = to_session(d, self.path, self.lines, end)
        self.phases[d.phase].sessions.append(session)

    def judge_dependency_prose(self, d: SessionDraft) -> None:
        """Dependency lines that name no session: a list of them (libraries, decisions)
        is prose and says nothing about sessions; a lone one, or one beside session
        references, is probably a reference we cannot read: warn."""
        prose = d.dependency_prose
        if len(prose) == 1 or (prose and d.dependencies is not None):
            for line, text in prose:
                self.warn(
                    line,
                    f"cannot read the dependency '{text}'; expected 'None', "
                    "'Session N' or 'Sessions N, M'",
                )

    # --- content -------------------------------------------------------------------

    def on_code(self, block: Block) -> None:
        if block.info.lower().startswith("mermaid"):
            self.result.edges.extend(mermaid_edges(block.text, block.line + 1))
            return
        if self.session is not None and self.section == "files":
            self.read_file_tree(block)
            return
        if self.awaiting_command and self.step is not None:
            command = next((ln.strip() for ln in block.text.splitlines() if ln.strip()), "")
            if command:
                self.step.step.test_command = command.lstrip("$ ").strip()
                self.step.step.inherits = False
        self.awaiting_command = False

    def on_line(self, line: str, number: int) -> None:
        if self.workflow is not None and self.workflow_step(line, number):
            return
        labelled = read_label(line)
        if labelled is not None:
            kind = voc.section_kind(labelled.label)
            if kind is not None and kind != "container":
                self.on_label(kind, labelled.rest, number)
                return
        self.on_text(line, number, checked=None)

    def on_item(self, item: Block) -> None:
        session = self.session
        assert session is not None
        if item.checked is not None:
            session.boxes.append((item.line, item.checked))
        if self.section is None and self.step is None and item.level == 0:
            session.bare_items += 1
        if (
            self.workflow is not None
            and item.level == 0
            and self.workflow_step(item.text, item.line)
        ):
            return
        labelled = read_label(item.text)
        if labelled is not None:
            kind = voc.section_kind(labelled.label)
            if kind is not None and kind != "container":
                self.on_label(kind, labelled.rest, item.line, in_item=True)
                return
        self.on_text(item.text, item.line, checked=item.checked, in_item=True)

    def workflow_step(self, text: str, line: int) -> bool:
        """`1. **Test First**: ...` / `**Implement**: ...` under a `TDD Workflow` heading
        opens a step; its rest and the nested bullets are the step's tasks."""
        labelled = read_label(text)
        if labelled is None or voc.section_kind(labelled.label) is not None:
            return False
        role = voc.step_role(labelled.label).role or voc.MEANING_ROLE.get(
            voc.step_meaning(labelled.label)
        )
        if role is None or self.workflow is None:
            return False
        self.open_step(role, plain(text, ticks=False), self.workflow + 1, line)
        assert self.step is not None
        if rest := plain(labelled.rest):
            self.step.step.tasks.append(rest)
            self.collect_paths(labelled.rest)
        return True

    def collect_paths(self, text: str) -> None:
        if self.step is None:
            return
        step = self.step.step
        for span in code_spans(text):
            if voc.looks_like_path(span) and span not in step.files:
                step.files.append(span)

    def read_file_tree(self, block: Block) -> None:
        """A `Files to Create` directory tree in a fenced block -> file paths."""
        session = self.session
        assert session is not None
        for path, note, offset in tree_paths(block.text):
            if self.step is not None:
                if path not in self.step.step.files:
                    self.step.step.files.append(path)
            else:
                session.files.append(FileSpec(path=path, note=note, line=block.line + 1 + offset))

    def on_label(self, kind: str, rest: str, line: int, *, in_item: bool = False) -> None:
        """`**Label**: rest`: a one-line value, or the start of a section (list follows)."""
        session = self.session
        assert session is not None
        self.awaiting_command = False
        value = plain(rest)
        if kind == "run":
            self.read_command(rest)
            return
        if kind == "expected":
            if self.step is not None:
                self.step.step.expected = plain(rest, ticks=False)
            return
        self.section = kind
        if kind not in ("test_cases", "tasks"):
            self.step = None  # bold-label sections other than test cases are session-level
        if kind in _VALUE_KINDS:
            if value:  # a one-line value: what follows is not more of it
                self.read_value(kind, rest, line)
                self.section = None
            return
        if value:
            self.on_text(rest, line, checked=None, in_item=in_item)

    def read_command(self, rest: str) -> None:
        session = self.session
        assert session is not None
        spans = code_spans(rest)
        prose = plain(rest, ticks=False)
        if self.step is None:
            if spans:
                session.default_command = spans[0]
            return
        step = self.step.step
        if spans:
            step.test_command, step.inherits = spans[0], False
        elif prose:
            step.inherits = True
        else:
            self.awaiting_command = True  # the command follows in a fenced block

    def read_value(self, kind: str, rest: str, line: int) -> None:
        session = self.session
        assert session is not None
        problem = session.read_value(kind, plain(rest, ticks=False), line)
        if problem:
            self.warn(line, problem)

    def on_text(
        self, children: str, line: int, *, checked: bool | None, in_item: bool = False
    ) -> None:
        """A paragraph line or list item inside the current section."""
        session = self.session
        assert session is not None
        section = self.section
        text = plain(children)
        if not text:
            return
        if self.step is not None and section in ("tasks", "test_cases", "files"):
            self.collect_paths(children)
            if in_item or section == "test_cases":
                self.step.step.tasks.append(text)
            return
        if section is None:
            if in_item and self.step is None:
                session.objectives.append(ChecklistItem(text=text, checked=bool(checked)))
        elif section == "objectives":
            session.objectives.append(ChecklistItem(text=text, checked=bool(checked)))
        elif section == "exit":
            session.exit_criteria.append(ChecklistItem(text=text, checked=bool(checked)))
        elif section == "files":
            self.read_file_spec(children, line)
        elif section == "test_cases":
            session.test_cases.append(text)
        elif section == "coverage":
            session.coverage.append(plain(children, ticks=False))
        elif section in _VALUE_KINDS:
            self.read_value(section, children, line)

    def read_file_spec(self, children: str, line: int) -> None:
        session = self.session
        assert session is not None
        specs = list_item_files(children, line)
        if not specs:
            text = plain(children, ticks=False)
            self.warn(line, f"cannot read a file path in '{text}'; expected '- `path/to/file`'")
        session.files.extend(specs)
