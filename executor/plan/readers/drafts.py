"""What the PHASE-file parser fills in while it reads a session (its draft), and how a
draft becomes a `Session` once its section ends."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from executor.plan.models import (
    ChecklistItem,
    Diagnostic,
    FileSpec,
    Phase,
    PlanCommand,
    Session,
    Step,
)
from executor.plan.readers.mermaid import Edge
from executor.plan.text import stepwords
from executor.plan.text import vocabulary as voc
from executor.plan.text.files import as_file
from executor.plan.text.inline import code_spans
from executor.plan.text.sessiontext import located


@dataclass
class FileResult:
    path: Path
    phases: list[Phase] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Session numbers whose dependencies were stated in prose (not just absent).
    stated_dependencies: set[int] = field(default_factory=set)
    #: Phase -> the phases it waits for, from a table of phases (`phasedeps`).
    phase_waits: dict[int, list[int]] = field(default_factory=dict)


@dataclass
class StepDraft:
    step: Step
    #: True when a heading opened it (a second heading for the same role is warned about;
    #: a `TDD Workflow` list item and the detail headings after it are not).
    from_heading: bool = False


@dataclass
class SessionDraft:
    number: int
    title: str
    phase: int
    line: int
    tdd: bool
    hours: float | None
    label: str | None = None
    optional: bool = False
    objectives: list[ChecklistItem] = field(default_factory=list)
    exit_criteria: list[ChecklistItem] = field(default_factory=list)
    files: list[FileSpec] = field(default_factory=list)
    steps: dict[str, StepDraft] = field(default_factory=dict)
    dependencies: list[int] | None = None
    dependencies_line: int | None = None
    coverage: list[str] = field(default_factory=list)
    test_cases: list[str] = field(default_factory=list)
    tests: int | None = None
    context_tokens: int | None = None
    next_session: int | None = None
    default_command: str | None = None
    default_line: int | None = None
    #: Commands the session names that are not checks (kept as context, with why).
    not_checks: list[PlanCommand] = field(default_factory=list)
    #: (line, ticked) of every checkbox item in the session
    boxes: list[tuple[int, bool]] = field(default_factory=list)
    #: `**Status**: ✅ Completed`, or a heading that says COMPLETE.
    said_done: bool = False
    subheadings: int = 0
    #: (line, text) of `Step N:` headings naming no TDD role: the work of a session
    #: with no TDD steps, a slip in one that has them.
    unroled: list[tuple[int, str]] = field(default_factory=list)
    #: The one top folder of each directory tree it draws (`personal-aid/`).
    tree_roots: set[str] = field(default_factory=set)
    #: (line, check) of the session's verification sections and steps, in order.
    verify: list[tuple[int, str]] = field(default_factory=list)
    #: Paths its commit block stages (`git add PATH`).
    staged: list[tuple[str, int]] = field(default_factory=list)
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
            if self.tests is None:  # `**Tests:** Sidecar lifecycle (start, ...)`: what they test
                self.test_cases.append(text)
        elif kind == "context":
            self.context_tokens = voc.parse_count(text)
        elif kind == "next":
            m = re.search(r"session\s+#?(\d+)", text, re.I)
            self.next_session = int(m.group(1)) if m else None
        elif kind == "dependencies":
            self.read_dependencies(text, line)
        elif kind == "status":
            self.said_done = self.said_done or voc.says_done(text)
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
    steps = {role: draft.step for role, draft in d.steps.items()}
    derived = not steps and not d.subheadings and bool(d.objectives)
    if derived:
        steps = _derive_steps(d)
    tdd = "red" in steps or (d.tdd and not derived)
    if not tdd:
        steps = {"green": _one_step(d, steps)}
    green = steps.get("green")
    if green is not None and green.test_command is None and not green.inherits and d.verify:
        green.command_line, green.test_command = d.verify[-1]
    named_in = [(n, "named in a step", st.line) for st in steps.values() for n in st.files]
    named_in += [  # a bullet summary's paths: `Rate limit `apps/x/throttling.py``
        (n, "named in its work", d.line)
        for o in d.objectives
        for n in code_spans(o.text)
        if not n.startswith("/")  # `/api/posts/`: a route
    ]
    files = _under_project(d.files, d.tree_roots, [n for n, _, _ in named_in])
    known = {f.path for f in files}
    for named, note, line in named_in:
        if named in known or as_file(named) is None or any(k.endswith("/" + named) for k in known):
            continue  # `apps/users/models.py` beside the list's `backend/apps/users/models.py`
        files.append(FileSpec(path=named, note=note, line=line))
        known.add(named)
    for staged, line in d.staged:
        if staged not in {f.path for f in files}:
            files.append(FileSpec(path=staged, note="staged by the commit step", line=line))
    boxes = [ticked for _, ticked in d.boxes]
    return Session(
        number=d.number,
        title=d.title,
        phase=d.phase,
        label=d.label,
        optional=d.optional,
        tdd=tdd,
        objectives=d.objectives,
        red=steps.get("red"),
        green=green,
        refactor=steps.get("refactor"),
        files=files,
        dependencies=d.dependencies or [],
        exit_criteria=d.exit_criteria,
        estimated_hours=d.hours,
        estimated_tests=d.tests,
        estimated_context_tokens=d.context_tokens,
        coverage_requirements=d.coverage,
        next_session=d.next_session,
        test_cases=d.test_cases,
        default_test_command=d.default_command,
        default_command_line=d.default_line,
        not_checks=d.not_checks,
        dependencies_line=d.dependencies_line,
        **located(path, lines, d.line, end),
        box_lines=[line for line, _ in d.boxes],
        claimed_done=d.said_done or (bool(boxes) and all(boxes)),
        derived=derived,
        checkpoints=list(
            dict.fromkeys(
                t
                for t in [
                    *(o.text for o in d.objectives),
                    *(t for r, st in steps.items() if r != "red" for t in st.tasks),  # not tests
                ]
                if stepwords.by_hand(t)
            )
        ),
    )


def _under_project(files: list[FileSpec], drawn: set[str], named: list[str]) -> list[FileSpec]:
    """`files` without the top folder of the tree that drew them all when the session
    names the same files without it: a tree drawn under `personal-aid/` while the steps
    change `src-tauri/Cargo.toml` is drawn from above the project."""
    if len(drawn) != 1:
        return list(files)
    roots = {f.path.split("/", 1)[0] for f in files}
    if roots != drawn or any("/" not in f.path for f in files):
        return list(files)
    root = roots.pop() + "/"
    if not any(root + n in {f.path for f in files} for n in named if not n.startswith(root)):
        return list(files)
    return [f.model_copy(update={"path": f.path.removeprefix(root)}) for f in files]


def _one_step(d: SessionDraft, steps: dict[str, Step]) -> Step:
    """A session that is not TDD: its steps (or, with none, the session itself) as the
    one GREEN step that holds the work."""
    found = list(steps.values())
    if not found:
        return Step(
            role="green", heading=d.title, line=d.line, tasks=[o.text for o in d.objectives]
        )
    first = found[0]
    chosen = next((s for s in reversed(found) if s.test_command), None)
    command = chosen.test_command if chosen is not None else None
    return Step(
        role="green",
        heading=first.heading,
        line=first.line,
        tasks=[t for s in found for t in s.tasks],
        files=list(dict.fromkeys(f for s in found for f in s.files)),
        test_command=command,
        command_line=chosen.command_line if chosen is not None else None,
        inherits=any(s.inherits for s in found) and command is None,
        expected=next((s.expected for s in found if s.expected), None),
    )


_SAYS_TDD = re.compile(r"\bTDD\b")  # `Write tests first (TDD - existing functionality)`
_TEST_BULLET = re.compile(r"^(?:\*\*|__)?(?:write\s+(?:\w+\s+)?tests?|tests?)\b", re.I)


def is_test_bullet(text: str) -> bool:
    """A summary bullet about the session's tests (`**Tests:** ...`, `Write unit tests`)."""
    return _TEST_BULLET.match(text) is not None


def _derive_steps(d: SessionDraft) -> dict[str, Step]:
    """A bullet-summary session (format B, a checklist of work): TDD when its title says
    so or its first bullet writes tests, then RED holds the test bullets (all of them
    when none is one), GREEN the rest, and REFACTOR follows; else one GREEN step."""
    bullets = [o.text for o in d.objectives]
    if not (d.tdd or _TEST_BULLET.match(bullets[0]) or any(_SAYS_TDD.search(b) for b in bullets)):
        return {}
    tests = [b for b in bullets if _TEST_BULLET.match(b)] or d.test_cases or bullets
    work = [b for b in bullets if b not in tests] or list(bullets)
    return {
        "red": Step(
            role="red", heading="Write failing tests for the summary", tasks=tests, line=d.line
        ),
        "green": Step(role="green", heading="Implement the summary", tasks=work, line=d.line),
        "refactor": Step(role="refactor", heading="Refactor", line=d.line),
    }
