"""Markdown plans -> Plan/Phase/Session models, and the plan lint.

Pure: text in, models and diagnostics out. Importing this package (or
`executor.plan.models`) loads no parser: the exit-42 resume path only needs the models,
so the readers, the vocabulary's patterns and the lint are imported on first call.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from executor.errors import PlanInvalidError

if TYPE_CHECKING:
    from executor.plan.models import Diagnostic, Plan

__all__ = ["PlanInvalidError", "discover_plan", "lint", "load_plan"]


def load_plan(path: Path, format: str | None = None, tag: str | None = None) -> Plan:
    """The plan at `path` (folder or file), in the detected or the given format (`tag`:
    the Task Master tag to read)."""
    from executor.plan.loader import load_plan as _load_plan

    return _load_plan(path, format, tag)


def lint(plan: Plan, *, project_test_command: str | None = None) -> list[Diagnostic]:
    """Parse diagnostics plus the plan rules, sorted by file and line."""
    from executor.plan.linting.rules import lint as _lint

    return _lint(plan, project_test_command=project_test_command)


def discover_plan(cwd: Path) -> Path:
    """The one plan under `cwd` (see `executor.plan.discover`); UserError otherwise."""
    from executor.plan.discover import discover_plan as _discover_plan

    return _discover_plan(cwd)
