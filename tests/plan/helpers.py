"""Write inline markdown plans into tmp_path and load them."""

from __future__ import annotations

import textwrap
from pathlib import Path

from executor.plan import lint, load_plan
from executor.plan.models import Diagnostic, Plan


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def load(tmp_path: Path, text: str, name: str = "PHASE_1_CORE.md") -> Plan:
    return load_plan(write(tmp_path, name, text))


def messages(diags: list[Diagnostic], severity: str | None = None) -> list[tuple[str, int, str]]:
    return [
        (d.path.name, d.line, d.message)
        for d in diags
        if severity is None or d.severity == severity
    ]


def lint_messages(plan: Plan, severity: str | None = None, **kw: str) -> list[tuple[str, int, str]]:
    return messages(lint(plan, **kw), severity)


SESSION = """
## Session {n}: Thing {n} (TDD)

### Objectives
- [ ] Build thing {n}

#### Step 1: Write Tests FIRST (RED)
Create `tests/test_{n}.py`:
- Test thing {n}

**Run tests**: `pytest tests/test_{n}.py`

#### Step 2: Implement (GREEN)
- Implement thing {n}

**Run tests**: Should now PASS

### Files to Create/Modify
- `thing_{n}.py`

### Exit Criteria
- [ ] Tests pass

### Dependencies
{deps}
"""


def session(n: int, deps: str = "None") -> str:
    return SESSION.format(n=n, deps=deps)
