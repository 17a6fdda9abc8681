"""A plan read the way tests/plan/real/expected/*.json write a careful person's reading.

Each session becomes one row: number, label, title, phase, tdd, files, the command each
step runs, dependencies, optional / checkpoint / done. Conventions of those files that
differ from ours only in form are bridged here, not in the parser:
- phases without a heading of their own (one implicit phase) read `phase: null`;
- a step's command is the one it names, or the one it inherits when it says "run the
  tests"; a step the plan does not have reads null;
- titles are compared as plain text, `(TDD)` (our `tdd`) and `...` (the reader's
  elisions) aside; files as sets, the author's absolute checkout paths read relative;
- spec-kit: our session is the phase (what runs and commits); the expected files list
  one row per task, compared with our `Session.tasks` (their dependencies are not ours
  to compare: a phase waits for phases);
- `human_check` (in the readings gathered from issue 38 on): the session holds a check a
  person makes (a checkpoint session, or a human checkpoint at its end).
"""

from __future__ import annotations

import re
from typing import Any

from executor.plan.models import Plan, PlanTask, Session, Step, StepRole
from executor.plan.text.inline import plain
from executor.plan.text.paths import author_root

ROLES: tuple[StepRole, ...] = ("red", "green", "refactor")
FIELDS = ("label", "title", "phase", "tdd", "files", "test_commands", "dependencies",
          "optional", "checkpoint", "human_check", "done")  # fmt: skip


def rows(plan: Plan) -> list[dict[str, Any]]:
    """Our reading, one row per unit the expected files count as a session."""
    if plan.format == "speckit":
        return _task_rows(plan)
    headed = {p.number for p in plan.phases if p.line is not None}
    return [
        {
            "number": s.number,
            "label": s.label or str(s.number),
            "title": s.title,
            "phase": s.phase if s.phase in headed else None,
            "tdd": s.tdd,
            "files": sorted({f.path for f in s.files}),
            "test_commands": {r: _command(s, r) for r in ROLES},
            "dependencies": sorted(s.dependencies),
            "optional": s.optional,
            "checkpoint": s.is_checkpoint,
            "human_check": s.is_checkpoint or bool(s.checkpoints),
            "done": s.claimed_done,
        }
        for s in plan.sessions()
    ]


def _command(session: Session, role: StepRole) -> str | None:
    step: Step | None = session.step(role)
    if step is None:
        return None
    if step.test_command:
        return step.test_command
    return session.test_command(role) if step.inherits else None


def _task_rows(plan: Plan) -> list[dict[str, Any]]:
    tasks: list[tuple[Session, PlanTask]] = [(s, t) for s in plan.sessions() for t in s.tasks]
    ordinal = {t.label: i for i, (_, t) in enumerate(tasks, start=1)}
    return [
        {
            "number": i,
            "label": t.label,
            "title": t.text,
            "phase": s.phase,
            "tdd": t.role == "red",
            "files": sorted(set(t.files)),
            "test_commands": {
                "red": t.command if t.role == "red" else None,
                "green": t.command if t.role != "red" else None,
                "refactor": None,
            },
            "dependencies": sorted(ordinal[d] for d in t.depends_on if d in ordinal),
            "optional": False,
            "checkpoint": t.manual,
            "human_check": t.manual,
            "done": t.done,
        }
        for i, (s, t) in enumerate(tasks, start=1)
    ]


def normal_title(title: str) -> str:
    text = plain(title, ticks=False)
    text = re.sub(r"\s*\(TDD\)", "", text)
    return re.sub(r"\s+", " ", text).strip()


def title_matches(ours: str, expected: str) -> bool:
    """`expected` may elide with `...` (or `(...)`)."""
    mine, theirs = normal_title(ours), normal_title(expected)
    if "..." not in theirs:
        return mine == theirs
    pattern = ".*".join(re.escape(p.strip()) for p in re.split(r"\(?\.\.\.\)?", theirs))
    return re.fullmatch(pattern, mine) is not None


def relative(files: list[str], roots: list[str]) -> list[str]:
    out = []
    for f in files:
        root = next((r for r in roots if f.startswith(r)), None)
        out.append(f[len(root) :] if root else f)
    return sorted(set(out))


def differences(plan: Plan, expected: dict[str, Any]) -> list[tuple[int, str, str, str]]:
    """(expected session number, field, ours, expected) for every field that differs."""
    found: list[tuple[int, str, str, str]] = []
    ours = {r["number"]: r for r in rows(plan)}
    theirs = {s["number"]: s for s in expected["sessions"]}
    if sorted(ours) != sorted(theirs):
        found.append((0, "sessions", str(sorted(ours)), str(sorted(theirs))))
    named = [(p.number, p.name) for p in plan.phases if p.line is not None]
    wanted = [(p["number"], p["name"]) for p in expected["phases"]]
    if [(n, normal_title(t)) for n, t in named] != [(n, normal_title(t)) for n, t in wanted]:
        found.append((0, "phases", str(named), str(wanted)))
    folder = plan.source_file.parent if plan.source_file else plan.folder
    roots = sorted(
        {r for s in expected["sessions"] for f in s["files"] if (r := author_root(f, folder))}
    )
    for number in sorted(set(ours) & set(theirs)):
        mine, want = ours[number], theirs[number]
        for field in FIELDS:
            if field not in want or (field == "dependencies" and plan.format == "speckit"):
                continue
            a, b = mine[field], want[field]
            if field == "title":
                same = title_matches(a, b)
            elif field == "files":
                same = sorted(set(a)) == relative(b, roots)
            elif field == "dependencies":
                same = sorted(a) == sorted(b)
            elif field == "label":
                same = str(a) == str(b)
            else:
                same = a == b
            if not same:
                found.append((number, field, repr(a), repr(b)))
    return found
