"""Absolute paths from the author's machine, read relative to the repository.

A plan written by an agent often names files as the author's checkout had them:
`/Users/name/Projects/app/specs/158-x/spec.md`. Where the plan itself lives
(`.../specs/158-x/tasks.md`) says where that checkout's root was: the trailing folders
of the plan's location appear in the absolute path, and what comes before them is the
author's root. Every path under it is then read relative to the repository, with one
warning for the plan; an absolute path outside it stays as written (lint names it at
its line).
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from executor.plan.models import Diagnostic, Plan


def relativize(plan: Plan, target: Path) -> None:
    """Rewrite the author-machine paths of `plan`'s sessions (files and step files)."""
    absolute = [
        (f.path, f.line or s.line_start, s.source_file)
        for s in plan.sessions()
        for f in s.files
        if f.path.startswith("/")
    ]
    if not absolute:
        return
    folder = target if target.is_dir() else target.parent
    named = [p for p, _, _ in absolute]  # and any such path the plan's text holds
    for source in {s.source_file for s in plan.sessions()}:
        named += _HOME_PATH.findall(source.read_text(encoding="utf-8", errors="replace"))
    roots = [r for p in named if (r := author_root(p, folder)) is not None]
    if not roots:
        return
    root = max(set(roots), key=roots.count)
    first = next((a for a in absolute if a[0].startswith(root)), None)
    if first is None:
        return
    for session in plan.sessions():
        for spec in session.files:
            spec.path = _under(spec.path, root)
        session.files = [f for f in session.files if f.path]
        for step in (session.red, session.green, session.refactor):
            if step is not None:
                step.files = [p for p in (_under(p, root) for p in step.files) if p]
        for task in session.tasks:
            task.files = [p for p in (_under(p, root) for p in task.files) if p]
    plan.diagnostics.append(
        Diagnostic(
            severity="warning",
            path=first[2],
            line=first[1],
            message=f"file paths from the author's machine ({root}...) are read relative "
            "to the repository",
        )
    )


_HOME_PATH = re.compile(r"(?<![\w.])/(?:Users|home)/[^\s`'\")\]]+")


def author_root(path: str, folder: Path) -> str | None:
    """The author's repository root in `path`, found from the plan's own folder: the
    longest run of `folder`'s trailing names that `path` holds ends at the same place in
    both (`/Users/x/app/specs/158-x/spec.md` and `.../specs/158-x` -> `/Users/x/app/`)."""
    if not path.startswith("/"):
        return None
    parts = PurePosixPath(path).parts
    tail = folder.parts
    for size in range(len(tail), 0, -1):
        run = tail[len(tail) - size :]
        for start in range(1, len(parts) - size + 1):
            if parts[start : start + size] == run:
                return "/".join(parts[:start]).replace("//", "/") + "/"
    return None


def _under(path: str, root: str) -> str:
    """`path` relative to `root` ("" for the root itself: not a file)."""
    return path[len(root) :] if path.startswith(root) else path
