"""Starter plans: one session of real TDD work, in each format the executor runs.

Each is what `executor plan validate` accepts with no error, and reads as a template:
the person replaces the placeholder objectives and tests with their own first feature
(until they do, `plan validate` warns that `FEATURE`, the placeholder, is still there).
The files a session names follow the project's kind (a Python package and
`tests/test_core.py`, `src/<name>.js` and `test/<name>.test.js`, ...), and its commands
are the project's test command.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

from executor.plan.linting.rules import STARTER_PLACEHOLDER as FEATURE
from executor.starter.detect import Kind, counted

#: The formats `init` writes (a PROJECT_PLAN.md overview is written by a planner).
InitFormat = Literal["phase", "superpowers", "speckit", "kiro", "taskmaster"]
INIT_FORMATS: tuple[InitFormat, ...] = ("phase", "superpowers", "speckit", "kiro", "taskmaster")
#: Each format in a person's words (what the interactive question offers).
LABELS: dict[InitFormat, str] = {
    "phase": "PHASE files (project-plans/<name>/PHASE_1_*.md: sessions with RED/GREEN/REFACTOR)",
    "superpowers": "superpowers task plan (docs/superpowers/plans/<date>-<name>.md)",
    "speckit": "spec-kit tasks.md (specs/<name>/tasks.md)",
    "kiro": "Kiro task list (.kiro/specs/<name>/tasks.md)",
    "taskmaster": "Task Master tasks.json (.taskmaster/tasks/tasks.json)",
}


@dataclass(frozen=True)
class Layout:
    """Where the first feature's code and tests go, and the command that runs its tests."""

    code: tuple[str, ...]
    test: str
    #: RED's command: the session's tests alone where the runner can say so.
    red: str
    #: What the tests import (for the "it does not exist yet" expectation).
    module: str


@dataclass(frozen=True)
class StarterPlan:
    """The files of a starter plan (paths relative to the project) and what to name as
    `--plan`."""

    files: dict[str, str]
    plan: str


def layout(
    kind: Kind,
    name: str,
    test_command: str,
    *,
    package: str | None = None,
    root: Path | None = None,
) -> Layout:
    """Where the first feature goes: for Python in the project's own `package` when it
    has one (in a module of a name not taken yet in `root`), else in a new package."""
    if kind == "python":
        module = "core"
        if package is not None and root is not None:
            taken = (root / package / "core.py").exists() or (root / "tests/test_core.py").exists()
            module = "first_feature" if taken else "core"
        test = f"tests/test_{module}.py"
        red = f"{test_command} {test}" if "pytest" in test_command else test_command
        if package is not None:
            dotted = package.rsplit("/", 1)[-1]
            return Layout((f"{package}/{module}.py",), test, red, f"`{dotted}.{module}`")
        return Layout((f"{name}/__init__.py", f"{name}/core.py"), test, red,
                      f"`{name}.core`")  # fmt: skip
    if kind == "node":  # a runner the executor counts runs the session's file alone
        test = f"test/{name}.test.js"
        red = f"{test_command} {test}" if counted(test_command) else test_command
        return Layout((f"src/{name}.js",), test, red, f"`src/{name}.js`")
    if kind == "go":
        return Layout((f"{name}.go",), f"{name}_test.go", test_command, "the code under test")
    return Layout(("src/lib.rs",), f"tests/{name}.rs", test_command, f"`{name}`'s code")


def starter_plan(
    fmt: InitFormat,
    *,
    kind: Kind,
    name: str,
    folder: str,
    test_command: str,
    package: str | None = None,
    root: Path | None = None,
) -> StarterPlan:
    """The starter plan in `fmt`: `folder` names the plan (`project-plans/<folder>/`,
    `specs/<folder>/`, ...), `name` the code (or the project's own `package` in `root`);
    paths are relative to the project."""
    where = layout(kind, name, test_command, package=package, root=root)
    title = folder.replace("-", " ").replace("_", " ").title()
    if fmt == "phase":
        path = f"project-plans/{folder}/PHASE_1_FOUNDATION.md"
        return StarterPlan({path: _phase(title, where, test_command)}, f"project-plans/{folder}")
    if fmt == "superpowers":
        path = f"docs/superpowers/plans/{date.today().isoformat()}-{folder}.md"
        return StarterPlan({path: _superpowers(title, where)}, path)
    if fmt == "speckit":
        path = f"specs/{folder}/tasks.md"
        return StarterPlan({path: _speckit(title, where, test_command)}, path)
    if fmt == "kiro":
        path = f".kiro/specs/{folder}/tasks.md"
        return StarterPlan({path: _kiro(where, test_command)}, path)
    path = ".taskmaster/tasks/tasks.json"
    return StarterPlan({path: _taskmaster(title, where, test_command)}, path)


