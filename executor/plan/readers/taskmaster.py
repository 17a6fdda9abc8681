"""Reader F: Task Master task files (`.taskmaster/tasks/tasks.json`, older `tasks/tasks.json`).

Tagged files hold `{"master": {"tasks": [...]}, "feature-x": {...}}` (the tag is picked
with `--tag`; without one `master`, or the only tag); older files hold `{"tasks": [...]}`.
Each top-level task is one session numbered by its `id` (`"id": "2"` reads as 2); its
`dependencies` are the tasks it needs, its subtasks (`Session.tasks`, ids local to the
task: `2.1`) what it holds. `details` and `testStrategy` are prose for the agent's brief;
a command the test strategy tells the reader to run is the verification command (the
last one: the final check). `status` is the tool's own word: `done` is a claim the
executor re-proves like any tick; `cancelled` and `deferred` are kept for the engine to
skip. A user-acceptance task is a human checkpoint, not agent work.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from executor.plan.commands.checks import judge
from executor.plan.commands.written import text_command
from executor.plan.models import (
    Diagnostic,
    FileSpec,
    Phase,
    Plan,
    PlanCommand,
    PlanFormat,
    PlanTask,
    Session,
    Step,
)
from executor.plan.text import stepwords
from executor.plan.text.files import prose_paths
from executor.plan.text.jsonspans import Span, items, line_of, members
from executor.plan.text.sessiontext import source_hash
from executor.plan.text.source import file_plan

DONE = frozenset({"done", "completed", "complete"})
STATUS = re.compile(r'("status"\s*:\s*)"(?:[^"\\]|\\.)*"')
_CHECKPOINT = re.compile(r"\buser acceptance\b|\bUAT\b", re.I)


class TaskmasterReader:
    format: PlanFormat = "taskmaster"

    def __init__(self, tag: str | None = None) -> None:
        self.tag = tag

    def read(self, path: Path) -> Plan:
        project = path.parents[2] if path.parent.parent.name == ".taskmaster" else path.parents[1]
        plan, text = file_plan(path, project.name, self.format)
        if text is not None:
            _TasksFile(path, text, plan, self.tag).run()
        return plan


class _TasksFile:
    def __init__(self, path: Path, text: str, plan: Plan, tag: str | None) -> None:
        self.path = path
        self.text = text
        self.plan = plan
        self.tag = tag

    def error(self, line: int, message: str) -> None:
        self.plan.diagnostics.append(
            Diagnostic(severity="error", path=self.path, line=line, message=message)
        )

    def run(self) -> None:
        try:
            data = json.loads(self.text)
        except json.JSONDecodeError as e:
            self.error(e.lineno, f"not valid JSON: {e.msg} (column {e.colno})")
            return
        located = self.locate(data)
        if located is None:
            return
        tasks, span, tag = located
        phase = Phase(number=1, name=tag or self.plan.name, source_file=self.path)
        self.plan.phases.append(phase)
        if tag and tag != "master":
            self.plan.name = f"{self.plan.name} ({tag})"
        for ordinal, (task, task_span) in enumerate(
            zip(tasks, items(self.text, span[0]), strict=True), start=1
        ):
            if isinstance(task, dict):
                phase.sessions.append(self.session(task, task_span, ordinal, tag))

    def locate(self, data: Any) -> tuple[list[Any], Span, str | None] | None:
        """The task list to read, its span and its tag (None for a flat file)."""
        root = self.text.index("{") if isinstance(data, dict) else -1
        if isinstance(data, dict) and isinstance(data.get("tasks"), list):
            return data["tasks"], members(self.text, root)["tasks"], None
        tags = [
            k
            for k, v in (data.items() if isinstance(data, dict) else [])
            if (isinstance(v, dict) and isinstance(v.get("tasks"), list)) or _task_list(v)
        ]
        if not tags:
            self.error(1, 'no task list: expected {"tasks": [...]} or {"<tag>": {"tasks": [...]}}')
            return None
        tag = self.tag or ("master" if "master" in tags else tags[0] if len(tags) == 1 else None)
        if tag is None or tag not in tags:
            chosen = f"no tag {self.tag!r}" if self.tag else f"{len(tags)} tags"
            self.error(1, f"{chosen} in this tasks.json; pick one of {', '.join(tags)} with --tag")
            return None
        if _task_list(data[tag]):  # `{"master": [{"id": 1, ...}]}`: the tag maps to its list
            return data[tag], members(self.text, root)[tag], tag
        start = members(self.text, root)[tag][0]
        return data[tag]["tasks"], members(self.text, start)["tasks"], tag

    def session(self, task: dict[str, Any], span: Span, ordinal: int, tag: str | None) -> Session:
        written = str(task.get("id", ordinal))
        number = int(written) if written.isdigit() else ordinal
        spans = members(self.text, span[0])
        status = str(task.get("status") or "") or None
        start, end = line_of(self.text, span[0]), line_of(self.text, span[1])
        subtasks, sub_boxes = self.subtasks(task, spans, written)
        prose = [task.get(k) for k in ("title", "description", "details")]
        prose += [s.get(k) for s in _list(task, "subtasks") if isinstance(s, dict)
                  for k in ("title", "description", "details")]  # fmt: skip
        files = [
            FileSpec(path=p, line=start)
            for p in prose_paths("\n".join(str(p) for p in prose if p), bare=True)
            if not p.startswith(("/", "~"))
        ]
        strategy = str(task.get("testStrategy") or "")
        named = [c for ln in strategy.split("\n") if (c := text_command(ln))]
        commands = [c for c in named if judge(c) is None]
        refused = [
            PlanCommand(command=c, line=start, why_not=why)
            for c in named
            if (why := judge(c)) is not None
        ]
        title = str(task.get("title") or f"Task {written}")
        own_box = [line_of(self.text, spans["status"][0])] if "status" in spans else []
        source = self.text[span[0] : span[1]]
        return Session(
            number=number,
            title=title,
            phase=1,
            label=written if written != str(number) else None,
            tdd=False,
            green=Step(
                role="green",
                heading=title,
                tasks=[s.text for s in subtasks] or [str(task.get("description") or title)],
                files=[f.path for f in files],
                test_command=commands[-1] if commands else None,
                command_line=start if commands else None,
                line=start,
            ),
            not_checks=refused,
            files=files,
            dependencies=[int(d) for d in _list(task, "dependencies") if str(d).isdigit()],
            is_checkpoint=bool(_CHECKPOINT.search(title)),
            checkpoints=[
                *(
                    ln.strip()
                    for ln in strategy.split("\n")
                    if stepwords.by_hand(ln, verifying=True)
                ),
                *(t.text for t in subtasks if stepwords.by_hand(t.text)),
            ],
            status=status,
            tag=tag,
            tasks=subtasks,
            source_file=self.path,
            line_start=start,
            line_end=end,
            source_hash=source_hash(STATUS.sub(r'\1""', source)),
            source_text=source,
            brief_text=_brief(task, written),
            box_lines=list(dict.fromkeys([*own_box, *sub_boxes])),
            claimed_done=is_done(status),
        )

    def subtasks(
        self, task: dict[str, Any], spans: dict[str, Span], parent: str
    ) -> tuple[list[PlanTask], list[int]]:
        """The task's subtasks, and the lines of their status values."""
        found: list[PlanTask] = []
        boxes: list[int] = []
        subs = task.get("subtasks")
        if not isinstance(subs, list) or "subtasks" not in spans:
            return found, boxes
        for sub, (start, _) in zip(subs, items(self.text, spans["subtasks"][0]), strict=True):
            if not isinstance(sub, dict):
                continue
            own = members(self.text, start)
            if "status" in own:
                boxes.append(line_of(self.text, own["status"][0]))
            deps = [
                str(d) if "." in str(d) else f"{parent}.{d}" for d in _list(sub, "dependencies")
            ]
            found.append(
                PlanTask(
                    label=_sub_label(parent, sub.get("id")),  # `1` or already `29.1`
                    text=str(sub.get("title") or ""),
                    line=line_of(self.text, own.get("status", (start, 0))[0]),
                    done=is_done(sub.get("status")),
                    depends_on=deps,
                )
            )
        return found, boxes


