"""What a person sees at each checkpoint (the `detail` of a question)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from executor.plan.models import Session


def before_start(
    session: Session, command: Callable[[str], str | None], suite_command: str | None
) -> str:
    lines = [f"Session {session.number}: {session.title}", "", "Objectives:"]
    lines += [f"- {o.text}" for o in session.objectives] or ["- (none listed)"]
    lines += ["", "Files:"] + ([f"- {f.path}" for f in session.files] or ["- (none listed)"])
    lines += ["", "Test commands the executor will run:"]
    lines += [f"- {r.upper()}: {command(r) or '(none)'}" for r in ("red", "green", "refactor")]
    if suite_command:
        lines.append(f"- whole suite: {suite_command}")
    return "\n".join(lines)


def test_files_text(root: Path, files: Sequence[str], limit: int = 4000) -> str:
    parts = []
    for f in files[:5]:
        try:
            parts.append(f"--- {f}\n" + (root / f).read_text("utf-8")[:limit])
        except OSError as e:
            parts.append(f"--- {f}: {e}")
    return "\n".join(parts) or "(no test files recorded)"
