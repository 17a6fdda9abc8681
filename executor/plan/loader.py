"""`load_plan(path, format=None, tag=None)`: a plan folder or file, in any format -> `Plan`.

One seam, one reader per format (`PlanReader`): A `phase` and B `overview`
(`executor.plan.readers.phases`), C `superpowers`, D `speckit`, E `kiro`, F `taskmaster`. The
format is detected (`executor.plan.formats`) unless the caller forces one. Content
problems never raise: they become `plan.diagnostics`. A plan that yields no session
says what the file is when it is another format ("this is a Kiro tasks.md"), never
only "no sessions found".
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from executor.errors import PathNotFoundError
from executor.plan.formats import (
    KINDS,
    describe,
    detect,
    detect_text,
    format_named,
    others_beside,
    plan_file,
    resemblance,
)
from executor.plan.models import NO_PLAN_FILES, Diagnostic, Plan, PlanFormat
from executor.plan.readers.account import unread
from executor.plan.text.markdown import kept
from executor.plan.text.paths import relativize


class PlanReader(Protocol):
    """Reads one plan format into the format-neutral models."""

    format: PlanFormat

    def read(self, path: Path) -> Plan:
        """The plan at `path` (a folder or file the format accepts); never raises for
        content: problems go to `plan.diagnostics` with file:line."""
        ...


def reader_for(fmt: PlanFormat, tag: str | None = None) -> PlanReader:
    """The reader for `fmt` (each imported only when needed)."""
    if fmt in ("phase", "overview"):
        from executor.plan.readers.phases import PhaseReader

        return PhaseReader(fmt)
    if fmt == "superpowers":
        from executor.plan.readers.superpowers import SuperpowersReader

        return SuperpowersReader()
    if fmt == "kiro":
        from executor.plan.readers.kiro import KiroReader

        return KiroReader()
    if fmt == "taskmaster":
        from executor.plan.readers.taskmaster import TaskmasterReader

        return TaskmasterReader(tag)
    from executor.plan.readers.speckit import SpeckitReader

    return SpeckitReader()


def load_plan(path: Path, format: str | None = None, tag: str | None = None) -> Plan:
    """Parse the plan at `path` (folder or file); missing path -> PathNotFoundError, an
    unknown `format` name -> UserError. `tag` picks a Task Master tag."""
    path = Path(path).expanduser().absolute()
    if not path.exists():
        raise PathNotFoundError(f"plan not found: {path}", path=path)
    if format is None:
        fmt, target = detect(path)
    else:
        fmt = format_named(format)
        target = (
            plan_file(path, fmt) if path.is_dir() and fmt not in ("phase", "overview") else path
        )
    with _collector_paused(), kept():
        plan = reader_for(fmt, tag).read(target)
        plan.format = fmt
        plan.diagnostics += unread(plan)  # every work-shaped line read, or named
    if target.is_dir():
        for other in others_beside(target, fmt):
            plan.diagnostics.append(
                Diagnostic(
                    severity="warning",
                    path=other,
                    line=1,
                    message=f"a plan in another format, not read with this folder's "
                    f"{describe(fmt)} plan; to use it: --plan {other}",
                )
            )
    relativize(plan, target)
    _finish(plan, target)
    return plan


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Reading a plan makes many short-lived objects and no reference cycles; with the
    cycle collector on, each of its full passes walks every session already built, so a
    5,000-session plan took 1.4 times five 1,000-session ones and the CLI a fifth more
    CPU on 1,000 (benchmarks/parse_plan.py). Paused while reading, then restored."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _finish(plan: Plan, where: Path) -> None:
    if not plan.sessions():
        empty = next((d for d in plan.diagnostics if d.message.startswith(NO_PLAN_FILES)), None)
        if empty is not None:  # a folder of plans, not a plan: say which ones
            below = plans_below(where)
            if below:
                names = ", ".join(p.relative_to(where).as_posix() for p in below)
                empty.message += f"; plans in its subfolders: {names} (name one with --plan)"
        elif not plan.errors:  # an unreadable file already says why (one error, not two)
            line, message = _refusal(plan, where)
            plan.diagnostics.append(
                Diagnostic(severity="error", path=where, line=line, message=message)
            )
    plan.diagnostics.sort(key=lambda d: (str(d.path), d.line))


def plans_below(folder: Path) -> list[Path]:
    """Plan folders one level under `folder`, and the plans `discover_plan` looks for."""
    from executor.plan.discover import find_plans, is_plan_folder

    found = [d for d in sorted(folder.glob("*/")) if is_plan_folder(d)]
    return [*found, *(p for p in find_plans(folder) if p not in found and p != folder)]


def _refusal(plan: Plan, where: Path) -> tuple[int, str]:
    """(line, message) for a plan that gave no session: the format the file resembles and
    the line that broke it, when its shape shows one; else what its format expects."""
    text = where.read_text(encoding="utf-8", errors="replace") if where.is_file() else ""
    other = detect_text(text, where.name) if text else None
    if other is not None and other != plan.format:  # what it is, not what it is not
        return 1, (
            f"no sessions found: this is {KINDS[other]}, not {KINDS[plan.format]}: read it "
            f"without --format, or with --format {other}"
        )
    said = _what_it_is(plan, text)
    if said or not text or where.suffix == ".json":
        return 1, _NO_SESSIONS[plan.format] + said
    found = resemblance(text)
    if found is None:
        return 1, _NO_SESSIONS[plan.format]
    fmt, line, broken, why = found
    hint = f" (read it with --format {fmt})" if fmt != plan.format else ""
    shown = broken if len(broken) <= 60 else broken[:57] + "..."
    return line, f"no sessions found: this reads like {KINDS[fmt]} ('{shown}'), but {why}{hint}"


def _what_it_is(plan: Plan, text: str) -> str:
    """Why a file of its format gave no sessions: a template, or an overview whose
    sessions live elsewhere."""
    if _PLACEHOLDER_HEADING.search(text) is not None:
        return (
            " (its headings hold {{...}} placeholders: this is a template to fill in, not a plan)"
        )
    if plan.phases and plan.format in ("phase", "overview"):
        names = ", ".join(p.label or str(p.number) for p in plan.phases)
        return (
            f" ({KINDS[plan.format]} with phases {names} but no sessions: "
            "their sessions are written in the phase files)"
        )
    return ""


_PLACEHOLDER_HEADING = re.compile(r"^#{1,6}[^\n]*\{\{\s*\w+\s*\}\}", re.M)


_NO_SESSIONS: dict[PlanFormat, str] = {
    "phase": "no sessions found; expected headings like '## Session 1: Title'",
    "overview": "no sessions found; expected headings like '#### Session 1: Title'",
    "superpowers": "no tasks found; expected headings like '### Task 1: Title'",
    "speckit": "no phases with tasks found; expected '## Phase 1: Setup' and "
    "'- [ ] T001 ...' task lines",
    "kiro": "no tasks found; expected '- [ ] 1. Title' and '- [ ] 1.1 Title' task lines",
    "taskmaster": 'no tasks found; expected {"tasks": [{"id": 1, "title": ...}]}',
}
