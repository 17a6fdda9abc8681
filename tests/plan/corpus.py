"""Every plan the tests can read: our fixtures and examples, the real plans kept in the
repository (tests/plan/real/files), and, where this machine has them, the real plans kept
beside it: the folder `EXECUTOR_REAL_PLANS` names (laid out like tests/plan/real/files) and
the shared plans `EXECUTOR_WILD_PLANS` names."""

from __future__ import annotations

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REAL = Path(__file__).parent / "real"
OUTSIDE = Path(os.environ.get("EXECUTOR_REAL_PLANS") or REAL / "beside")
WILD = Path(os.environ.get("EXECUTOR_WILD_PLANS") or REAL / "wild")
_NOT_PLANS = {"README.md", "speckit.tasks-command.md", "PHASE_TASKS_TEMPLATE.md"}


def real_plan(plan_path: str) -> Path | None:
    """A real plan's file: in the repository when its licence let us copy it, else
    beside it (None when neither is here)."""
    for base in (REAL / "files", OUTSIDE):
        if (base / plan_path).is_file():
            return base / plan_path
    return None


def real_plans() -> list[Path]:
    found = []
    for expected in sorted((REAL / "expected").glob("*.json")):
        path = real_plan(json.loads(expected.read_text(encoding="utf-8"))["plan_path"])
        if path is not None:
            found.append(path)
    return found


def corpus() -> list[Path]:
    """Plan files and folders, each once."""
    fixtures = ROOT / "tests" / "plan" / "fixtures"
    found = [p for p in sorted(fixtures.rglob("*")) if p.is_file() and p.suffix in (".md", ".json")]
    found += sorted(p for p in (ROOT / "plans" / "examples").iterdir() if p.is_dir())
    found += real_plans()
    if WILD.is_dir():
        found += [p for p in sorted(WILD.rglob("*.md")) if p.name not in _NOT_PLANS]
    return list(dict.fromkeys(found))
