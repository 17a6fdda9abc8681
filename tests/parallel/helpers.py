"""Plans of small independent sessions for parallel runs, their prepared solutions, and
the stand-in agent (`standin.py`) that runs them."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests import forkserver
from tests.conftest import git

STANDIN = Path(__file__).with_name("standin.py")
HOSTILE = Path(__file__).with_name("hostile.py")
PLAN = "project-plans/tools"


@dataclass
class Spec:
    """One session: a module `name.py` its GREEN step writes and a test its RED step
    writes (`tests/test_<name>.py`); `files`: what the plan lists (default both)."""

    number: int
    name: str
    test: str
    code: str
    deps: list[int] = field(default_factory=list)
    files: list[str] | None = None
    #: more files its GREEN step writes (path -> content)
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def listed(self) -> list[str]:
        return self.files if self.files is not None else [f"{self.name}.py", self.test_file]

    @property
    def test_file(self) -> str:
        return f"tests/test_{self.name}.py"


def simple(number: int, name: str, *, deps: list[int] | None = None) -> Spec:
    """A session whose function `name()` returns its own name."""
    return Spec(
        number,
        name,
        test=f"from {name} import {name}\n\n\ndef test_{name}() -> None:\n"
        f"    assert {name}() == {name!r}\n",
        code=f"def {name}() -> str:\n    return {name!r}\n",
        deps=deps or [],
    )


def _section(spec: Spec) -> str:
    deps = "\n".join(f"- Session {d}" for d in spec.deps) or "None"
    files = "\n".join(f"- `{f}`" for f in spec.listed)
    return f"""## Session {spec.number}: {spec.name.capitalize()} (TDD)

### Objectives
- [ ] Build {spec.name}

### TDD Workflow

#### Step 1: Write Tests FIRST (RED)
Create `{spec.test_file}`.

**Run tests**: `pytest {spec.test_file}`

#### Step 2: Implement (GREEN)
Create `{spec.name}.py`.

**Run tests**: Should now PASS

### Files to Create/Modify
{files}

### Exit Criteria
- [ ] Its test passes

### Dependencies
{deps}
"""


def make_project(repo: Path, specs: list[Spec], *, setup: dict[str, str] | None = None) -> Path:
    """The plan of `specs` under project-plans/tools in `repo`, and `setup` files,
    committed; returns the plan folder."""
    (repo / ".gitignore").write_text("__pycache__/\n*.pyc\n.pytest_cache/\n", encoding="utf-8")
    for rel, text in (setup or {}).items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    plan = repo / PLAN
    plan.mkdir(parents=True)
    body = "\n---\n\n".join(_section(s) for s in specs)
    text = f"# Phase 1: Tools\n\nSmall tools. Tests run with `python -m pytest`.\n\n---\n\n{body}"
    (plan / "PHASE_1_TOOLS.md").write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "add plan")
    return plan


def make_solutions(tmp: Path, specs: list[Spec]) -> Path:
    """The replay agent's prepared files for `specs`."""
    root = tmp / "solutions"
    for s in specs:
        red = root / f"session-{s.number}" / "red"
        green = root / f"session-{s.number}" / "green"
        for base, rel, text in [(red, s.test_file, s.test), (green, f"{s.name}.py", s.code),
                                *((green, p, t) for p, t in s.extra.items())]:  # fmt: skip
            (base / rel).parent.mkdir(parents=True, exist_ok=True)
            (base / rel).write_text(text, encoding="utf-8")
    return root


def agent(solutions: Path, *, script: Path = STANDIN, **flags: Any) -> str:
    """The stand-in agent's command line (`standin.py`, or `hostile.py`): flags by name
    (a dict is given as JSON)."""
    argv = [sys.executable, str(script), "--solutions", str(solutions)]
    for name, value in flags.items():
        argv += [f"--{name}", json.dumps(value) if isinstance(value, dict) else str(value)]
    return shlex.join(argv)


def records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def subjects(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s").splitlines()


def worktrees(repo: Path) -> list[str]:
    out = git(repo, "worktree", "list", "--porcelain")
    return [line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("worktree ")]


def branches(repo: Path) -> list[str]:
    return git(repo, "branch", "--format=%(refname:short)").split()


def state(plan: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((plan / ".agent-state.json").read_text("utf-8"))
    return data


def start(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """The real CLI, started (not waited for)."""
    import os

    return forkserver.popen(
        [sys.executable, "-m", "executor", *args], cwd=cwd, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **(env or {})},
    )  # fmt: skip