def _sub_label(parent: str, own: Any) -> str:
    own_id = str(own)
    return own_id if own_id.startswith(f"{parent}.") else f"{parent}.{own_id}"


def _task_list(value: Any) -> bool:
    """A list of tasks (objects with an id), as a tag maps to it in some files."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(t, dict) and "id" in t for t in value)
    )


def is_done(status: Any) -> bool:
    """`done`, or `completed` as some versions and hand edits write it."""
    return str(status or "").strip().lower() in DONE


def _list(item: dict[str, Any], key: str) -> list[Any]:
    value = item.get(key)
    return value if isinstance(value, list) else []


def _brief(task: dict[str, Any], written: str) -> str:
    """The task as markdown for the agent (the JSON is the plan; this is only read)."""
    parts = [f"## Task {written}: {task.get('title', '')}"]
    for key, heading in (
        ("description", ""),
        ("details", "Details"),
        ("testStrategy", "Test strategy"),
    ):
        value = str(task.get(key) or "").strip()
        if value:
            parts.append(f"### {heading}\n\n{value}" if heading else value)
    subs = [s for s in _list(task, "subtasks") if isinstance(s, dict)]
    if subs:
        lines = [
            f"- [{'x' if is_done(s.get('status')) else ' '}] {_sub_label(written, s.get('id'))} "
            f"{s.get('title', '')}: {s.get('description', '')}".rstrip(": ")
            for s in subs
        ]
        parts.append("### Subtasks\n\n" + "\n".join(lines))
    return "\n\n".join(parts) + "\n"
