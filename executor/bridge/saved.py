"""The command that continues a waiting run, as the run saved it.

`executor bridge respond --resume` runs it and the Claude Code hooks name it, never the
request file's copy (`context.resume`): any process that can write the run folder can
rewrite that file (docs/reliability.md, "What runs, what is read, what reaches you").
The bridge knows no workflow, so the pending record is found by its id and its shape in
any state file of the folder, and, for a session of a parallel run, in the main run's
state too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from executor.errors import DataError
from executor.safe_read import parse_json

#: The state files a run keeps in its folder (`executor.engine.layout`,
#: `executor.bridge.template_state`; a test keeps these equal).
STATE_NAMES = (".agent-state.json", ".template-create-state.json")


def saved_resume(folder: Path, request_id: str) -> list[str] | None:
    """The command line (without `executor`) the run saved for `request_id`, pending in
    the run kept in `folder`; None when no sealed state there records one."""
    for state in _states(Path(folder).absolute()):
        for record in _records(state):
            if record.get("request_id") == request_id and "prompt_sha256" in record:
                argv = record.get("resume")
                if isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv):
                    return list(argv)
                return None
    return None


def _states(folder: Path) -> Iterator[Any]:
    """Each sealed state of `folder` (parsed), then the main run's of a parallel session."""
    for name in STATE_NAMES:
        state = _sealed(folder / name)
        if state is None:
            continue
        yield state
        lane = (state.get("run") or {}).get("lane") if isinstance(state, dict) else None
        main = lane.get("plan") if isinstance(lane, dict) else None
        if isinstance(main, str) and main:
            plan = Path(main)
            where = plan if plan.is_dir() else plan.parent
            main_state = _sealed(where / STATE_NAMES[0])
            if main_state is not None:
                yield main_state


def _sealed(path: Path) -> Any:
    """The state at `path` when it is a regular file whose checksum holds (a hand edit,
    a forged or torn file: None), parsed."""
    from executor.store import read_sealed

    raw = read_sealed(path)
    if raw is None:
        return None
    try:
        return parse_json(raw)
    except DataError:
        return None


def _records(node: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in `node`, depth first."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
