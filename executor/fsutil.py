"""Atomic file writes: the only way this package writes a file it must not tear.

Write a temp file in the same folder, fsync it, `os.replace` it over the target,
fsync the folder. A SIGKILL at any point leaves the old or the new file, never a torn
one. Temp files are named `.agent-tmp-<pid>-<target>`: one distinctive prefix, hidden
by the executor's git exclude pattern (`.agent-*`), so `sweep_orphans` removes only
files we wrote, and only those whose writer is dead (P6). A person's
`.draft.4000000.tmp` is never touched.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import stat
from pathlib import Path
from typing import Any

from executor import faults

TEMP_PREFIX = ".agent-tmp-"
_TMP_RE = re.compile(r"^\.agent-tmp-(?P<pid>\d+)-(?P<target>.+)$")


def quote(path: object) -> str:
    """A path (or word) as it must appear in a command a person copies: shell-quoted."""
    return shlex.quote(str(path))


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


def temp_path(path: Path) -> Path:
    """The temp file `atomic_write_bytes` uses for `path` in this process."""
    return path.parent / f"{TEMP_PREFIX}{os.getpid()}-{path.name}"


def atomic_write_bytes(
    path: Path, data: bytes | bytearray, *, fault: str = "file", backup: Path | None = None
) -> None:
    """Replace `path` with `data` atomically and durably.

    `fault` names the fault points (`<fault>.tmp_written`, `<fault>.replaced`).
    `backup`: first make the current `path` (if any) that file, by a hard link, so the
    previous version survives as a whole file without being rewritten.
    Raises OSError; the previous file is then intact.
    """
    path = Path(path)
    folder = path.parent
    tmp = temp_path(path)
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
        if backup is not None:
            _link_backup(path, backup)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    faults.hit(f"{fault}.replaced")
    _fsync_dir(folder)
    faults.hit(f"{fault}.synced")


def _link_backup(path: Path, backup: Path) -> None:
    """Make `backup` the current `path` (hard link, swapped in atomically)."""
    staged = temp_path(backup)
    with contextlib.suppress(FileNotFoundError):
        staged.unlink()
    try:
        os.link(path, staged)
    except FileNotFoundError:
        return
    os.replace(staged, backup)
    # rename(2) does nothing when both names are links to one file: the backup already is
    # `path` (a save killed between linking it and replacing `path` leaves that). Then the
    # staged name is still there and must go, or it stays as a live writer's temp file.
    with contextlib.suppress(FileNotFoundError):
        staged.unlink()


def fsync_dir(folder: Path) -> None:
    """Make a rename or creation inside `folder` durable (no-op where unsupported)."""
    _fsync_dir(Path(folder))


def atomic_write_text(path: Path, text: str, *, fault: str = "file") -> None:
    atomic_write_bytes(path, text.encode("utf-8"), fault=fault)


def dumps_json(data: Any, *, compact: bool = False) -> str:
    """The one JSON style we write: 2-space indent, UTF-8, trailing newline; `compact`:
    one line, for a file a host reads at every step (its reader pays per byte)."""
    if compact:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def atomic_write_json(path: Path, data: Any, *, fault: str = "file", compact: bool = False) -> None:
    atomic_write_text(path, dumps_json(data, compact=compact), fault=fault)


def read_regular(path: Path) -> bytes | None:
    """The bytes of `path` when it is a regular file (links followed); None when it is
    missing or anything else. Never waits: a FIFO an agent left in place of a file is
    opened without blocking and not read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        try:
            return fh.read()
        except OSError:
            return None


def ensure_private_dir(folder: Path, *, inside: Path) -> Path:
    """Create `folder` (an executor folder such as `.agent-briefs`) below `inside`.

    Refuses a symlink, or anything that resolves outside `inside`: executor files are
    written only inside the run folder, never where a link points.
    """
    from executor.errors import StorageError

    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise StorageError(
            f"{folder} is a symlink or not a folder; the executor writes its files only "
            f"inside {inside}. Remove it and re-run.",
            path=folder,
        )
    folder.mkdir(parents=True, exist_ok=True)
    if not folder.resolve().is_relative_to(inside.resolve()):
        raise StorageError(
            f"{folder} resolves outside {inside}; refusing to write executor files there.",
            path=folder,
        )
    return folder


def pid_alive(pid: int) -> bool:
    """Whether a process with this id runs on this machine (another user's counts)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:  # an id no process can have
        return False
    return True


def host() -> str:
    """This machine's name, as lock holders write it (`pid@host`)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import platform  # Windows

    return platform.node()


def lock_held(path: Path) -> bool:
    """Whether a live process holds the lock file `path`: its holder writes `pid@host`
    (then what it runs) into it while it holds it and empties it when it lets go. A
    holder on another machine (a shared folder) is believed while it is named. Read
    through the bounded reader: a FIFO or a link put in its place holds nothing."""
    from executor.errors import DataError
    from executor.safe_read import read_bounded

    try:
        holder = read_bounded(path, 4096).decode("utf-8", "replace").strip()
    except (OSError, DataError):
        return False
    pid, _, where = holder.split(" ", 1)[0].partition("@")
    if not pid.isdigit():
        return False
    return bool(where and where != host()) or pid_alive(int(pid))


def sweep_orphans(folder: Path) -> list[Path]:
    """Remove our temp files left by dead writers in `folder`; return what was removed."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(TEMP_PREFIX):
            continue
        m = _TMP_RE.match(entry.name)
        if not m or pid_alive(int(m.group("pid"))):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed
