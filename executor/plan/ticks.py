"""Ticking a session's boxes in the plan file: exact line edits, never a re-render.

A ticked box in a plan is a claim (`Session.claimed_done`); the executor re-proves it
with a test run and, once a session is verified and committed, ticks its boxes itself.
`tick_session` is pure: it reads the plan file and returns the edits (`[ ]` or Kiro's
`[-]` -> `[x]` on `Session.box_lines`, which for a Kiro group's last required sub-task
include the group's box); `apply_edits` writes them atomically. Ticking never
changes `Session.source_hash` (the hash reads every box as unticked).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from executor.errors import PlanInvalidError
from executor.fsutil import atomic_write_bytes
from executor.plan.models import Session
from executor.plan.sessiontext import BOX, split_source


@dataclass(frozen=True)
class FileEdit:
    """Replace line `line` (1-based) of `path`, which reads `old`, with `new`."""

    path: Path
    line: int
    old: str
    new: str


def tick_session(session: Session) -> list[FileEdit]:
    """The edits that tick every unticked box of `session` (none when all are ticked).

    PlanInvalidError when a box line no longer holds a checkbox: the plan changed since
    it was loaded (reload it; a changed session also shows as drift by its hash).
    """
    path = session.source_file
    lines = split_source(path.read_bytes().decode("utf-8"))
    edits: list[FileEdit] = []
    for number in session.box_lines:
        old = lines[number - 1] if number <= len(lines) else ""
        box = BOX.match(old)
        if box is None:
            raise PlanInvalidError(
                f"{path}:{number}: expected a checkbox of Session {session.number} here; "
                "the plan changed since it was read: load it again",
                path=path,
                line=number,
            )
        if box.group(2) not in "xX":
            new = f"{box.group(1)}[x]{old[box.end() :]}"
            edits.append(FileEdit(path=path, line=number, old=old, new=new))
    return edits


def apply_edits(edits: list[FileEdit]) -> list[Path]:
    """Write `edits` (each file once, atomically); the files changed, in order.

    PlanInvalidError when a line no longer reads as the edit expects (nothing of that
    file is written then).
    """
    by_file: dict[Path, list[FileEdit]] = {}
    for edit in edits:
        by_file.setdefault(edit.path, []).append(edit)
    for path, file_edits in by_file.items():
        lines = split_source(path.read_bytes().decode("utf-8"))
        for edit in file_edits:
            if edit.line > len(lines) or lines[edit.line - 1] != edit.old:
                raise PlanInvalidError(
                    f"{path}:{edit.line}: the line changed since the edit was made; "
                    "load the plan again",
                    path=path,
                    line=edit.line,
                )
            lines[edit.line - 1] = edit.new
        atomic_write_bytes(path, "".join(lines).encode("utf-8"), fault="plan_tick")
    return list(by_file)
