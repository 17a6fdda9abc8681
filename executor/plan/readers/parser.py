"""One PHASE file or PROJECT_PLAN.md -> phases, sessions, Mermaid edges, diagnostics.

Sessions are sections of the heading tree (`executor.plan.text.markdown`): a heading
`Session N: Title` at any level and everything below it. The units of work are, in
order of preference:
- `Session N` headings (a `## Session 8 Scope` inside `# Session 8 - ...` is a section of
  that session, not a second Session 8); a session made of `## Part N: ...` sections is
  those parts, each a session;
- in an overview, bold list items `1. **Session 1: Title** (3h)` under a phase;
- in a file with neither, `Phase A: ...` sections that hold the work themselves.
`Phase N` headings (and ids such as `1A`) open the phases the sessions belong to.
What a session's sub-sections hold is read by `executor.plan.readers.sessionread`.
Nothing here raises for content: what cannot be understood becomes a `Diagnostic`.
"""

from __future__ import annotations

import re
from pathlib import Path

from executor.plan.commands.checks import judge, not_a_check
from executor.plan.models import Diagnostic, Phase
from executor.plan.readers.drafts import FileResult, SessionDraft, is_test_bullet, to_session
from executor.plan.readers.mermaid import mermaid_edges, tree_edges
from executor.plan.readers.phasedeps import table_dependencies
from executor.plan.readers.sessionread import SessionReader, unroled_step
from executor.plan.readers.units import (
    BOLD_SESSION,
    bold_sessions,
    is_record,
    unit_id,
    work_units,
)
from executor.plan.text import vocabulary as voc
from executor.plan.text.files import as_file
from executor.plan.text.inline import code_spans, plain, read_label
from executor.plan.text.markdown import Block, Section, parse
from executor.plan.text.sessiontext import split_source, trimmed_end

_RUN_TESTS = re.compile(r"\brun\b[^`]*\btests?\b", re.I)


def parse_file(path: Path, text: str, *, overview: bool = False) -> FileResult:
    """Parse one plan file (PHASE file, PROJECT_PLAN.md or a single-file plan); in an
    `overview` phases never hold work themselves."""
    return _FileParser(path, text, overview).run()


