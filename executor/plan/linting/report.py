"""What `executor plan validate --json` prints and what `executor plan show` draws.

`contract()` builds the public JSON (docs/plan-format.md documents its keys); `overview()`
builds the rich renderable (rich is imported inside it: this package stays light).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from executor.plan.formats import describe
from executor.plan.linting.graph import critical_path, find_cycles, graph_of, parallel_groups
from executor.plan.models import Diagnostic, Plan, Session, StepRole
from executor.project_config import ProjectConfig, map_test_command
from executor.words import plural


def display_path(path: Path, cwd: Path | None = None) -> str:
    """`path` relative to the cwd when below it, else absolute."""
    cwd = (cwd or Path.cwd()).absolute()
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def format_diagnostic(d: Diagnostic, cwd: Path | None = None) -> str:
    """`path/FILE.md:LINE: error: message`."""
    return f"{display_path(d.path, cwd)}:{d.line}: {d.severity}: {d.message}"


def summary(plan: Plan, diagnostics: list[Diagnostic]) -> str:
    errors = sum(d.severity == "error" for d in diagnostics)
    warnings = len(diagnostics) - errors
    verdict = "invalid" if errors else "valid"
    return (
        f"{plan.name}: {verdict}: format {describe(plan.format)}, "
        f"{plural(len(plan.phases), 'phase')}, "
        f"{plural(len(plan.sessions()), 'session')}, {plural(errors, 'error')}, "
        f"{plural(warnings, 'warning')}"
    )


def _session_json(s: Session, config: ProjectConfig) -> dict[str, Any]:
    return {
        "number": s.number,
        "label": s.label,
        "title": s.title,
        "phase": s.phase,
        "tdd": s.tdd,
        "objectives": [o.text for o in s.objectives],
        "files": [f.path for f in s.files],
        "dependencies": list(s.dependencies),
        "exit_criteria": [c.text for c in s.exit_criteria],
        "test_commands": {
            role: None
            if (cmd := s.test_command(role, config.test_command)) is None
            else map_test_command(cmd, config)
            for role in ("red", "green", "refactor")
        },
        "steps": {
            role: None
            if step is None
            else {
                "heading": step.heading,
                "line": step.line,
                "tasks": step.tasks,
                "files": step.files,
                "test_command": step.test_command,
                "inherits": step.inherits,
                "expected": step.expected,
            }
            for role, step in (("red", s.red), ("green", s.green), ("refactor", s.refactor))
        },
        "estimated_hours": s.estimated_hours,
        "estimated_tests": s.estimated_tests,
        "estimated_context_tokens": s.estimated_context_tokens,
        "next_session": s.next_session,
        "source_file": str(s.source_file),
        "line_start": s.line_start,
        "line_end": s.line_end,
        "source_hash": s.source_hash,
        "claimed_done": s.claimed_done,
        "box_lines": s.box_lines,
        "checkpoints": s.checkpoints,
        "derived": s.derived,
        "optional": s.optional,
        "is_checkpoint": s.is_checkpoint,
        "human_check": s.is_checkpoint or bool(s.checkpoints),
        "status": s.status,
        "tag": s.tag,
        "context_files": [str(p) for p in s.context_files],
        "tasks": [t.model_dump() for t in s.tasks],
        "verified_by": {
            role: _verified_by(s, role, config) for role in ("red", "green", "refactor")
        },
        "not_checks": [c.model_dump() for c in s.not_checks],
    }


def _verified_by(s: Session, role: StepRole, config: ProjectConfig) -> dict[str, Any] | None:
    """The check that verifies `role` (mapped as it will run) and where it comes from."""
    if s.step(role) is None:
        return None
    v = s.verification(role, config.test_command)
    command = None if v.command is None else map_test_command(v.command, config)
    return {"command": command, "source": v.source, "line": v.line,
            "origin": v.origin(s.source_file, role)}  # fmt: skip


def _diag_json(d: Diagnostic) -> dict[str, Any]:
    return {"path": str(d.path), "line": d.line, "message": d.message}


def contract(
    plan: Plan, diagnostics: list[Diagnostic], *, config: ProjectConfig | None = None
) -> dict[str, Any]:
    """The `plan validate --json` document: phases -> sessions, errors, warnings.
    Test commands are effective ones: inherited, the project's default, then mapped."""
    config = config or ProjectConfig()
    return {
        "name": plan.name,
        "format": plan.format,
        "folder": str(plan.folder),
        "valid": not any(d.severity == "error" for d in diagnostics),
        "phases": [
            {
                "number": p.number,
                "label": p.label,
                "name": p.name,
                "source_file": str(p.source_file) if p.source_file else None,
                "sessions": [_session_json(s, config) for s in p.sessions],
            }
            for p in plan.phases
        ],
        "errors": [_diag_json(d) for d in diagnostics if d.severity == "error"],
        "warnings": [_diag_json(d) for d in diagnostics if d.severity == "warning"],
    }


