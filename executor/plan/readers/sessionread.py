"""What one PHASE-file session holds, read from its heading section.

Each sub-heading says what its section is: a TDD step (`#### Step 1: ... (RED)`,
`### 1.2 GREEN - Implement`), a `TDD Workflow` whose list items are the steps, a named
section (`Files to Create`, `Exit Criteria`, `Dependencies` ...), a verification
(`### 4.2 TypeScript Check`: its shell block is a command), or the commit (`git add`
paths). Inside a section, a bold label (`**Files to Create**:`, `**Run tests**:`) says
what the lines after it are, up to the next label or heading.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from executor.plan.commands.checks import judge
from executor.plan.commands.written import block_command, text_command
from executor.plan.models import ChecklistItem, FileSpec, PlanCommand, Step, StepRole
from executor.plan.readers.drafts import SessionDraft, StepDraft
from executor.plan.text import stepwords, words
from executor.plan.text import vocabulary as voc
from executor.plan.text.files import as_file, is_tree, list_item_files, tree_paths
from executor.plan.text.inline import code_spans, plain, read_label
from executor.plan.text.markdown import Block, Section

_VALUE_KINDS = ("time", "tests_count", "context", "next", "dependencies", "status")
#: Sections a step heading's sub-sections may be without leaving the step.
_STEP_KINDS = (None, "test_cases", "files", "run", "expected")
_NUMBER_PREFIX = re.compile(r"^\d+(?:\.\d+)*\.?\s+")
_FILE_LABEL = re.compile(r"^(?:\*\*|__)`([^`]+)`(?:\*\*|__)\s*(?:\([^)]*\))?\s*:?\s*$")
_RUN_TESTS = re.compile(r"\brun\b[^`]*\btests?\b", re.I)
_GIT_ADD = re.compile(r"^\s*git\s+add\s+(.+)$")
_STEPS_LABEL = re.compile(rf"^(?:{words.STEP})(?:s|e)?$", re.I)
_LEAD_SPAN = re.compile(r"\s*`([^`]+)`")
_TREE_INFO = ("", "text", "tree", "txt", "plaintext", "plain")

Warn = Callable[[int, str], None]


def unroled_step(text: str) -> str:
    return (
        f"step heading '{text}' names no TDD role; expected RED, GREEN "
        "or REFACTOR in its words (e.g. 'Step 1: Write Tests FIRST (RED)')"
    )


class SessionReader:
    def __init__(self, draft: SessionDraft, warn: Warn, skip: set[int] | None = None) -> None:
        self.d = draft
        self.warn = warn
        #: heading lines of sections that are sessions of their own (not read here)
        self.skip = skip or set()
        #: what the current lines are (a section kind, "tasks" in a step, "ignore")
        self.kind: str | None = None
        self.step: StepDraft | None = None
        #: under a `TDD Workflow` heading: bold list items open steps
        self.workflow = False
        #: under a verification heading, or in a step that runs tests: shell blocks
        #: are verification commands
        self.verifying = False
        #: `**Run tests**:` with no command: the next shell block is the command
        self.awaiting = False

    # --- sections ------------------------------------------------------------------

    def read_section(self, section: Section, *, top: bool = False) -> None:
        if not top and section.heading is not None:
            self.enter(section.heading)
        self.read_blocks(section.blocks)
        for child in section.children:
            if child.line in self.skip:
                continue
            saved = (self.kind, self.step, self.workflow, self.verifying)
            self.read_section(child)
            self.kind, self.step, self.workflow, self.verifying = saved

    def enter(self, heading: Block) -> None:
        """A sub-heading: what the lines under it are."""
        text = _NUMBER_PREFIX.sub("", plain(heading.text, ticks=False))
        line = heading.line
        self.d.subheadings += 1
        self.awaiting = self.workflow = self.verifying = False
        role = stepwords.step_role(text)
        if role.role is not None:
            self.open_step(role.role, text, line, from_heading=True)
            self.kind = "tasks"
            return
        kind = voc.section_kind(text)
        if role.container or kind == "container":
            self.workflow, self.kind, self.step = True, "ignore", None
            return
        if role.unrecognised_step and "red" in self.d.steps:
            self.warn(line, unroled_step(text))
            self.step, self.kind = None, "ignore"
            return
        if role.unrecognised_step:  # the work, unless a RED step follows (`finish` says)
            self.d.unroled.append((line, text))
            self.open_step("green", text, line, from_heading=False)
            self.kind = "tasks"
            return
        meaning = stepwords.step_meaning(text)
        if meaning == "commit":
            self.step, self.kind = None, "commit"
            return
        if self.step is not None and kind in _STEP_KINDS:
            self.kind = kind or "tasks"
            return
        self.step = None
        if kind is None and meaning.startswith("verify") and not stepwords.is_manual(text):
            self.verifying = True
        self.kind = kind or "ignore"

    def open_step(self, role: StepRole, heading: str, line: int, *, from_heading: bool) -> None:
        found = self.d.steps.get(role)
        if found is not None:
            if from_heading and found.from_heading:
                self.warn(
                    line,
                    f"Session {self.d.number} has a second {role.upper()} step "
                    f"(first at line {found.step.line}); its tasks are added to the first",
                )
            self.step = found
            return
        self.step = StepDraft(Step(role=role, heading=heading, line=line), from_heading)
        self.d.steps[role] = self.step

    # --- blocks --------------------------------------------------------------------

    def read_blocks(self, blocks: list[Block], *, after: int = 0) -> None:
        for block in blocks:
            if block.kind == "code":
                self.on_code(block)
            elif block.kind == "paragraph":
                for line, text in block.lines():
                    if line >= after:
                        self.on_line(text, line)
            elif block.kind == "item":
                self.on_item(block)

    def on_code(self, block: Block) -> None:
        if block.info.lower().startswith("mermaid"):
            return
        if block.info.lower() in _TREE_INFO and is_tree(block.text) and self.kind != "commit":
            self.read_tree(block)  # a directory tree lists the files it makes, any section
            return
        if self.kind == "commit":
            for offset, raw in enumerate(block.text.split("\n")):
                if m := _GIT_ADD.match(raw):
                    for word in m.group(1).replace("\\", " ").split():
                        if (path := as_file(word)) and not word.startswith("-"):
                            self.d.staged.append((path, block.line + 1 + offset))
            return
        command = block_command(block.text, block.info)
        if self.awaiting and self.step is not None:
            self.awaiting = False
            if command and self.check(command, block.line):
                self.set_command(command, block.line)
            return
        if command and self.verifying and self.check(command, block.line):
            self.d.verify.append((block.line, command))
            if self.step is not None and self.step.step.test_command is None:
                self.step.step.test_command = command
                self.step.step.command_line = block.line

    def on_item(self, item: Block) -> None:
        if item.checked is not None:
            self.d.boxes.append((item.line, item.checked))
        first, *rest = item.lines()
        text = first[1]
        others: list[tuple[int, str]] = []
        for line, more in rest:
            if more.startswith(("**", "__")) or re.match(r"(?i)(run|expected)\s*:", more):
                others.append((line, more))
            else:
                text = f"{text} {more.strip()}"
        if not (self.workflow and item.level == 0 and self.workflow_step(text, item.line, True)):
            labelled = read_label(text)
            kind = voc.section_kind(labelled.label) if labelled else None
            if labelled is not None and kind not in (None, "container"):
                self.on_label(kind, labelled.rest, item.line, in_item=True)
            else:
                if self.kind in (None, "tasks", "objectives"):  # not a files list, a criterion
                    self.step_check(text, item.line)
                self.on_text(text, item.line, checked=item.checked, in_item=True)
        for line, more in others:
            self.on_line(more, line)

    def on_line(self, text: str, line: int) -> None:
        if self.workflow and self.workflow_step(text, line):
            return
        if m := _FILE_LABEL.match(text):
            if path := as_file(m.group(1)):
                self.add_file(FileSpec(path=path, line=line))
            return
        labelled = read_label(text)
        if labelled is not None:
            kind = voc.section_kind(labelled.label)
            if kind is not None and kind != "container":
                self.on_label(kind, labelled.rest, line)
                return
            if not labelled.rest.strip() and self.step is None:
                # `**Schritte:**` outside a step lists the work; `**Metrics:**` something else
                self.kind = "objectives" if _STEPS_LABEL.match(labelled.label) else "ignore"
                return
        if self.step is not None and _RUN_TESTS.search(text):
            if (command := text_command(text)) is not None:
                if self.check(command, line):
                    self.set_command(command, line)
            elif self.step.step.test_command is None:
                self.step.step.inherits = True
        self.on_text(text, line, checked=None)

    def workflow_step(self, text: str, line: int, item: bool = False) -> bool:
        """`1. **Test First**: ...` / `**Implement**: ...` under a `TDD Workflow` heading
        opens a step; its rest and the nested bullets are the step's tasks. A "Test
        First" that runs the existing tests writes none: it is verification."""
        labelled = read_label(text)
        if labelled is None:
            return False
        meaning = stepwords.step_meaning(labelled.label)
        role = stepwords.step_role(labelled.label).role or stepwords.MEANING_ROLE.get(meaning)
        if voc.section_kind(labelled.label) not in (
            (None, "dependencies", "run") if item else (None,)
        ):
            return False
        runs = stepwords.step_meaning(labelled.rest).startswith("verify")
        if role is None:
            return False
        if role == "red" and runs:
            role = "green"
        self.open_step(role, plain(text, ticks=False), line, from_heading=False)
        self.verifying = runs or meaning.startswith("verify")
        assert self.step is not None
        self.kind = "tasks"
        if rest := plain(labelled.rest):
            self.step.step.tasks.append(rest)
            self.collect_paths(labelled.rest, line)
        return True

    # --- content -------------------------------------------------------------------

    def on_label(self, kind: str, rest: str, line: int, *, in_item: bool = False) -> None:
        """`**Label**: rest`: a one-line value, or the start of a section (list follows)."""
        self.awaiting = False
        value = plain(rest)
        if kind == "run":
            self.read_command(rest, line)
            return
        if kind == "expected":
            if self.step is not None:
                self.step.step.expected = plain(rest, ticks=False)
            return
        if kind in _VALUE_KINDS:
            if value:
                problem = self.d.read_value(kind, plain(rest, ticks=False), line)
                if problem:
                    self.warn(line, problem)
                self.kind = None if self.step is None else self.kind
            else:
                self.kind, self.step = kind, None
            return
        if kind == "files" and self.step is not None:
            if value:
                self.read_file_spec(rest, line)
            else:
                self.kind = "files"
            return
        self.kind = kind
        if kind not in ("test_cases", "tasks"):
            self.step = None  # bold-label sections other than test cases are session-level
        if value:
            self.on_text(rest, line, checked=None, in_item=True)

    def step_check(self, text: str, line: int) -> None:
        """An item that runs a check to verify (`Run `npx tauri build` to verify the full
        bundle works`): its step's command, or the session's outside steps."""
        if (command := text_command(text)) is None:
            return
        if not stepwords.step_meaning(text).startswith("verify") or not self.check(command, line):
            return
        if self.step is None:  # a summary's item: the session's verification
            self.d.verify.append((line, command))
        else:
            self.set_command(command, line)

    def check(self, command: str, line: int) -> bool:
        """A check may verify; any other command is kept, with why, as context."""
        why = judge(command)
        if why is not None and command not in {c.command for c in self.d.not_checks}:
            self.d.not_checks.append(PlanCommand(command=command, line=line, why_not=why))
        return why is None

    def set_command(self, command: str, line: int) -> None:
        assert self.step is not None
        step = self.step.step
        step.test_command, step.command_line, step.inherits = command, line, False

    def read_command(self, rest: str, line: int) -> None:
        spans = code_spans(rest)
        if self.step is None:
            if spans and self.check(spans[0], line):
                self.d.default_command, self.d.default_line = spans[0], line
            return
        step = self.step.step
        if spans:
            if self.check(spans[0], line):
                self.set_command(spans[0], line)
        elif plain(rest, ticks=False):
            step.inherits = step.test_command is None
        else:
            self.awaiting = True  # the command follows in a fenced block

    def on_text(
        self, children: str, line: int, *, checked: bool | None, in_item: bool = False
    ) -> None:
        """A paragraph line or list item inside the current section."""
        d = self.d
        kind = self.kind
        text = plain(children)
        if not text:
            return
        if self.step is not None and kind in ("tasks", "test_cases", "files"):
            self.collect_paths(children, line)
            if kind == "files" and in_item:
                self.read_file_spec(children, line)
            elif in_item or kind == "test_cases":
                self.step.step.tasks.append(text)
            return
        if kind is None:
            if in_item and self.step is None:
                d.objectives.append(ChecklistItem(text=text, checked=bool(checked)))
        elif kind == "objectives":
            d.objectives.append(ChecklistItem(text=text, checked=bool(checked)))
        elif kind == "exit":
            d.exit_criteria.append(ChecklistItem(text=text, checked=bool(checked)))
            self.criterion_command(children, line)
        elif kind == "files" and in_item:
            self.read_file_spec(children, line)
        elif kind == "test_cases":
            d.test_cases.append(text)
        elif kind == "coverage":
            d.coverage.append(plain(children, ticks=False))
        elif kind in _VALUE_KINDS:
            problem = d.read_value(kind, plain(children, ticks=False), line)
            if problem:
                self.warn(line, problem)

    def criterion_command(self, text: str, line: int) -> None:
        """`**Erfolgskriterium:** `pytest` mit > 80% Coverage`: a criterion that opens with
        a command verifies the session when it is a check (else it is named, with why)."""
        lead = _LEAD_SPAN.match(text)  # the criterion is the command's outcome
        command = lead.group(1) if lead and as_file(lead.group(1)) is None else ""
        if command and (" " in command or judge(command) is None) and self.check(command, line):
            self.d.verify.append((line, command))

    def collect_paths(self, text: str, line: int = 0) -> None:
        """Paths a step's text names are the step's files; one that leaves the
        repository is also listed for the session, so lint names it at its line."""
        if self.step is None:
            return
        files = self.step.step.files
        for span in code_spans(text):
            if voc.looks_like_path(span) and span not in files:
                files.append(span)
                if voc.path_problem(span) and line:
                    self.add_file(FileSpec(path=span, note="named in a step", line=line))

    def read_file_spec(self, children: str, line: int) -> None:
        specs = list_item_files(children, line)
        if not specs:
            text = plain(children, ticks=False)
            self.warn(line, f"cannot read a file path in '{text}'; expected '- `path/to/file`'")
        for spec in specs:
            self.add_file(spec)

    def add_file(self, spec: FileSpec) -> None:
        if spec.path not in {f.path for f in self.d.files}:
            self.d.files.append(spec)
        if self.step is not None and spec.path not in self.step.step.files:
            self.step.step.files.append(spec.path)

    def read_tree(self, block: Block) -> None:
        """A `Files to Create` directory tree in a fenced block -> file paths."""
        drawn = tree_paths(block.text)
        for path, note, offset in drawn:
            self.add_file(FileSpec(path=path, note=note, line=block.line + 1 + offset))
        if len(roots := {p.split("/", 1)[0] for p, _, _ in drawn}) == 1:
            self.d.tree_roots |= roots