class _FileParser:
    def __init__(self, path: Path, text: str, overview: bool) -> None:
        self.path = path
        self.overview = overview
        self.doc = parse(text)
        self.lines = split_source(text)
        self.result = FileResult(path)
        m = voc.PHASE_FILE.match(path.name)
        self.file_phase = int(m.group(1)) if m else None
        self.file_phase_name = (m.group(2) or "").replace("_", " ").title() if m else ""
        self.phases: dict[int, Phase] = {}
        #: heading lines of the session sections (a session nested in another ends it)
        self.unit_lines: set[int] = set()
        self.phase: Phase | None = None
        self.h1: str | None = None
        #: Test command a line outside every session names ("Run tests after every
        #: change - `npm run test:run`"): sessions that name none use it.
        self.file_command: tuple[int, str] | None = None
        #: `Session N` sections that record work done (a journal), beside the units.
        self.journal: list[Section] = []
        #: The plan says its method is TDD (`- **TDD:** Tests written before ...`): a
        #: summary session with a Tests bullet writes them first.
        self.declared_tdd = False

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
        for block in self.doc.blocks:
            if block.kind == "code" and block.info.lower().startswith("mermaid"):
                self.result.edges.extend(mermaid_edges(block.text, block.line + 1))
            elif block.kind == "code":
                self.result.edges.extend(tree_edges(block.text, block.line + 1))
            elif block.kind == "table":
                rows = self.lines[block.line - 1 : block.end]
                self.result.phase_waits.update(table_dependencies(rows))
            elif block.kind == "item" and block.text.startswith(("**TDD", "__TDD")):
                label = read_label(block.first)
                self.declared_tdd = self.declared_tdd or bool(
                    label and label.label.upper() == "TDD"
                )
        units = self.units()
        self.unit_lines = {u.line for u in units if isinstance(u, Section)}
        for unit in units:
            if isinstance(unit, tuple):
                self.read_bold_session(*unit)
            else:
                self.read_session(unit)
        self.result.phases = sorted(self.phases.values(), key=lambda p: p.number)
        self.read_journal()
        return self.result

    def read_journal(self) -> None:
        """What a journal of finished sessions says is done is done: a unit its entries
        name (`Completed Phase 8.1`, `8.2 ✅`) is claimed done (and re-proven)."""
        said = [
            text
            for j in self.journal
            for b in j.all_blocks()
            if b.kind in ("item", "paragraph")
            for _, text in b.lines()
            if voc.says_done_word(text)
        ]
        for phase in self.phases.values():
            for session in phase.sessions:
                label = session.label
                mention = rf"(?<![\d.]){re.escape(label or '')}(?!\d|\.\d)"
                if label and any(re.search(mention, line) for line in said):
                    session.claimed_done = True

    def units(self) -> list[Section | tuple[Block, int, list[Block], int]]:
        """Every session section in document order (phases opened on the way), then the
        sessions written as bold items, then phase sections that hold work."""
        found: list[Section | tuple[Block, int, list[Block], int]] = []
        ids: list[tuple[Section, str, str]] = []
        open_numbers: list[tuple[int, int]] = []  # (level, number) of enclosing sessions
        for section in self.doc.root.walk():
            heading = section.heading
            if heading is None:
                continue
            text = plain(heading.text, ticks=False)
            while open_numbers and open_numbers[-1][0] >= heading.level:
                open_numbers.pop()
            if heading.level == 1 and self.h1 is None:
                self.h1 = text
            if m := voc.PHASE_HEADING.match(text):
                self.open_phase(m.group(1), voc.phase_name(m.group(2) or ""), heading.line)
                ids.append((section, m.group(1), m.group(2) or ""))
            elif found_id := voc.PHASE_ID_HEADING.match(text):
                ident, rest = found_id.group(1).upper(), found_id.group(2) or ""
                ids.append((section, ident, rest))
                if self.overview:
                    self.open_phase(ident, voc.phase_name(rest), heading.line)
            elif m := voc.SESSION_HEADING.match(text):
                number = int(m.group(1))
                if any(n == number for _, n in open_numbers):
                    continue  # `## Session 8 Scope` inside Session 8: a section of it
                open_numbers.append((heading.level, number))
                found.extend(self.session_or_parts(section))
            elif voc.LOOKS_LIKE_SESSION.match(text):
                self.error(
                    heading.line,
                    f"heading '{text}' looks like a session but has no readable "
                    "number; expected 'Session N: Title'",
                )
        journal = [u for u in found if isinstance(u, Section) and is_record(u)]
        if journal and len(journal) == len(found):
            found = []  # a journal of sessions done: the plan's work is elsewhere in the file
        if not found:
            found.extend(bold_sessions(self.doc))
        if not found and not self.overview:
            found.extend(self.phase_units(ids) or work_units(self.doc))
        if journal and not found:
            found = list(journal)
        elif journal:
            self.journal = journal
        return found

    def session_or_parts(self, section: Section) -> list[Section]:
        parts = [c for c in section.children if voc.PART_HEADING.match(plain(c.title, ticks=False))]
        if not parts:
            return [section]
        self.file_command = self.file_command or self.command_outside(section, parts)
        return parts

    def phase_units(self, ids: list[tuple[Section, str, str]]) -> list[Section]:
        """A file with no sessions whose `Phase A: ...` sections hold the work."""
        units = [s for s, id_, _ in ids if not id_.isdigit() and s.all_blocks()]
        return units if len(units) >= 2 else []

    # --- phases --------------------------------------------------------------------

    def open_phase(self, ident: str, name: str, line: int) -> None:
        number = int(ident) if ident.isdigit() else len(self.phases) + 1
        label = None if ident.isdigit() else ident
        if self.file_phase is not None and number != self.file_phase and not self.phases:
            self.warn(
                line,
                f"heading says Phase {ident} but the file name says Phase "
                f"{self.file_phase}; using {self.file_phase}",
            )
            number = self.file_phase
        if label is None and any(p.label for p in self.phases.values()):
            number, label = len(self.phases) + 1, ident
        phase = self.phases.get(number)
        if phase is None:
            phase = Phase(number=number, name=name, label=label, source_file=self.path, line=line)
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

    def phase_at(self, line: int) -> Phase:
        """The phase a session at `line` belongs to: the last phase heading before it (or
        at it: a phase that holds its work itself)."""
        before = [p for p in self.phases.values() if p.line is not None and p.line <= line]
        if before:
            return max(before, key=lambda p: p.line or 0)
        return self.current_phase()

    # --- sessions ------------------------------------------------------------------

    def new_draft(self, number: int, raw_title: str, line: int, label: str | None) -> SessionDraft:
        parts = voc.split_title(raw_title)
        if not parts.title:
            self.warn(line, f"Session {number} has no title; expected 'Session {number}: Title'")
        return SessionDraft(
            number=number,
            title=parts.title,
            phase=self.phase_at(line).number,
            line=line,
            tdd=parts.tdd,
            hours=parts.hours,
            label=label,
            optional=parts.optional,
            said_done=voc.says_done(raw_title),
        )

    def read_session(self, section: Section) -> None:
        assert section.heading is not None
        text = plain(section.heading.text, ticks=False)
        label = None
        if (m := voc.SESSION_HEADING.match(text) or voc.PART_HEADING.match(text)) is not None:
            number, title = int(m.group(1)), m.group(2)
        else:
            label, title = unit_id(text)
            number = len(self.result_sessions()) + 1
            if label == str(number):
                label = None
        draft = self.new_draft(number, title, section.line, label)
        nested = [c.line for c in section.walk() if c is not section and c.line in self.unit_lines]
        reader = SessionReader(draft, self.warn, skip=set(nested))
        reader.read_section(section, top=True)
        end = min([section.end, *(n - 1 for n in nested)])
        self.finish(draft, reader, trimmed_end(self.lines, end, section.line))

    def read_bold_session(self, block: Block, line: int, rest: list[Block], end: int) -> None:
        text = next(t for n, t in block.lines() if n == line)
        m = BOLD_SESSION.match(text)
        assert m is not None
        draft = self.new_draft(int(m.group(1)), f"{m.group(2)} {m.group(3)}".strip(), line, None)
        reader = SessionReader(draft, self.warn)
        reader.read_blocks([block, *rest], after=line)
        last = max([line, *(b.end for b in [block, *rest])])
        self.finish(draft, reader, trimmed_end(self.lines, min(last, end), line))

    def finish(self, draft: SessionDraft, reader: SessionReader, end: int) -> None:
        for line, text in draft.unroled if "red" in draft.steps else []:
            self.warn(line, unroled_step(text))
        if (  # a summary session (no steps of its own) under the plan's declared TDD
            self.declared_tdd
            and not draft.steps
            and (draft.test_cases or any(is_test_bullet(o.text) for o in draft.objectives))
        ):
            draft.tdd = True
        self.judge_dependency_prose(draft)
        if draft.dependencies is not None:
            self.result.stated_dependencies.add(draft.number)
        if draft.default_command is None and self.file_command is not None:
            draft.default_line, draft.default_command = self.file_command
        session = to_session(draft, self.path, self.lines, end)
        self.phases[draft.phase].sessions.append(session)

    def result_sessions(self) -> list[int]:
        return [s.number for p in self.phases.values() for s in p.sessions]

    def command_outside(self, session: Section, parts: list[Section]) -> tuple[int, str] | None:
        """(line, check) the session's own text (outside its parts) names in prose
        ("Run tests after EVERY change - `npm run test:run`")."""
        inside = {id(b) for p in parts for b in p.all_blocks()}
        for block in session.all_blocks():
            if id(block) in inside or block.kind not in ("item", "paragraph"):
                continue
            for line, text in block.lines():
                if _RUN_TESTS.search(text):
                    spans = [s for s in code_spans(text) if " " in s and as_file(s) is None]
                    if spans and (why := judge(spans[0])) is not None:
                        self.warn(line, not_a_check(spans[0], why))
                    elif spans:
                        return line, spans[0]
        return None

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
