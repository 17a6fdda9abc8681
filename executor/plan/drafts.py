"""What the file parser fills in while it reads (a session's draft), and how a draft
becomes a `Session` once its section ends."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from executor.plan import vocabulary as voc
from executor.plan.mermaid import Edge
from executor.plan.models import ChecklistItem, Diagnostic, FileSpec, Phase, Session, Step
from executor.plan.sessiontext import brief_text, source_hash


@dataclass
class FileResult:
    path: Path
    phases: list[Phase] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Session numbers whose dependencies were stated in prose (not just absent).
    stated_dependencies: set[int] = field(default_factory=set)


@dataclass
class StepDraft:
    step: Step
    level: int


@dataclass
class SessionDraft:
    number: int
    title: str
    phase: int
    level: int
    line: int
    tdd: bool
    hours: float | None
    objectives: list[ChecklistItem] = field(default_factory=list)
    exit_criteria: list[ChecklistItem] = field(default_factory=list)
    files: list[FileSpec] = field(default_factory=list)
    steps: dict[str, Step] = field(default_factory=dict)
    dependencies: list[int] | None = None
    dependencies_line: int | None = None
    coverage: list[str] = field(default_factory=list)
    test_cases: list[str] = field(default_factory=list)
    tests: int | None = None
    context_tokens: int | None = None
    next_session: int | None = None
    default_command: str | None = None
    #: (line, ticked) of every checkbox item in the session
    boxes: list[tuple[int, bool]] = field(default_factory=list)
    subheadings: int = 0
    bare_items: int = 0
    #: dependency lines naming no session: (line, text)
    dependency_prose: list[tuple[int, str]] = field(default_factory=list)

    def read_value(self, kind: str, text: str, line: int) -> str | None:
        """A one-line value (`**Estimated Time**: 2 hours`, `**Dependencies**: ...`) into
        the draft; the warning to give when it cannot be read, else None."""
        if kind == "time":
            hours = voc.parse_hours(text)
            if hours is None:
                return f"cannot read the time estimate '{text}'; expected e.g. '2.5 hours'"
            self.hours = hours
        elif kind == "tests_count":
            self.tests = voc.parse_count(text)
        elif kind == "context":
            self.context_tokens = voc.parse_count(text)
        elif kind == "next":
            m = re.search(r"session\s+#?(\d+)", text, re.I)
            self.next_session = int(m.group(1)) if m else None
        elif kind == "dependencies":
            self.read_dependencies(text, line)
        return None

    def read_dependencies(self, text: str, line: int) -> None:
        """Session references are dependencies; prose naming none is kept to judge."""
        refs = voc.parse_session_refs(text)
        if refs is None:
            self.dependency_prose.append((line, text))
            return
        if self.dependencies is None:
            self.dependencies = []
            self.dependencies_line = line
        self.dependencies.extend(r for r in refs if r not in self.dependencies)


def to_session(d: SessionDraft, path: Path, lines: list[str], end: int) -> Session:
    """The finished session: `d` with its source lines `d.line..end` of `lines`."""
    source = "".join(lines[d.line - 1 : end])
    derived = not d.steps and not d.subheadings and d.bare_items > 0
    if derived:
        _derive_steps(d)
    return Session(
        number=d.number,
        title=d.title,
        phase=d.phase,
        tdd=d.tdd or derived,
        objectives=d.objectives,
        red=d.steps.get("red"),
        green=d.steps.get("green"),
        refactor=d.steps.get("refactor"),
        files=d.files,
        dependencies=d.dependencies or [],
        exit_criteria=d.exit_criteria,
        estimated_hours=d.hours,
        estimated_tests=d.tests,
        estimated_context_tokens=d.context_tokens,
        coverage_requirements=d.coverage,
        next_session=d.next_session,
        test_cases=d.test_cases,
        default_test_command=d.default_command,
        dependencies_line=d.dependencies_line,
        source_file=path,
        line_start=d.line,
        line_end=end,
        source_hash=source_hash(source),
        source_text=source,
        brief_text=brief_text(lines, d.line, end),
        box_lines=[line for line, _ in d.boxes],
        claimed_done=bool(d.boxes) and all(ticked for _, ticked in d.boxes),
        derived=derived,
    )


def _derive_steps(d: SessionDraft) -> None:
    """A bullet-summary session (format B) runs as a standard TDD session: failing tests
    for its bullets, then the implementation, then a refactor, with the project's
    test command (lint says so once per plan)."""
    bullets = [o.text for o in d.objectives]
    d.steps = {
        "red": Step(
            role="red", heading="Write failing tests for the summary", tasks=bullets, line=d.line
        ),
        "green": Step(
            role="green", heading="Implement the summary", tasks=list(bullets), line=d.line
        ),
        "refactor": Step(role="refactor", heading="Refactor", line=d.line),
    }
