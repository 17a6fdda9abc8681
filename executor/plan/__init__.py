"""Markdown plans -> Plan/Phase/Session models, and the plan lint.

Pure: text in, models and diagnostics out. No heavy imports (the exit-42 resume path
loads plans and is measured in milliseconds).
"""

from __future__ import annotations

from executor.errors import PlanInvalidError
from executor.plan.lint import lint
from executor.plan.loader import load_plan

__all__ = ["PlanInvalidError", "lint", "load_plan"]
