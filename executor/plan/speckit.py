"""Reader D: spec-kit checklist task files (`specs/<feature>/tasks.md`).

Each `## Phase N: ...` heading is one session (and one phase), numbered in plan order.
Its `- [ ] T012 [P] [US1] ...` lines are the tasks (`[P]` / `[USn]` markers kept in the
text). Tasks under a sub-heading about tests (`### Tests for User Story 1`) are RED, the
others GREEN. A phase without test tasks (Setup, Foundational, Polish) is not TDD: one
GREEN step holding its tasks, verified by the test command (the whole suite).
`**Checkpoint**:` lines are human checkpoints held at the end of the phase; paths named
in task text are the session's files. `**Dependencies**: Phase 2 ...` names the phases a
phase needs (else: the previous one). A `**Test command**:` / `**Run tests**:` line with
a code span gives the command, for the whole file (before the first phase) or a phase.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from executor.plan import vocabulary as voc
from executor.plan.markdown import Block, code_spans, plain, read_label, scan
from executor.plan.models import Diagnostic, FileSpec, Phase, Plan, PlanFormat, Session, Step
from executor.plan.sessiontext import brief_text, source_hash, split_source
from executor.plan.source import read_source

_PATH_TOKEN = re.compile(r"[\w.@~+\-/]*[\w\-@+]/[\w.@~+\-/]*|[\w\-@+]+\.[A-Za-z][A-Za-z0-9]{0,5}")
_SEPARATOR = re.compile(r"^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
_TITLE_PREFIX = re.compile(r"^(?:implementation\s+)?tasks?\s*:\s*", re.I)
_ARROW = re.compile(r"\s*(?:→|->|⟶|=>)\s*")
_COMMAND_LABEL = re.compile(r"^(?:test command|run tests?|tests? run with|verify with)$", re.I)


class SpeckitReader:
    format: PlanFormat = "speckit"

    def read(self, path: Path) -> Plan:
        text, problems = read_source(path)
        plan = Plan(name=path.parent.name, folder=path.parent, source_file=path)
        plan.diagnostics.extend(problems)
        if text is not None:
            _TaskFile(path, text, plan).run()
        return plan


class _TaskFile:
    def __init__(self, path: Path, text: str, plan: Plan) -> None:
        self.path = path
        self.plan = plan
        self.lines = split_source(text)
        self.stripped = [ln.rstrip("\r\n") for ln in self.lines]
        self.blocks = scan(text)
        self.command: str | None = None
        #: Text after the last phase (a "Dependencies & Execution Order" section).
        self.order_lines: list[Block] = []

    def run(self) -> None:
        #: (heading, name, blocks, boundary line: the heading that ends the phase)
        phases: list[tuple[Block, str, list[Block], list[int]]] = []
        for block in self.blocks:
            if block.kind == "heading":
                text = plain(block.text, ticks=False)
                if block.level == 1 and not phases:
                    self.plan.name = _TITLE_PREFIX.sub("", text)
                open_phase = phases[-1] if phases and not phases[-1][3] else None
                if open_phase is not None and block.level <= open_phase[0].level:
                    open_phase[3].append(block.line)
                m = voc.SPECKIT_PHASE.match(text)
                if m:
                    phases.append((block, (m.group(2) or text).strip(), [], []))
                    continue
            if phases and not phases[-1][3]:
                phases[-1][2].append(block)
            elif not phases:
                self.header_command(block)
            elif block.kind in ("text", "item"):
                self.order_lines.append(block)
        for number, (heading, name, blocks, boundary) in enumerate(phases, start=1):
            end = self.trimmed_end((boundary or [len(self.lines) + 1])[0] - 1, heading.line)
            session = self.session(number, name, heading, blocks, end)
            self.plan.phases.append(
                Phase(
                    number=number,
                    name=name,
                    source_file=self.path,
                    line=heading.line,
                    sessions=[session],
                )
            )
        self.apply_order()

    def apply_order(self) -> None:
        """A "Critical Path" / execution-order line after the phases (`Phase 1 → Phase 2`,
        `Phases 3, 4, 5 → Phase 6`) also orders the phases: a phase waits for what the
        plan says runs before it, even where its own **Dependencies** line says none
        (then with a warning: the plan disagrees with itself)."""
        sessions = {s.number: s for s in self.plan.sessions()}
        for block in self.order_lines:
            text = plain(block.text, ticks=False)
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

    def header_command(self, block: Block) -> None:
        if block.kind not in ("text", "item"):
            return
        label = read_label(block.text)
        if label is not None and _COMMAND_LABEL.match(label.label):
            spans = code_spans(label.rest)
            if spans:
                self.command = spans[0]

    def trimmed_end(self, end: int, start: int) -> int:
        while end > start and (
            not self.stripped[end - 1].strip() or _SEPARATOR.match(self.stripped[end - 1])
        ):
            end -= 1
        return end

    def session(
        self, number: int, name: str, heading: Block, blocks: list[Block], end: int
    ) -> Session:
        red: list[Block] = []
        green: list[Block] = []
        in_tests = False
        checkpoints: list[str] = []
        deps: list[int] | None = None
        deps_line: int | None = None
        command: str | None = None
        for block in blocks:
            if block.kind == "heading":
                in_tests = voc.is_test_section(plain(block.text, ticks=False))
                continue
            if block.kind == "item" and voc.SPECKIT_TASK.match(block.text):
                (red if in_tests else green).append(block)
                continue
            if block.kind != "text":
                continue
            label = read_label(block.text)
            if label is None:
                continue
            kind = label.label.lower()
            if kind.startswith("checkpoint"):
                checkpoints.append(plain(label.rest))
            elif kind.startswith("depend"):
                refs = voc.parse_session_refs(plain(label.rest, ticks=False), word="phase")
                deps, deps_line = [r for r in (refs or []) if 0 < r < number], block.line
            elif _COMMAND_LABEL.match(label.label) and code_spans(label.rest):
                command = code_spans(label.rest)[0]
        tasks = red + green
        files = _files(tasks)
        source = "".join(self.lines[heading.line - 1 : end])
        return Session(
            number=number,
            title=name,
            phase=number,
            tdd=bool(red),
            red=_step("red", red, heading, files) if red else None,
            green=_step("green", green, heading, files),
            files=files,
            dependencies=deps if deps is not None else ([number - 1] if number > 1 else []),
            dependencies_line=deps_line,
            default_test_command=command or self.command,
            checkpoints=checkpoints,
            source_file=self.path,
            line_start=heading.line,
            line_end=end,
            source_hash=source_hash(source),
            source_text=source,
            brief_text=brief_text(self.lines, heading.line, end),
            box_lines=[t.line for t in tasks if t.checked is not None],
            claimed_done=bool(tasks) and all(t.checked for t in tasks),
        )


def _step(role: str, tasks: list[Block], heading: Block, files: list[FileSpec]) -> Step:
    texts = [plain(t.text) for t in tasks]
    own = {p for t in tasks for p in _paths(t.text)}
    return Step(
        role="red" if role == "red" else "green",
        heading="Write the tests" if role == "red" else "Implement the tasks",
        tasks=texts,
        files=[f.path for f in files if f.path in own],
        line=tasks[0].line if tasks else heading.line,
    )


def _paths(text: str) -> list[str]:
    found: list[str] = []
    for token in [*code_spans(text), *_PATH_TOKEN.findall(plain(text, ticks=False))]:
        token = token.strip(".,;:()[]'\"")
        if "/" in token and voc.looks_like_path(token) and token not in found:
            found.append(token)
    return found


def _files(tasks: list[Block]) -> list[FileSpec]:
    seen: dict[str, FileSpec] = {}
    for task in tasks:
        m = voc.SPECKIT_TASK.match(task.text)
        note = m.group(1) if m else ""
        for path in _paths(task.text):
            seen.setdefault(path, FileSpec(path=path, note=note, line=task.line))
    return list(seen.values())
