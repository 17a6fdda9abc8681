"""Marking a session done in the plan file: exact text edits, never a re-render.

Each format has its own way of saying done, and the edit changes exactly that text:
- markdown plans (PHASE / PROJECT_PLAN boxes, superpowers step boxes, spec-kit `[X]`,
  Kiro `- [x]` and the group's box with its last required sub-task): `[ ]` or `[-]` ->
  `[x]` on `Session.box_lines`;
- Task Master: the `"status"` value of the task and of each subtask -> `"done"`, found
  with the JSON decoder's own positions, the rest of the file byte for byte as it was.
A box or status the executor finds ticked is a claim (`Session.claimed_done`) that the
engine re-proves with a test run; `tick_session` is pure (it returns the edits) and
`apply_edits` writes them atomically. Ticking never changes `Session.source_hash`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from executor.errors import PlanInvalidError
from executor.fsutil import atomic_write_bytes
from executor.plan.models import Session
from executor.plan.text.jsonspans import items, line_of, members
from executor.plan.text.sessiontext import BOX, split_source


@dataclass(frozen=True)
class FileEdit:
    """Replace line `line` (1-based) of `path`, which reads `old`, with `new`."""

    path: Path
    line: int
    old: str
    new: str


def tick_session(session: Session) -> list[FileEdit]:
    """The edits that mark `session` done (none when it already is).

    PlanInvalidError when the plan no longer holds what was read (a box line without a
    box, a task that is gone): it changed since it was loaded (reload it; a changed
    session also shows as drift by its hash).
    """
    path = session.source_file
    text = path.read_bytes().decode("utf-8")
    if path.suffix == ".json":
        return _status_edits(session, text)
    lines = split_source(text)
    edits: list[FileEdit] = []
    for number in session.box_lines:
        old = lines[number - 1] if number <= len(lines) else ""
        box = BOX.match(old)
        if box is None:
            raise _changed(path, number, f"expected a checkbox of Session {session.number} here")
        if box.group(2) not in "xX":
            new = f"{box.group(1)}[x]{old[box.end() :]}"
            edits.append(FileEdit(path=path, line=number, old=old, new=new))
    return edits


#: a Task Master status that says done (`_status_edits` writes "done")
_DONE_STATUS = re.compile(r'("status"\s*:\s*)"(?:done|completed|complete)"', re.IGNORECASE)


def cleared(text: str, name: str) -> str:
    """`text` of a plan file named `name` with every done mark undone (`[x]` -> `[ ]`, a
    Task Master "done" -> "pending"), the rest byte for byte: a plan started afresh."""
    if name.endswith(".json"):
        return _DONE_STATUS.sub(r'\1"pending"', text)
    return BOX.sub(lambda m: m.group(0) if m.group(2) == " " else f"{m.group(1)}[ ]", text)


def _status_edits(session: Session, text: str) -> list[FileEdit]:
    """`"status": "..."` -> `"status": "done"` for the task and its subtasks."""
    path = session.source_file
    spans = _task_status_spans(session, text)
    by_line: dict[int, list[tuple[int, int]]] = {}
    for start, end in spans:
        if str(json.loads(text[start:end])).lower() not in ("done", "completed", "complete"):
            by_line.setdefault(line_of(text, start), []).append((start, end))
    lines = split_source(text)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    edits: list[FileEdit] = []
    for number, found in sorted(by_line.items()):
        old = lines[number - 1]
        new = old
        for start, end in sorted(found, reverse=True):
            a, b = start - offsets[number - 1], end - offsets[number - 1]
            new = new[:a] + '"done"' + new[b:]
        edits.append(FileEdit(path=path, line=number, old=old, new=new))
    return edits


def _task_status_spans(session: Session, text: str) -> list[tuple[int, int]]:
    path = session.source_file
    if "{" not in text:
        raise _changed(path, 1, "expected a task list here")
    top = members(text, text.index("{"))
    if session.tag is not None and session.tag in top and text[top[session.tag][0]] == "{":
        top = members(text, top[session.tag][0])
    elif session.tag is not None and session.tag in top and text[top[session.tag][0]] == "[":
        top = {"tasks": top[session.tag]}  # the tag maps straight to its list
    if "tasks" not in top or text[top["tasks"][0]] != "[":
        raise _changed(path, 1, "expected a task list here")
    wanted = session.label or str(session.number)
    for start, _ in items(text, top["tasks"][0]):
        if text[start] != "{":
            continue
        own = members(text, start)
        if "id" in own and str(json.loads(text[slice(*own["id"])])) == wanted:
            spans = [own["status"]] if "status" in own else []
            if "subtasks" in own and text[own["subtasks"][0]] == "[":
                for sub, _ in items(text, own["subtasks"][0]):
                    sub_members = members(text, sub) if text[sub] == "{" else {}
                    spans += [sub_members["status"]] if "status" in sub_members else []
            return spans
    raise _changed(path, session.line_start, f"expected task {wanted} here")


def _changed(path: Path, line: int, what: str) -> PlanInvalidError:
    return PlanInvalidError(
        f"{path}:{line}: {what}; the plan changed since it was read: load it again",
        path=path,
        line=line,
    )


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
