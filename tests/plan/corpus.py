"""Every plan the tests can read: our fixtures and examples, the real plans kept in the
repository (tests/plan/real/files), and, where this machine has them, the real plans kept
beside it: in the folders PE_TESTS_REAL_PLANS and PE_TESTS_WILD_PLANS name (by default
`realplans` and `shared/plans-wild` beside the repository's folder)."""

from __future__ import annotations

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REAL = Path(__file__).parent / "real"


def _beside(variable: str, default: str) -> Path:
    """A folder of plans kept outside the repository: the one `variable` names, else
    `default` beside the repository's folder."""
    named = os.environ.get(variable)
    return Path(named) if named else ROOT.parent / default


#: plans whose licence keeps them out of the repository (tests/plan/real/SOURCES.md)
OUTSIDE = _beside("PE_TESTS_REAL_PLANS", "realplans")
#: plans of other tools, shared beside the repository (tests/plan/test_wild.py)
WILD = _beside("PE_TESTS_WILD_PLANS", "shared/plans-wild")
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
