"""A one-phase plan and a stand-in agent that does its steps for real (tests that fail,
then code that passes), for the review's end-to-end tests: real git, real pytest, the
real CLI, in seconds. The plan's title and the agent's answers hold markup, as an
untrusted plan or agent may."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from tests.conftest import git, run_cli

HOSTILE = "<script>alert(1)</script>"

PLAN = f"""# Phase 1: Arithmetic

## Session 1: Adder {HOSTILE} (TDD)

### Objectives
- [ ] Add two numbers <b>exactly</b>

### TDD Workflow

#### Step 1: Write Tests FIRST (RED)
Create `tests/test_calc.py`.

**Run tests**: `pytest tests/test_calc.py`

#### Step 2: Implement (GREEN)
Create `calc.py`.

**Run tests**: Should now PASS

#### Step 3: Refactor (REFACTOR)
- tidy

**Run tests**: Should still PASS

### Files to Create/Modify
- `calc.py`
- `tests/test_calc.py`

### Dependencies
None
"""

AGENT = f'''
import os, pathlib
step = os.environ["EXECUTOR_TDD_STEP"]
root = pathlib.Path.cwd()
if step == "red":
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests/test_calc.py").write_text(
        "from calc import add\\n\\n\\ndef test_adds():\\n    assert add(2, 3) == 5\\n\\n\\n"
        "def test_adds_negatives():\\n    assert add(-2, -3) == -5\\n"
    )
elif step == "green":
    sign = "-" if os.environ.get("STANDIN_BROKEN") else "+"
    (root / "calc.py").write_text("def add(a, b):\\n    return a " + sign + " b\\n")
else:
    (root / "calc.py").write_text('def add(a, b):\\n    """a + b"""\\n    return a + b\\n')
print("did " + step + " {HOSTILE}")
'''


def tiny_project(repo: Path) -> Path:
    """The one-phase plan committed in `repo`; its folder."""
    (repo / ".gitignore").write_text("__pycache__/\n*.pyc\n.pytest_cache/\n", encoding="utf-8")
    plan = repo / "plans" / "calc"
    plan.mkdir(parents=True)
    (plan / "PHASE_1_ARITHMETIC.md").write_text(PLAN, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "add the plan")
    return plan


def agent_command(folder: Path) -> str:
    script = folder / "standin_agent.py"
    script.write_text(AGENT, encoding="utf-8")
    return shlex.join([sys.executable, str(script)])


def run_phase(repo: Path, plan: Path, *extra: str) -> None:
    """Run phase 1 to its end, every checkpoint approved by --yes."""
    proc = run_cli(
        "execute-phase", "1", "--plan", str(plan), "--agent-command",
        agent_command(repo.parent), "--yes", *extra, cwd=repo,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
