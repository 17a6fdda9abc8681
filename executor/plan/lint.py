"""`lint(plan)`: the parse diagnostics plus the plan-level rules, each with file:line.

Errors (the plan cannot be executed as written): duplicate session numbers, a
dependency on a missing session, dependency cycles, a TDD session without a RED or
GREEN step, a TDD session with no test command anywhere (unless the project configures
one), file paths that leave the repository. Warnings: gaps in the numbering, no exit
criteria, no files list.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from executor.plan.graph import find_cycles, graph_of
from executor.plan.models import Diagnostic, Plan, Session, Severity
from executor.plan.vocabulary import path_problem


def lint(plan: Plan, *, project_test_command: str | None = None) -> list[Diagnostic]:
    """All diagnostics for `plan`, sorted by file and line (errors and warnings)."""
    found = list(plan.diagnostics)
    found += _duplicates(plan)
    found += _dependencies(plan)
    found += _numbering(plan)
    for session in plan.sessions():
        found += _session_rules(session, project_test_command)
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


def _dependencies(plan: Plan) -> list[Diagnostic]:
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
    for cycle in find_cycles(graph_of(plan)):
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


def _session_rules(s: Session, project_test_command: str | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    path, line = s.source_file, s.line_start
    if s.tdd:
        for role, step in (("RED", s.red), ("GREEN", s.green)):
            if step is None:
                out.append(
                    _diag(
                        "error",
                        path,
                        line,
                        f"Session {s.number} is a TDD session but has no {role} step; "
                        f"expected a heading naming it, e.g. '#### Step: ... ({role})'",
                    )
                )
        has_steps = s.red is not None or s.green is not None
        if has_steps and s.test_command("green", project_test_command) is None:
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
    named = [(f.path, f.line or line) for f in s.files]
    for step in (s.red, s.green, s.refactor):
        if step is not None:
            named += [(p, step.line) for p in step.files]
    for file_path, file_line in named:
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
    if not s.exit_criteria:
        out.append(_diag("warning", path, line, f"Session {s.number} has no exit criteria"))
    if not s.files:
        out.append(_diag("warning", path, line, f"Session {s.number} has no files list"))
    return out
