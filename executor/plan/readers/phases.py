"""Readers A and B: PHASE files and the PROJECT_PLAN.md overview (a folder or one file).

A folder holds PHASE_*.md files and/or PROJECT_PLAN.md. PHASE files win for every
session they describe; PROJECT_PLAN.md (the overview) supplies dependencies (prose or
its Mermaid graph) and estimates the PHASE files leave out, and the sessions no PHASE
file covers. An overview read on its own whose sessions state no dependencies and
draw no graph runs in plan order (each session after the previous one).
Content problems never raise: they become `plan.diagnostics`.
"""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

from executor.plan.models import (
    NO_PLAN_FILES,
    Diagnostic,
    Phase,
    Plan,
    PlanFormat,
    Session,
)
from executor.plan.readers.drafts import FileResult
from executor.plan.readers.mermaid import Edge
from executor.plan.readers.parser import parse_file
from executor.plan.text.markdown import source_lines
from executor.plan.text.source import read_source
from executor.plan.text.vocabulary import PHASE_FILE

OVERVIEW_NAMES = ("PROJECT_PLAN.md", "project_plan.md", "Project_Plan.md")


class PhaseReader:
    """Format A (`phase`) or B (`overview`): the same parser, folder or single file."""

    def __init__(self, format: PlanFormat) -> None:
        self.format: PlanFormat = format

    def read(self, path: Path) -> Plan:
        if path.is_dir():
            return _load_folder(path)
        folder = path.parent
        result = _read(path, overview=self.format == "overview")
        plan = Plan(name=_plan_name(folder, [result]), folder=folder, source_file=path)
        plan.diagnostics.extend(result.diagnostics)
        plan.phases = result.phases
        _apply_edges(plan, result)
        if not result.edges and not result.stated_dependencies:
            _plan_order(plan)
        _phase_waits(plan, result.phase_waits)
        return plan


def _read(path: Path, *, overview: bool = False) -> FileResult:
    text, problems = read_source(path)
    if text is None:
        result = FileResult(path)
        result.diagnostics.extend(problems)
        return result
    return parse_file(path, text, overview=overview)


def _plan_order(plan: Plan) -> None:
    """No dependency stated anywhere: each session depends on the one before it."""
    sessions = plan.sessions()
    for before, after in pairwise(sessions):
        after.dependencies = [before.number]


def _phase_waits(plan: Plan, waits: dict[int, list[int]]) -> None:
    """A table of phases says what each phase waits for: its first session waits for
    the last session of each (unless it states its own dependencies)."""
    held = {p.number: sorted(s.number for s in p.sessions) for p in plan.phases if p.sessions}
    for phase, befores in waits.items():
        first = plan.session(held[phase][0]) if phase in held else None
        if first is not None and first.dependencies_line is None:
            first.dependencies = [held[b][-1] for b in befores if b in held]


def _phase_key(p: Path) -> tuple[int, str]:
    m = PHASE_FILE.match(p.name)
    return (int(m.group(1)) if m else 0, p.name)


def _load_folder(folder: Path) -> Plan:
    phase_files = sorted(
        (p for p in folder.iterdir() if p.is_file() and PHASE_FILE.match(p.name)), key=_phase_key
    )
    overview_path = next((folder / n for n in OVERVIEW_NAMES if (folder / n).is_file()), None)
    results = [_read(p) for p in phase_files]
    overview = _read(overview_path, overview=True) if overview_path else None
    plan = Plan(name=_plan_name(folder, results + ([overview] if overview else [])), folder=folder)
    for r in results:
        plan.diagnostics.extend(r.diagnostics)
    plan.phases = _merge_phases([p for r in results for p in r.phases])
    explicit = {n for r in results for n in r.stated_dependencies}
    for r in results:
        _apply_edges(plan, r)
    if overview is not None:
        plan.diagnostics.extend(overview.diagnostics)
        _merge_overview(plan, overview, explicit)
        if not results and not overview.edges and not overview.stated_dependencies:
            _plan_order(plan)
    if not phase_files and overview is None:
        plan.diagnostics.append(
            Diagnostic(
                severity="error",
                path=folder,
                line=1,
                message=f"{NO_PLAN_FILES}; expected PHASE_<n>_<NAME>.md files and/or "
                "PROJECT_PLAN.md, a spec-kit tasks.md, or a superpowers plan (a file)",
            )
        )
    return plan


