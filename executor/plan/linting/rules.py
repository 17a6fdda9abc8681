"""`lint(plan)`: the parse diagnostics plus the plan-level rules, each with file:line.

A command the plan names that is not a check (`executor.plan.commands.checks`) is a warning at its
line: it stays context and never verifies a session.

Errors (the plan cannot be executed as written): duplicate session numbers, a
dependency on a missing session, dependency cycles, a TDD session without a RED or
GREEN step, a step that says "run the tests" when no step names a command (unless the
project configures one), file paths that leave the repository. Warnings: gaps in the
numbering; no exit criteria or files list (formats A and B, where plans carry them);
once per plan: the sessions whose steps were derived from a bullet summary, and the
sessions that name no test command while the project configures none; a session
that still holds `executor init`'s placeholder feature.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from executor.plan.commands.checks import not_a_check
from executor.plan.linting.graph import find_cycles, graph_of
from executor.plan.models import Diagnostic, Plan, PlanFormat, Session, Severity, Step
from executor.plan.text.vocabulary import path_problem


def lint(plan: Plan, *, project_test_command: str | None = None) -> list[Diagnostic]:
    """All diagnostics for `plan`, sorted by file and line (errors and warnings)."""
    found = list(plan.diagnostics)
    duplicates = _duplicates(plan)
    found += duplicates
    # with two sessions of one number the graph is ambiguous: no cycle it shows is real
    found += _dependencies(plan, cycles=not duplicates)
    found += _numbering(plan)
    for session in plan.sessions():
        found += _session_rules(session, project_test_command, plan.format)
        found += _starter_placeholder(session)
    found += _plan_rules(plan, project_test_command)
    unique = {(d.severity, str(d.path), d.line, d.message): d for d in found}
    return sorted(unique.values(), key=lambda d: (str(d.path), d.line, d.severity != "error"))


def _diag(severity: Severity, path: Path, line: int, message: str) -> Diagnostic:
    return Diagnostic(severity=severity, path=path, line=line, message=message)


def _where(session: Session) -> str:
    return f"{session.source_file.name}:{session.line_start}"


def _duplicates(plan: Plan) -> list[Diagnostic]:
    first: dict[int, Session] = {}
    out: list[Diagnostic] = []
    for s in plan.sessions():
        if s.number in first:
            out.append(
                _diag(
                    "error",
                    s.source_file,
                    s.line_start,
                    f"duplicate session number {s.number}: Session {s.number} is "
                    f"already defined at {_where(first[s.number])}",
                )
            )
        else:
            first[s.number] = s
    return out


def _dependencies(plan: Plan, *, cycles: bool) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    numbers = {s.number for s in plan.sessions()}
    for s in plan.sessions():
        line = s.dependencies_line or s.line_start
        for dep in s.dependencies:
            if dep not in numbers:
                out.append(
                    _diag(
                        "error",
                        s.source_file,
                        line,
                        f"Session {s.number} depends on Session {dep}, which does not exist",
                    )
                )
    for cycle in find_cycles(graph_of(plan)) if cycles else []:
        first = plan.session(cycle[0])
        assert first is not None
        chain = " -> ".join(f"Session {n}" for n in cycle)
        out.append(
            _diag(
                "error",
                first.source_file,
                first.dependencies_line or first.line_start,
                f"dependency cycle: {chain}",
            )
        )
    return out


def _numbering(plan: Plan) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if plan.format == "speckit":
        return out  # a phase is numbered as its author wrote it; an empty one is no session
    ordered = sorted({s.number: s for s in plan.sessions()}.items())
    for (a, _), (b, sb) in pairwise(ordered):
        if b > a + 1:
            missing = f"Session {a + 1}" if b == a + 2 else f"Sessions {a + 1}-{b - 1}"
            out.append(
                _diag(
                    "warning",
                    sb.source_file,
                    sb.line_start,
                    f"gap in session numbering: {missing} missing before Session {b}",
                )
            )
    return out


_STEP_HINT: dict[PlanFormat, str] = {
    "phase": "expected a heading naming it, e.g. '#### Step: ... ({role})'",
    "overview": "expected a heading naming it, e.g. '#### Step: ... ({role})'",
    "superpowers": "expected a step such as '- [ ] **Step 1: Write the failing test**' "
    "(RED) or '- [ ] **Step 3: Write minimal implementation**' (GREEN)",
    "speckit": "expected a '### Tests for ...' section (RED) and implementation tasks (GREEN)",
    "kiro": "expected a task that implements it",
    "taskmaster": "expected a task that implements it",
}


def _session_rules(
    s: Session, project_test_command: str | None, fmt: PlanFormat
) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    path, line = s.source_file, s.line_start
    if s.tdd and s.red is not None and s.green is None:
        out.append(
            _diag(
                "warning",
                path,
                line,
                f"Session {s.number} only writes failing tests (its implementation comes in a "
                "later session): it is committed with its tests failing, after RED",
            )
        )
    elif s.tdd:
        for role, step in (("RED", s.red), ("GREEN", s.green)):
            if step is None:
                out.append(
                    _diag(
                        "error",
                        path,
                        line,
                        f"Session {s.number} is a TDD session but has no {role} step; "
                        + _STEP_HINT[fmt].format(role=role),
                    )
                )
        if _says_run_without_command(s, project_test_command):
            out.append(
                _diag(
                    "error",
                    path,
                    line,
                    f"Session {s.number} has no test command: no step gives one in "
                    "'**Run tests**: `command`' and no project test command is "
                    "configured (--test-command)",
                )
            )
    for command in s.not_checks:
        out.append(
            _diag("warning", path, command.line, not_a_check(command.command, command.why_not))
        )
    named = {f.path: f.line or line for f in reversed(s.files)}  # each path once, first line
    for file_path, file_line in sorted(named.items(), key=lambda item: item[1]):
        problem = path_problem(file_path)
        if problem:
            out.append(
                _diag(
                    "error",
                    path,
                    file_line,
                    f"file path '{file_path}' leaves the repository: it {problem}",
                )
            )
    if fmt in ("phase", "overview") and not s.derived:
        if not s.exit_criteria:
            out.append(_diag("warning", path, line, f"Session {s.number} has no exit criteria"))
        if not s.files:
            out.append(_diag("warning", path, line, f"Session {s.number} has no files list"))
    return out


#: What every session `executor init` writes holds where the person's own first feature
#: belongs (`executor.starter.plans`): the plan validates, with a warning while it is left.
STARTER_PLACEHOLDER = "the first behaviour the feature must have"


def _starter_placeholder(s: Session) -> list[Diagnostic]:
    at = s.source_text.find(STARTER_PLACEHOLDER)
    if at < 0:
        return []
    line = s.line_start + s.source_text.count("\n", 0, at)
    return [
        _diag(
            "warning",
            s.source_file,
            line,
            f"Session {s.number} still holds executor init's placeholder feature "
            f"({STARTER_PLACEHOLDER!r}): replace it with your own first feature before "
            "running the plan",
        )
    ]


def _steps(s: Session) -> list[Step]:
    return [step for step in (s.red, s.green, s.refactor) if step is not None]


def _says_run_without_command(s: Session, project_test_command: str | None) -> bool:
    """A step says "run the tests" (`Should now PASS`) but no step names the command."""
    return s.test_command("green", project_test_command) is None and any(
        step.inherits for step in _steps(s)
    )


def _plan_rules(plan: Plan, project_test_command: str | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    derived = [s for s in plan.sessions() if s.derived]
    if derived:
        first = derived[0]
        out.append(
            _diag(
                "warning",
                first.source_file,
                first.line_start,
                f"{_sessions(derived)}: steps derived from the bullet summary: a TDD "
                "session runs as RED (failing tests for its bullets), GREEN and REFACTOR, "
                "another as one implementation step, with the project's test command",
            )
        )
    unnamed = [
        s
        for s in plan.sessions()
        if s.green is not None
        and not s.is_checkpoint
        and s.test_command("green", project_test_command) is None
        and not _says_run_without_command(s, project_test_command)
    ]
    if unnamed:
        first = unnamed[0]
        out.append(
            _diag(
                "warning",
                first.source_file,
                first.line_start,
                f"{_sessions(unnamed)}: no test command in the plan and none configured "
                "for the project: set test_command under [tool.executor] in "
                "pyproject.toml (or in .executor.toml), or pass --test-command",
            )
        )
    return out


def _sessions(sessions: list[Session]) -> str:
    """`Session 4` / `Sessions 1-3, 7`."""
    numbers = sorted({s.number for s in sessions})
    parts: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    word = "Session" if len(numbers) == 1 else "Sessions"
    return f"{word} {', '.join(parts)}"