def _code(where: Layout) -> str:
    return " and ".join(f"`{c}`" for c in where.code)


def _phase(title: str, where: Layout, test_command: str) -> str:
    files = "\n".join(f"- `{f}`" for f in [*where.code, where.test])
    return f"""# Phase 1: Foundation

{title}: replace this paragraph with what the project is and what this phase builds.
Tests run from the repository root with `{test_command}`.

---

## Session 1: First Feature (TDD)

### Objectives
- [ ] Name the first thing the project must do (one objective per line)

### TDD Workflow (RED-GREEN-REFACTOR)

#### Step 1: Write Tests FIRST (RED)
Create `{where.test}`:
- Test {FEATURE}
- Test what it refuses

**Run tests**: `{where.red}`
**Expected**: All tests FAIL ({where.module} does not exist yet)

#### Step 2: Implement (GREEN)
Create {_code(where)}:
- The least code that makes the tests pass

**Run tests**: Should now PASS

#### Step 3: Refactor (REFACTOR)
- Clear names, a comment where the code needs one; no duplication

**Run tests**: Should still PASS

### Files to Create/Modify
{files}

### Estimated Context Usage
~5,000 tokens

### Exit Criteria
- [ ] All tests pass
- [ ] The whole suite passes

### Dependencies
None (first session)
"""


def _superpowers(title: str, where: Layout) -> str:
    files = "\n".join([*(f"- Create: `{c}`" for c in where.code), f"- Test: `{where.test}`"])
    return f"""# {title} Implementation Plan

> **For agentic workers:** implement this plan task by task. Steps use checkbox
> (`- [ ]`) syntax for tracking. The executor commits after each verified task.

**Goal:** replace this line with what the project is for.

**Architecture:** replace this line with how the code is laid out.

---

## Phase 1: Foundation

### Task 1: First feature

**Files:**
{files}

- [ ] **Step 1: Write the failing test**

Write `{where.test}`: a test of {FEATURE}, and one of
what it refuses.

- [ ] **Step 2: Run test to verify it fails**

Run: `{where.red}`
Expected: FAIL ({where.module} does not exist yet)

- [ ] **Step 3: Write minimal implementation**

Create {_code(where)} with the least code that makes the tests pass.

- [ ] **Step 4: Run test to verify it passes**

Run: `{where.red}`
Expected: PASS
"""


def _speckit(title: str, where: Layout, test_command: str) -> str:
    return f"""# Tasks: {title}

**Input**: replace this line with the feature these tasks build
**Test command**: `{test_command}`
**Tests**: written first: each phase's tests fail before its code is written

---

## Phase 1: First feature

**Goal**: replace this line with what the first feature does

### Tests for the first feature

- [ ] T001 Unit tests for {FEATURE} and what it refuses in {where.test}

### Implementation for the first feature

- [ ] T002 Implement the first behaviour in {where.code[-1]}
"""


def _kiro(where: Layout, test_command: str) -> str:
    return f"""# Implementation Plan

- [ ] 1. First feature
  - Create {_code(where)} with {FEATURE}
  - Write unit tests in `{where.test}`
  - Run `{test_command}`

- [ ] 2. Checkpoint - Ensure all tests pass, ask the user if questions arise.
"""


def _taskmaster(title: str, where: Layout, test_command: str) -> str:
    task = {
        "id": 1,
        "title": "First feature",
        "description": f"{title}: replace this with {FEATURE}.",
        "details": f"Create {_code(where)} with the least code the tests need.",
        "testStrategy": f"Unit tests in `{where.test}`, then run `{test_command}`.",
        "status": "pending",
        "dependencies": [],
        "priority": "high",
        "subtasks": [],
    }
    data = {"master": {"tasks": [task], "metadata": {"description": "Tasks for master context"}}}
    return json.dumps(data, indent=2) + "\n"
