"""Reading a plan file: UTF-8 text, or a `file:line` diagnostic saying why not."""

from __future__ import annotations

from pathlib import Path

from executor.plan.models import Diagnostic, Plan, PlanFormat


def file_plan(path: Path, name: str, fmt: PlanFormat) -> tuple[Plan, str | None]:
    """An empty plan read from the one file `path`, and its text (None when it cannot
    be read: the plan then holds the error)."""
    text, problems = read_source(path)
    plan = Plan(name=name, folder=path.parent, source_file=path, format=fmt)
    plan.diagnostics.extend(problems)
    return plan, text


def read_source(path: Path) -> tuple[str | None, list[Diagnostic]]:
    """The file's text, or None and the error (not UTF-8, unreadable) as a diagnostic."""
    try:
        data = path.read_bytes()
    except OSError as e:
        message = f"cannot read the plan file: {e.strerror or e}"
        return None, [Diagnostic(severity="error", path=path, line=1, message=message)]
    try:
        return data.decode("utf-8-sig"), []  # a BOM (editors on Windows) is not text
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        message = f"not UTF-8 text (byte {e.start}); save the plan as UTF-8"
        return None, [Diagnostic(severity="error", path=path, line=line, message=message)]
