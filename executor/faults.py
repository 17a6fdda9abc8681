"""Named fault points, so tests can crash the real CLI at every durable boundary.

`EXECUTOR_FAULT="state.replaced:kill,request.written:raise"` makes `hit("state.replaced")`
SIGKILL the process and `hit("request.written")` raise `OSError(ENOSPC)`. Actions:
`kill` (SIGKILL), `term` (SIGTERM to self), `int` (SIGINT to self: a Ctrl+C at that
moment), `raise` (ENOSPC), `eio` (EIO).
An optional `@N` suffix fires on the N-th hit only (`state.replaced:kill@2`).
Unset, this costs one dict lookup.
"""

from __future__ import annotations

import errno
import os
import signal

_counts: dict[str, int] = {}


def _plan() -> dict[str, tuple[str, int]]:
    spec = os.environ.get("EXECUTOR_FAULT", "")
    out: dict[str, tuple[str, int]] = {}
    for item in filter(None, (s.strip() for s in spec.split(","))):
        name, _, action = item.partition(":")
        action, _, nth = action.partition("@")
        out[name] = (action or "kill", int(nth) if nth else 1)
    return out


def hit(name: str) -> None:
    """Declare that execution reached the durable boundary `name`."""
    if "EXECUTOR_FAULT" not in os.environ:
        return
    spec = _plan().get(name)
    if spec is None:
        return
    _counts[name] = _counts.get(name, 0) + 1
    action, nth = spec
    if _counts[name] != nth:
        return
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif action == "term":
        os.kill(os.getpid(), signal.SIGTERM)
    elif action == "int":
        os.kill(os.getpid(), signal.SIGINT)
    elif action == "raise":
        raise OSError(errno.ENOSPC, f"injected fault at {name}: No space left on device")
    elif action == "eio":
        raise OSError(errno.EIO, f"injected fault at {name}: Input/output error")
