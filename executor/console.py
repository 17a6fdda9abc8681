r"""Terminal output: the ONLY module that imports rich, and only when it draws.

Plain lines go through `out`/`err` (no rich import: the exit-42 resume path stays
light). Rich renderables are built by callers through `rich_console()` on a terminal.

Every text shown passes `shown` on its way out: much of it is an agent's or a test
run's (an answer, a test's name and why it failed, a transcript, a file name), and a
terminal obeys control characters in it. An agent's answer cleared the person's screen,
printed lines that looked like the executor's (a lone carriage return rewrites a line)
and set their clipboard (OSC 52). So control characters are shown escaped (`\x1b[2J`),
newlines and tabs kept.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

#: What a terminal acts on instead of showing: C0 controls but the newline and the tab
#: (ESC starts every escape sequence; BEL ends OSC 52), DEL, C1 controls (U+0080..U+009F:
#: CSI and OSC in one character), a carriage return not ending a line, and the
#: bidirectional overrides and isolates that reorder what is shown.
_UNSHOWN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")


def _escaped(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    r"""`text` as it may reach a terminal: every control character escaped (`\x1b`,
    `\x9b`, `\r` alone, `\u202e`), newlines and tabs kept."""
    return _UNSHOWN.sub(_escaped, text)


def is_tty(stream: Any = None) -> bool:
    stream = stream if stream is not None else sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)()) and os.environ.get("TERM") != "dumb"


def out(message: str = "") -> None:
    print(shown(message), file=sys.stdout, flush=True)


def err(message: str) -> None:
    """A line on stderr; a live progress line still drawn is stopped first, so it is not
    redrawn after the message (an interruption, an error)."""
    for activity in list(_live):
        activity.halt()
    print(shown(message), file=sys.stderr, flush=True)


def out_json(data: Any) -> None:
    r"""`data` as JSON on stdout: JSON escapes C0 controls itself; C1 controls and the
    bidirectional overrides, which it keeps as they are, are escaped too (`\u009b`)."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    print(_UNSHOWN.sub(lambda m: f"\\u{ord(m.group()):04x}", text), flush=True)


_console: Console | None = None


def rich_console() -> Console:
    """A rich Console on stdout (imported on first use)."""
    global _console
    if _console is None:
        from rich.console import Console

        _console = Console(highlight=False)
    return _console


def show(renderable: Any) -> None:
    """Print a rich renderable (table, panel); callers decide when a terminal warrants it.
    Its texts are the caller's to pass through `shown` (a table's cells, say)."""
    rich_console().print(shown(renderable) if isinstance(renderable, str) else renderable)


def rich_line(message: str) -> None:
    """A plain line through rich (on a terminal, where a live line may be drawn)."""
    rich_console().print(shown(message), markup=False, highlight=False)


#: Live progress lines being drawn (a terminal's spinner thread redraws them).
_live: list[Activity] = []


class Activity:
    """Something slow in progress (an agent call, a test run): a live line on a terminal,
    timestamped start and end lines elsewhere; its duration is printed when it ends."""

    def __init__(self, label: str, *, live: bool, write: Callable[[str], None] = out) -> None:
        self.label = shown(label)
        self.detail = ""
        self.started = time.monotonic()
        self.write = write
        self._status: Any = None
        if live:
            from rich.status import Status

            self._status = Status(self, console=rich_console(), spinner="dots")
            self._status.start()
            _live.append(self)
        else:
            write(f"{time.strftime('%H:%M:%S')} {label} ...")

    def update(self, detail: str) -> None:
        """Show `detail` (e.g. a live test count) beside the label."""
        self.detail = shown(detail)

    def __rich__(self) -> str:  # rendered on every refresh: the elapsed time moves
        seconds = time.monotonic() - self.started
        return f"{self.label} ({seconds:.0f} s){': ' + self.detail if self.detail else ''}"

    def halt(self) -> None:
        """Stop drawing the live line (it ended, or the run was interrupted)."""
        if self._status is not None:
            self._status.stop()
            self._status = None
        if self in _live:
            _live.remove(self)

    def close(self, result: str = "") -> float:
        seconds = time.monotonic() - self.started
        end = f"{self.label}: {result or 'done'} ({seconds:.1f} s)"
        if self._status is not None:
            self.halt()
            self.write(end)
        else:
            self.write(f"{time.strftime('%H:%M:%S')} {end}")
        return seconds


def activity(label: str) -> Activity:
    """A live line on a terminal, timestamped lines on stdout otherwise."""
    return Activity(label, live=is_tty())


def stderr_activity(label: str) -> Activity:
    """For `--json` runs: progress as plain lines on stderr, never on stdout."""
    return Activity(label, live=False, write=err)
