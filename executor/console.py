"""Terminal output: the ONLY module that imports rich, and only when it draws.

Plain lines go through `out`/`err` (no rich import: the exit-42 resume path stays
light). Rich renderables are built by callers through `rich_console()` on a terminal.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


def is_tty(stream: Any = None) -> bool:
    stream = stream if stream is not None else sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)()) and os.environ.get("TERM") != "dumb"


def out(message: str = "") -> None:
    print(message, file=sys.stdout, flush=True)


def err(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def out_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str), flush=True)


_console: Console | None = None


def rich_console() -> Console:
    """A rich Console on stdout (imported on first use)."""
    global _console
    if _console is None:
        from rich.console import Console

        _console = Console(highlight=False)
    return _console


def show(renderable: Any) -> None:
    """Print a rich renderable (table, panel); callers decide when a terminal warrants it."""
    rich_console().print(renderable)