def schedule(plan: Plan) -> tuple[list[int], list[list[int]], bool]:
    """Critical path (by hours when every session has an estimate, else by count),
    the parallel groups, and whether the path was weighed in hours."""
    graph = graph_of(plan)
    if find_cycles(graph):
        return [], [], False
    hours = {s.number: s.estimated_hours for s in plan.sessions()}
    weighed = all(h is not None for h in hours.values()) and bool(hours)
    weight = {n: float(h) for n, h in hours.items() if h is not None} if weighed else None
    return critical_path(graph, weight), parallel_groups(graph), weighed


def _hours(plan: Plan, number: int) -> float | None:
    session = plan.session(number)
    return session.estimated_hours if session is not None else None


def checks_text(s: Session, project_command: str | None) -> list[str]:
    """Which command verifies each step of `s` and where it comes from, then the commands
    the plan names that are not checks (`plan show`, the before_start checkpoint)."""
    roles: list[StepRole] = [r for r in ("red", "green", "refactor") if s.step(r) is not None]
    out = []
    for role in roles:
        v = s.verification(role, project_command)
        shown = f"`{v.command}`" if v.command else "(no command)"
        out.append(f"{role.upper()}: {shown} <- {v.origin(s.source_file, role)}")
    for c in s.not_checks:
        out.append(f"not run (line {c.line}): `{c.command}`: {c.why_not}")
    if s.is_checkpoint:
        out.append("PERSON: the session is a checkpoint a person confirms (nothing to implement)")
    for check in s.checkpoints:
        out.append(f"PERSON: {check} (a human checkpoint; with --yes: not verified)")
    return out


def overview(plan: Plan, *, phase: int | None = None, project_command: str | None = None) -> Any:
    """A rich renderable: phases and sessions, dependencies, estimates, schedule, and the
    check that verifies each step (the plan's own words shown through `console.shown`: a
    plan is a file anyone may write)."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from executor.console import shown

    path, groups, weighed = schedule(plan)
    on_path = set(path)
    where = display_path(plan.source_file or plan.folder)
    parts: list[Any] = [
        Text(shown(f"Plan: {plan.name}  ({where}; format {describe(plan.format)})"), style="bold")
    ]
    for p in plan.phases:
        if phase is not None and p.number != phase:
            continue
        title = shown(f"Phase {p.number}: {p.name}")
        table = Table(title=title, title_justify="left", expand=False)
        for col in ("#", "Session", "TDD", "Person", "Depends on", "Hours", "Tests", "Lines"):
            table.add_column(col)
        for s in p.sessions:
            table.add_row(
                f"{'*' if s.number in on_path else ' '}{s.number}",
                shown(s.title),
                "yes" if s.tdd else "no",
                "checks" if s.is_checkpoint or s.checkpoints else "-",
                ", ".join(map(str, s.dependencies)) or "-",
                f"{s.estimated_hours:g}" if s.estimated_hours is not None else "-",
                str(s.estimated_tests) if s.estimated_tests is not None else "-",
                f"{s.line_start}-{s.line_end}",
            )
        parts.append(table)
        checks = Text()
        for s in p.sessions:
            for line in checks_text(s, project_command):
                checks.append(shown(f"  {s.number}  {line}") + "\n")
        if checks.plain:
            parts.append(Text("Verified by:", style="bold"))
            parts.append(checks)
    if path:
        total = sum(hours for n in path if (hours := _hours(plan, n)) is not None)
        unit = f"{total:g} hours" if weighed else f"{len(path)} sessions"
        chain = " -> ".join(map(str, path))
        parts.append(Text(f"Critical path (*): {chain}  ({unit})"))
    else:
        parts.append(Text("Critical path: none (the dependency graph has a cycle)"))
    for depth, group in enumerate(groups):
        if len(group) > 1:
            parts.append(
                Text(f"Could run in parallel (depth {depth}): {', '.join(map(str, group))}")
            )
    return Group(*parts)
