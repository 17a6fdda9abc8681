"""Atomic file writes: the only way this package writes a file it must not tear.

Write a temp file in the same folder, fsync it, `os.replace` it over the target,
fsync the folder. A SIGKILL at any point leaves the old or the new file, never a torn
one. Temp files are named `.<target>.<pid>.tmp` so `sweep_orphans` can remove those
whose writer is dead (and only those).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import Any

from executor import faults

_TMP_RE = re.compile(r"^\.(?P<target>.+)\.(?P<pid>\d+)\.tmp$")


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, fault: str = "file") -> None:
    """Replace `path` with `data` atomically and durably.

    `fault` names the fault points (`<fault>.tmp_written`, `<fault>.replaced`).
    Raises OSError; the previous file is then intact.
    """
    path = Path(path)
    folder = path.parent
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            faults.hit(f"{fault}.tmp_written")
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    faults.hit(f"{fault}.replaced")
    _fsync_dir(folder)
    faults.hit(f"{fault}.synced")


def fsync_dir(folder: Path) -> None:
    """Make a rename or creation inside `folder` durable (no-op where unsupported)."""
    _fsync_dir(Path(folder))


def atomic_write_text(path: Path, text: str, *, fault: str = "file") -> None:
    atomic_write_bytes(path, text.encode("utf-8"), fault=fault)


def dumps_json(data: Any) -> str:
    """The one JSON style we write: 2-space indent, UTF-8, trailing newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def atomic_write_json(path: Path, data: Any, *, fault: str = "file") -> None:
    atomic_write_text(path, dumps_json(data), fault=fault)


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_orphans(folder: Path) -> list[Path]:
    """Remove temp files left by dead writers in `folder`; return what was removed."""
    removed: list[Path] = []
    try:
        entries = list(Path(folder).iterdir())
    except OSError:
        return removed
    for entry in entries:
        m = _TMP_RE.match(entry.name)
        if not m or _pid_alive(int(m.group("pid"))):
            continue
        with contextlib.suppress(OSError):
            entry.unlink()
            removed.append(entry)
    return removed
