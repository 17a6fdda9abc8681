"""Kiro's task dependency graph: a fenced JSON block of waves after the task list.

```json
{"waves": [{"id": 0, "tasks": ["1.1", "2.1"]}, {"id": 1, "tasks": ["1.2", "2.2"]}]}
```

A task in a wave waits for every task of the wave before it; tasks in no wave keep the
plan order. Any other JSON, or a wave naming tasks the plan does not have, adds nothing.
"""

from __future__ import annotations

import json
from typing import Any

from executor.plan.models import Session
from executor.plan.text.markdown import Block


def wave_dependencies(blocks: list[Block], sessions: dict[str, Session]) -> dict[str, list[int]]:
    """Task label -> the session numbers it waits for, from the plan's waves block."""
    for block in blocks:
        if block.kind != "code" or '"waves"' not in block.text:
            continue
        try:
            data: Any = json.loads(block.text)
        except json.JSONDecodeError:
            continue
        waves = data.get("waves") if isinstance(data, dict) else None
        if not isinstance(waves, list):
            continue
        found: dict[str, list[int]] = {}
        previous: list[int] = []
        for wave in waves:
            labels = [str(t) for t in wave.get("tasks", [])] if isinstance(wave, dict) else []
            here = [sessions[label].number for label in labels if label in sessions]
            for label in labels:
                if label in sessions:
                    found[label] = list(previous)
            previous = here or previous
        return found
    return {}
