"""Calling a person back: a terminal bell, a desktop notification, a webhook.

The CLI builds what is said (`executor/cli/callback.py`); this module delivers it
(docs/engine.md, "Notifications: calling a person back"). Each delivery runs on its own
daemon thread and `wait` returns after at most `TIMEOUT` seconds, whatever a webhook or a
desktop daemon does; a failure is a line for the caller, never an exception. The webhook
is one POST with `urllib.request`, imported only when a webhook is set, so the exit-42
host step does not pay for it; a client library would be a dependency for nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

#: Seconds a notification may take, all deliveries together (a webhook that hangs, a
#: desktop daemon that does not answer): the run then goes on without them.
TIMEOUT = 3.0
#: The most of a webhook's answer read (it is not used; reading lets the server finish).
_ANSWER_BYTES = 64 * 1024
#: The most of `text` in a desktop notification.
_DESKTOP_CHARS = 300


@dataclass(frozen=True)
class Targets:
    """Where notifications go (`--notify`)."""

    bell: bool = True
    desktop: bool = True
    url: str | None = None

    @staticmethod
    def of(setting: str) -> Targets:
        """`on`: bell and desktop; `off`: nothing; a URL: those and the webhook."""
        if setting == "off":
            return Targets(bell=False, desktop=False)
        if setting == "on":
            return Targets()
        return Targets(url=setting)

    @property
    def any(self) -> bool:
        return self.bell or self.desktop or self.url is not None


@dataclass(frozen=True)
class Event:
    """One notification: `kind` (checkpoint, escalation, budget, completed, stopped), a
    short `title`, the whole `text`, and the fields a webhook receives with them."""

    kind: str
    title: str
    text: str
    fields: dict[str, Any] = field(default_factory=dict)

    def payload(self) -> dict[str, Any]:
        return {"event": self.kind, **self.fields, "text": self.text}


class Delivery:
    """Notifications under way, each on a daemon thread; `wait` collects what failed."""

    def __init__(self, timeout: float) -> None:
        self.deadline = time.monotonic() + timeout
        self._threads: list[threading.Thread] = []
        self._problems: list[str] = []
        self._lock = threading.Lock()

    def start(self, name: str, work: Callable[[], str | None]) -> None:
        def run() -> None:
            try:
                problem = work()
            except Exception as e:  # never fatal: a failure is a line to show
                problem = f"{type(e).__name__}: {e}"
            if problem:
                with self._lock:
                    self._problems.append(f"{name}: {problem}")

        thread = threading.Thread(target=run, name=f"notify-{name}", daemon=True)
        thread.start()
        self._threads.append(thread)

    def wait(self) -> list[str]:
        """Wait for the deliveries until the deadline; what failed or did not finish."""
        late = []
        for thread in self._threads:
            thread.join(max(0.0, self.deadline - time.monotonic()))
            if thread.is_alive():
                late.append(thread.name.removeprefix("notify-"))
        with self._lock:
            problems = list(self._problems)
        return problems + [f"{n}: no answer in the time allowed" for n in late]


def send(event: Event, targets: Targets, *, timeout: float = TIMEOUT) -> Delivery:
    """Start delivering `event` to `targets`; returns at once (`Delivery.wait` bounds it)."""
    delivery = Delivery(timeout)
    if targets.bell:
        _bell()
    if targets.desktop:
        argv = desktop_argv(event.title, event.text[:_DESKTOP_CHARS])
        if argv is not None:
            delivery.start("desktop notification", lambda: _run(argv, timeout))
    if targets.url is not None:
        url = targets.url
        delivery.start(f"webhook {shown(url)}", lambda: _post(url, event.payload(), timeout))
    return delivery


def desktop_argv(title: str, body: str) -> list[str] | None:
    """The command that shows a desktop notification here; None where there is none (no
    display, over SSH, no notify-send / osascript)."""
    if sys.platform == "darwin":
        if os.environ.get("SSH_CONNECTION") or not shutil.which("osascript"):
            return None
        script = "on run argv\ndisplay notification (item 2 of argv) with title (item 1 of argv)\nend run"  # noqa: E501
        return ["osascript", "-e", script, title, body]
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return None
    program = shutil.which("notify-send")
    return [program, title, body] if program else None


def shown(url: str) -> str:
    """A webhook's URL as it may be shown: scheme and host (its path is often a secret)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or '?'}" + (f":{parts.port}" if parts.port else "")


def _bell() -> None:
    stream = sys.stderr
    if getattr(stream, "isatty", lambda: False)() and os.environ.get("TERM") != "dumb":
        with contextlib.suppress(OSError, ValueError):
            stream.write("\a")
            stream.flush()


def _run(argv: list[str], timeout: float) -> str | None:
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as e:
        return f"cannot run {argv[0]}: {e.strerror or e}"
    try:
        code = proc.wait(timeout=max(0.1, timeout - 0.2))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return f"{os.path.basename(argv[0])} did not finish in {timeout:g} s (killed)"
    return f"{os.path.basename(argv[0])} exited {code}" if code else None


def _post(url: str, payload: dict[str, Any], timeout: float) -> str | None:
    import urllib.error
    import urllib.request

    from executor import __version__

    request = urllib.request.Request(
        url,
        data=json.dumps(payload, ensure_ascii=False).encode(),
        headers={"Content-Type": "application/json", "User-Agent": f"plan-executor/{__version__}"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            answer.read(_ANSWER_BYTES)
    except urllib.error.HTTPError as e:
        return f"HTTP {e.code} {e.reason}"
    except urllib.error.URLError as e:
        return str(e.reason)
    except (TimeoutError, OSError) as e:
        return str(e) or type(e).__name__
    return None
