"""Plan → Phase → Session models: what a parsed plan is. Pure data, no parsing here.

These field names are a contract used by the engine and by `plan validate --json`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from executor.datamodel import Strict

StepRole = Literal["red", "green", "refactor"]
Severity = Literal["error", "warning"]
#: The shape a plan was written in (docs/plan-format.md): A `phase` (PHASE files),
#: B `overview` (PROJECT_PLAN.md), C `superpowers` (task plans), D `speckit` (tasks.md),
#: E `kiro` (.kiro/specs/<feature>/tasks.md), F `taskmaster` (.taskmaster/tasks/tasks.json).
PlanFormat = Literal["phase", "overview", "superpowers", "speckit", "kiro", "taskmaster"]


class ChecklistItem(Strict):
    text: str
    checked: bool = False


class FileSpec(Strict):
    """A file the session creates or modifies, e.g. `config/settings.py (add app)`."""

    path: str
    note: str = ""
    #: Source line of the list item (None when not read from a file).
    line: int | None = None


class PlanTask(Strict):
    """One task inside a session as the plan lists it: a spec-kit `T012` line, a Task
    Master subtask. The session is what runs and commits; its tasks say what it holds."""

    #: The plan's own id (`T012`, `T006a`, `2.3`).
    label: str
    text: str
    #: Source line of the task (its box, or its `"status"` value in a tasks.json).
    line: int
    done: bool = False
    #: The step the task belongs to (spec-kit RED / GREEN / REFACTOR sections).
    role: StepRole | None = None
    files: list[str] = Field(default_factory=list)
    #: A command the task itself names ("Run `npm run typecheck`").
    command: str | None = None
    #: A check a person makes (a manual browser test, "needs manual verification").
    manual: bool = False
    #: Labels of the tasks it names as needed first ("(depends on T003)").
    depends_on: list[str] = Field(default_factory=list)


class PlanCommand(Strict):
    """A command the plan names that is not a check, where, and why: it goes to the
    agent and the person as context and never verifies a session
    (`executor.plan.commands.checks.judge`)."""

    command: str
    #: Source line (in the session's file) of the command.
    line: int
    why_not: str


class Step(Strict):
    """One TDD step (RED, GREEN or REFACTOR) of a session."""

    role: StepRole
    heading: str
    tasks: list[str] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    #: The check the step names, or None (never a command that is not a check).
    test_command: str | None = None
    #: Source line of `test_command` (None: not from a line of its own).
    command_line: int | None = None
    #: True when the step says "Should now PASS" & co: the same command as before.
    inherits: bool = False
    expected: str | None = None
    line: int


class Session(Strict):
    """One unit of work the executor runs and commits.

    `tdd=False` sessions have `red=None` and `refactor=None`: their `green` step holds the
    work, verified by the test command (the whole suite when the plan names none).
    `refactor=None` in a TDD session means the plan has no refactor step: after GREEN
    comes the commit question, and the REFACTOR agent runs only for changes asked there.
    A TDD session with `green=None` only writes failing tests (its implementation is a
    later session: a superpowers task that ends after "Run test to verify it fails").
    """

    number: int
    title: str
    phase: int
    #: The plan's own id when it is not the session number: `1.1` (superpowers `Task 1.1`,
    #: a Kiro sub-task), `A` (`Phase A`), `T006a`, a Task Master id.
    label: str | None = None
    tdd: bool = True
    objectives: list[ChecklistItem] = Field(default_factory=list)
    red: Step | None = None
    green: Step | None = None
    refactor: Step | None = None
    files: list[FileSpec] = Field(default_factory=list)
    dependencies: list[int] = Field(default_factory=list)
    exit_criteria: list[ChecklistItem] = Field(default_factory=list)
    estimated_hours: float | None = None
    estimated_tests: int | None = None
    estimated_context_tokens: int | None = None
    coverage_requirements: list[str] = Field(default_factory=list)
    next_session: int | None = None
    #: `**Test Cases to Write**` items written outside any step.
    test_cases: list[str] = Field(default_factory=list)
    #: A `**Run tests**:` command given at session level, outside any step (or the file's).
    default_test_command: str | None = None
    #: Source line of `default_test_command`.
    default_command_line: int | None = None
    #: Commands the session names that are not checks (context only), with why.
    not_checks: list[PlanCommand] = Field(default_factory=list)
    #: Line of the dependencies statement (None: not stated, or from a Mermaid graph).
    dependencies_line: int | None = None
    source_file: Path
    line_start: int
    line_end: int
    #: sha256 of the session's exact source lines; detects plan edits on resume.
    source_hash: str
    #: The session's exact markdown.
    source_text: str = ""
    #: The markdown the agent is given: `source_text` without the plan's commit steps,
    #: `git commit` blocks and commit / "do not commit" lines (committing is ours).
    brief_text: str = ""
    #: Every box in `box_lines` is ticked: the plan (or a tool) claims the session done.
    #: A claim only: the engine re-proves it with a test run.
    claimed_done: bool = False
    #: Source lines (in `source_file`) of the checkboxes that claim this session done:
    #: the steps (format C), the tasks (D), every box of the session (A, B).
    box_lines: list[int] = Field(default_factory=list)
    #: Human checkpoints to hold at the end of the session (`**Checkpoint**:` text).
    checkpoints: list[str] = Field(default_factory=list)
    #: True when the plan gives only a bullet summary and the steps were derived from it
    #: (RED: failing tests for the bullets; GREEN; REFACTOR) with the project's command.
    derived: bool = False
    #: The plan marks the session optional (Kiro `- [ ]* 2.3`): run only when asked for.
    optional: bool = False
    #: The session is a human checkpoint, not agent work (Kiro `N. Checkpoint - ...`, a
    #: user-acceptance task): a person confirms it; nothing is implemented.
    is_checkpoint: bool = False
    #: The planning tool's own status word (Task Master `pending`, `in-progress`,
    #: `deferred`, `cancelled`; Kiro `[-]` reads `in-progress`); None when it has none.
    status: str | None = None
    #: Task Master: the tag (`master`) the task belongs to.
    tag: str | None = None
    #: Documents the agent should read with the session (Kiro's requirements.md and
    #: design.md beside the tasks.md).
    context_files: list[Path] = Field(default_factory=list)
    #: The tasks the session holds (spec-kit task lines, Task Master subtasks).
    tasks: list[PlanTask] = Field(default_factory=list)

    @property
    def left_out(self) -> str | None:
        """Why a plan or phase run leaves this session out (None: it runs)."""
        if self.optional:
            return "optional"
        if self.status in {"cancelled", "deferred"}:
            return self.status
        return None

    def step(self, role: StepRole) -> Step | None:
        return {"red": self.red, "green": self.green, "refactor": self.refactor}[role]

    def test_command(self, role: StepRole, default: str | None = None) -> str | None:
        """The check that verifies `role` (see `verification`); only ever a check."""
        return self.verification(role, default).command

    def verification(self, role: StepRole, default: str | None = None) -> Verification:
        """Which command verifies `role` and where it comes from: its own, else the
        nearest earlier step's, else the session-level command, else the session's
        first named command, else `default` (the project's test command)."""
        order: list[StepRole] = ["red", "green", "refactor"]
        for r in reversed(order[: order.index(role) + 1]):
            step = self.step(r)
            if step is not None and step.test_command:
                return Verification(step.test_command, "step", step.command_line, r)
        if self.default_test_command:
            return Verification(self.default_test_command, "session", self.default_command_line)
        for r in order:
            step = self.step(r)
            if step is not None and step.test_command:
                return Verification(step.test_command, "step", step.command_line, r)
        if default:
            return Verification(default, "project", narrowed=self.red is not None)
        return Verification(None, "none")


@dataclass(frozen=True)
class Verification:
    """The command that verifies a step and its provenance (never leaves the process)."""

    command: str | None
    #: `step` (a step's own line), `session` (the session's or the file's test
    #: command), `project` (the project's test command), `none` (no command at all).
    source: Literal["step", "session", "project", "none"]
    line: int | None = None
    #: The step whose command it is (source `step`).
    role: StepRole | None = None
    #: The project's command is narrowed at run time to the test files RED wrote.
    narrowed: bool = False

    def origin(self, path: Path | None = None, asked: StepRole | None = None) -> str:
        """Where the command comes from, in words (`plan show`, the checkpoint)."""
        where = f"{path.name}:{self.line}" if path is not None and self.line else ""
        at = f"line {self.line}" if self.line else ""
        place = where or at
        if self.source == "step":
            whose = f"the {self.role.upper()} step's command" if self.role else "the plan"
            again = f", run again for {asked.upper()}" if asked and asked != self.role else ""
            return f"{whose}{again}" + (f" ({place})" if place else "")
        if self.source == "session":
            return "the plan's test command for the session" + (f" ({place})" if place else "")
        if self.source == "project":
            if self.narrowed:
                return "the project's test command, narrowed to the tests RED writes"
            return "the project's test command"
        return "none: the plan names no check and the project sets no test command"


class Phase(Strict):
    number: int
    name: str
    #: The plan's own id when it is not the number (`1A`, `3.1`, a Kiro group `2`).
    label: str | None = None
    source_file: Path | None = None
    #: Line of the `Phase N` heading (None when the number came from the file name only).
    line: int | None = None
    sessions: list[Session] = Field(default_factory=list)


class Outline(Strict):
    """One session as the schedule and the status table see it (no parsing needed)."""

    number: int
    phase: int
    title: str
    dependencies: list[int] = Field(default_factory=list)
    #: The RED step's test command, if the plan names one (what "the suite" defaults to).
    red_command: str | None = None
    #: Why a plan or phase run leaves it out ("optional", a planning tool's "cancelled"
    #: or "deferred"); None: it runs. `execute-session N` runs it all the same.
    left_out: str | None = None


#: How a folder with no plan file in it is reported (the loader adds what is below it).
NO_PLAN_FILES = "no plan files here"


class Diagnostic(Strict):
    severity: Severity
    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.severity}: {self.message}"


class Plan(Strict):
    name: str
    #: The plan folder (for a single-file plan: the file's folder).
    folder: Path
    #: The format the plan was read as (detected, or forced with `--format`).
    format: PlanFormat = "phase"
    #: The file read for a single-file plan (None for a folder).
    source_file: Path | None = None
    phases: list[Phase] = Field(default_factory=list)
    diagnostics: list[Diagnostic] = Field(default_factory=list)

    def sessions(self) -> list[Session]:
        return [s for p in self.phases for s in p.sessions]

    def session(self, number: int) -> Session | None:
        return next((s for s in self.sessions() if s.number == number), None)

    def phase(self, number: int) -> Phase | None:
        return next((p for p in self.phases if p.number == number), None)

    def outline(self) -> list[Outline]:
        """Every session's number, phase, title and dependencies, in plan order."""
        return [
            Outline(
                number=s.number,
                phase=s.phase,
                title=s.title,
                dependencies=list(s.dependencies),
                red_command=s.test_command("red"),
                left_out=s.left_out,
            )
            for s in self.sessions()
        ]

    def phase_names(self) -> dict[int, str]:
        return {p.number: p.name for p in self.phases}

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]
