"""Every work-shaped line is read or named (issue 28, principle 1): a property over
generated plans of every format, and the cases the issue lists."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from executor.plan import lint, load_plan
from executor.plan.models import Plan
from tests.plan.helpers import write

_RANGE = re.compile(r"\(lines? (\d+)(?:-(\d+))?\)")
_WORK = re.compile(
    r"^\s*[-*]\s+\[[ xX]\]|^\s*#{1,6}\s+(?:Session|Task|Phase|Sesion|Tsak)\s+\d", re.I
)


def _accounted(plan: Plan, path: Path, text: str) -> list[int]:
    """Work-shaped lines of `text` that no session holds and no diagnostic names."""
    ranges = [range(s.line_start, s.line_end + 1) for s in plan.sessions() if s.source_file == path]
    ranges += [range(p.line, p.line + 1) for p in plan.phases if p.line is not None]
    named: set[int] = set()
    for d in lint(plan):
        named.add(d.line)
        if m := _RANGE.search(d.message):
            named.update(range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1))
    lost = []
    fenced = False
    for n, line in enumerate(text.split("\n"), start=1):
        if line.startswith("```"):
            fenced = not fenced
        if fenced or not _WORK.match(line):
            continue
        if not any(n in r for r in ranges) and n not in named:
            lost.append(n)
    return lost


def _strays(draw: st.DrawFn) -> list[str]:
    """Work-shaped lines outside every unit: a checklist, a stray task, a typo heading."""
    lines: list[str] = []
    if draw(st.booleans()):
        lines += ["", "## Notes", ""] + [
            f"- [{draw(st.sampled_from(' x'))}] note {i}" for i in range(draw(st.integers(1, 3)))
        ]
    if draw(st.booleans()):
        lines += [
            "",
            draw(st.sampled_from(["## Sesion 9: Typo", "### Tsak 9: Typo", "## SESSION 9: Loud"])),
            "",
            "- [ ] work under it",
        ]
    return lines


@st.composite
def phase_file(draw: st.DrawFn) -> tuple[str, str]:
    lines = ["# Phase 1: Core", ""]
    for i in range(1, draw(st.integers(1, 4)) + 1):
        box = draw(st.sampled_from(" x"))
        lines += [f"## Session {i}: Part {i} (TDD)", "", "### Step 1: Write tests (RED)",
                  f"- [ ] test {i} in `tests/test_{i}.py`", "**Run tests**: `pytest -q`", "",
                  "### Step 2: Implement (GREEN)", f"- [{box}] code {i}", ""]  # fmt: skip
    return "PHASE_1_CORE.md", "\n".join(lines + _strays(draw)) + "\n"


@st.composite
def task_plan(draw: st.DrawFn) -> tuple[str, str]:
    lines = ["# Words Implementation Plan", ""]
    for i in range(1, draw(st.integers(1, 4)) + 1):
        lines += [f"### Task {i}: Count {i}", "", "- [ ] **Step 1: Write the failing test**", "",
                  "```python", f"def test_{i}(): assert False", "```", "",
                  "- [ ] **Step 2: Run test to verify it fails**", "", "Run: `pytest -q`", "",
                  "- [ ] **Step 3: Write minimal implementation**", "",
                  "- [ ] **Step 4: Commit**", ""]  # fmt: skip
    return "plan.md", "\n".join(lines + _strays(draw)) + "\n"


@st.composite
def speckit_file(draw: st.DrawFn) -> tuple[str, str]:
    lines, task = ["# Tasks: Notes", ""], 1
    for i in range(1, draw(st.integers(1, 4)) + 1):
        lines += [f"## Phase {i}: Part {i}", ""]
        for _ in range(draw(st.integers(1, 3))):
            bold = draw(st.booleans())
            label = f"**T{task:03d}**" if bold else f"T{task:03d}"
            lines.append(
                f"- [{draw(st.sampled_from(' xX'))}] {label} Do thing {task} in `src/m{task}.py`"
            )
            task += 1
        lines.append("")
    if draw(st.booleans()):
        lines += ["## Notes", "", f"- [ ] T{task:03d} A stray task after the phases", ""]
    return "tasks.md", "\n".join(lines + _strays(draw)) + "\n"


@st.composite
def kiro_file(draw: st.DrawFn) -> tuple[str, str]:
    lines = ["# Implementation Plan", ""]
    for i in range(1, draw(st.integers(1, 4)) + 1):
        lines.append(f"- [ ] {i}. Group {i}")
        for j in range(1, draw(st.integers(1, 3)) + 1):
            box, star = draw(st.sampled_from(" x")), draw(st.sampled_from(["", "*"]))
            line = f"  - [{box}]{star} {i}.{j} Sub {j}"
            lines.append(line)
            if draw(st.integers(0, 5)) == 0:
                lines.append(line)  # an editor's duplicate
            lines.append("    - detail")
    return "tasks.md", "\n".join(lines + _strays(draw)) + "\n"


@st.composite
def overview_file(draw: st.DrawFn) -> tuple[str, str]:
    lines = ["# Project Plan: Box", "", "### Phase 1: Backend", ""]
    for i in range(1, draw(st.integers(1, 4)) + 1):
        lines += [f"#### Session {i}: Part {i}", f"- [ ] bullet {i}", ""]
    return "PROJECT_PLAN.md", "\n".join(lines + _strays(draw)) + "\n"


PLANS = st.one_of(phase_file(), task_plan(), speckit_file(), kiro_file(), overview_file())


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(generated=PLANS)
def test_every_checkbox_task_and_unit_line_is_read_or_named(
    tmp_path: Path, generated: tuple[str, str]
) -> None:
    name, text = generated
    path = write(tmp_path / "gen", name, text)
    plan = load_plan(path)
    assert _accounted(plan, path, text) == []


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    count=st.integers(1, 6),
    statuses=st.lists(
        st.sampled_from(["done", "completed", "pending", "in-progress"]), min_size=6, max_size=6
    ),
)
def test_every_task_master_task_is_a_session(
    tmp_path: Path, count: int, statuses: list[str]
) -> None:
    tasks = [{"id": i, "title": f"T{i}", "status": statuses[i - 1], "dependencies": [],
              "subtasks": [{"id": f"{i}.1", "title": "s", "status": statuses[i - 1]}]}
             for i in range(1, count + 1)]  # fmt: skip
    folder = tmp_path / "tm" / ".taskmaster" / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tasks.json").write_text(json.dumps({"master": tasks}), encoding="utf-8")
    plan = load_plan(folder / "tasks.json")
    assert [s.number for s in plan.sessions()] == list(range(1, count + 1))
    assert [s.claimed_done for s in plan.sessions()] == [
        t["status"] in ("done", "completed") for t in tasks
    ]
    assert all(t.label == f"{s.number}.1" for s in plan.sessions() for t in s.tasks)


def test_the_issues_cases_are_read_or_named(tmp_path: Path) -> None:
    cases = {
        "typo": (
            "PHASE_1_CORE.md",
            "# Phase 1: Core\n\n## Session 1: A\n\n- [ ] a\n\n## Sesion 2: B\n\n- [ ] b\n",
        ),
        "open fence": (
            "plan.md",
            "# P\n\n### Task 1: A\n\n- [ ] **Step 1: Write the failing test**\n\n"
            "```python\nx = 1\n\n- [ ] **Step 2: Refactor**\n",
        ),
    }
    path = write(tmp_path, *cases["open fence"])
    errors = [(d.line, d.message[:40]) for d in lint(load_plan(path)) if d.severity == "error"]
    assert errors == [(7, "code fence opened here is never closed: ")]
    path = write(tmp_path / "a", *cases["typo"])
    plan = load_plan(path)
    assert [s.number for s in plan.sessions()] == [1, 2]  # `Sesion` is Spanish: read