def _merge_phases(phases: list[Phase]) -> list[Phase]:
    """Phases of the same number from several files become one (sessions in file order)."""
    merged: dict[int, Phase] = {}
    for phase in phases:
        if phase.number in merged:
            merged[phase.number].sessions.extend(phase.sessions)
        else:
            merged[phase.number] = phase
    return [merged[n] for n in sorted(merged)]


def _merge_overview(plan: Plan, overview: FileResult, explicit: set[int]) -> None:
    """Fill what PHASE files leave out from PROJECT_PLAN.md (see module docstring)."""
    by_number = {s.number: s for s in plan.sessions()}
    only_overview: set[int] = set()
    for ophase in overview.phases:
        for osession in ophase.sessions:
            session = by_number.get(osession.number)
            if session is None:
                only_overview.add(osession.number)
                phase = plan.phase(ophase.number)
                if phase is None:
                    phase = Phase(
                        number=ophase.number,
                        name=ophase.name,
                        source_file=ophase.source_file,
                        line=ophase.line,
                    )
                    plan.phases.append(phase)
                    plan.phases.sort(key=lambda p: p.number)
                phase.sessions.append(osession)
                continue
            phase = plan.phase(session.phase)
            if phase is not None and not phase.name:
                phase.name = ophase.name
            if session.number not in explicit and osession.number in overview.stated_dependencies:
                session.dependencies = list(osession.dependencies)
                session.dependencies_line = None
                explicit.add(session.number)
            elif (
                session.number in explicit
                and osession.number in overview.stated_dependencies
                and sorted(osession.dependencies) != sorted(session.dependencies)
            ):
                _disagree(
                    plan,
                    session,
                    osession.dependencies,
                    overview.path,
                    osession.dependencies_line or osession.line_start,
                )
            if session.estimated_hours is None:
                session.estimated_hours = osession.estimated_hours
            if session.estimated_tests is None:
                session.estimated_tests = osession.estimated_tests
    graph = _edges_by_target(overview.edges)
    for number, edges in graph.items():
        session = plan.session(number)
        if session is None:
            continue
        deps = [e.before for e in edges]
        if number not in explicit:
            session.dependencies = list(dict.fromkeys(deps))
            explicit.add(number)
        elif sorted(set(deps)) != sorted(session.dependencies) and number not in only_overview:
            _disagree(plan, session, deps, overview.path, edges[0].line)
    for phase in plan.phases:
        phase.sessions.sort(key=lambda s: s.number)


def _disagree(plan: Plan, session: Session, other: list[int], path: Path, line: int) -> None:
    mine = ", ".join(map(str, sorted(session.dependencies))) or "none"
    theirs = ", ".join(map(str, sorted(set(other)))) or "none"
    plan.diagnostics.append(
        Diagnostic(
            severity="warning",
            path=path,
            line=line,
            message=f"Session {session.number} dependencies differ: {session.source_file.name} "
            f"says {mine}, this file says {theirs}; using {session.source_file.name}",
        )
    )


def _edges_by_target(edges: list[Edge]) -> dict[int, list[Edge]]:
    graph: dict[int, list[Edge]] = {}
    for edge in edges:
        graph.setdefault(edge.after, []).append(edge)
    return graph


def _apply_edges(plan: Plan, result: FileResult) -> None:
    """Mermaid edges in the same file add to the sessions' stated dependencies."""
    for number, edges in _edges_by_target(result.edges).items():
        session = plan.session(number)
        if session is None:
            continue
        for edge in edges:
            if edge.before not in session.dependencies:
                session.dependencies.append(edge.before)


def _plan_name(folder: Path, results: list[FileResult]) -> str:
    for r in results:
        if r.path.name.lower() == "project_plan.md":
            try:
                first = source_lines(r.path.read_text(encoding="utf-8").lstrip())[0]
            except (OSError, UnicodeDecodeError, IndexError):
                break
            if first.startswith("# "):
                title = re.sub(r"^project plan\s*[-–—:]\s*", "", first[2:].strip(), flags=re.I)
                return re.sub(r"\s*[-–—:]\s*project plan$", "", title, flags=re.I)
    return folder.name
