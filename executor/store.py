"""Persistence of a run's state file: one live writer, atomic saves, fencing, and
corruption that is detected and quarantined, never silently reset.

Used for `.agent-state.json` and `.template-create-state.json` (the files beside them
and the format: docs/engine.md, "`.agent-state.json`"). Keys keep the model's order,
not sorted, so an ordered mapping (a template's placeholders) reads back as saved and a
resumed run makes exactly what an uninterrupted one makes. `migrate` reads a file of an
older form, which has no checksum to check (seed 000's StateManager form).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Generic, NoReturn, Protocol, TypeVar

from pydantic import BaseModel

from executor.datamodel import validate, validate_json
from executor.errors import (
    CorruptStateError,
    DataError,
    DefinitionDriftError,
    LockedError,
    StaleWorkspaceError,
    StorageError,
)
from executor.fsutil import atomic_write_bytes, host, quote, sweep_orphans
from executor.safe_read import read_bounded, said
from executor.stamps import utc_now


class Persisted(Protocol):
    """What a state model gives its store: a version, a checksum field (its last field),
    and what to stamp on it before each save (a generation, the time)."""

    schema_version: int
    checksum: str

    def before_save(self, stamp: str) -> None: ...

    def model_dump_json(self, *, by_alias: bool) -> str: ...


P = TypeVar("P", bound=Persisted)

#: The checksum is the body's last field; its value is blanked for hashing.
_MARK = b'"checksum":"'
#: A state file larger than this is refused unread (a thousand sessions take ~2 MB).
STATE_LIMIT = 256 << 20


def seal(body: bytes) -> bytes:
    """`body` (JSON ending in `"checksum":""}`) with the sha256 of itself filled in."""
    at = body.rindex(_MARK + b'"')
    digest = "sha256:" + hashlib.sha256(body).hexdigest()
    return body[:at] + _MARK + digest.encode() + body[at + len(_MARK) :]


def read_sealed(path: Path) -> bytes | None:
    """A state file's bytes when it is a regular file whose checksum holds; None for a
    hand edit, a forged or torn file, or none (read without its lock, no side effect)."""
    try:
        raw = read_bounded(path, STATE_LIMIT)
    except (OSError, DataError):
        return None
    return raw if sealed(raw) else None


def sealed(raw: bytes) -> bool:
    """The file's checksum matches its bytes (P4): a hand edit or a torn write fails."""
    at = raw.rfind(_MARK)
    if at < 0:
        return False
    end = raw.find(b'"', at + len(_MARK))
    if end < 0:
        return False
    given = raw[at + len(_MARK) : end].decode("ascii", "replace")
    body = raw[: at + len(_MARK)] + raw[end:]
    return given == "sha256:" + hashlib.sha256(body.rstrip(b"\n")).hexdigest()


def _holds_other(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() != data
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def exclusive(path: Path, *, what: str, about: str = "", wait: float = 0) -> Iterator[None]:
    """Hold the lock file `path`; LockedError names the holder (and what it runs: the
    holder's `about`) when another process has it.

    The lock is `filelock`'s (flock on POSIX, LockFileEx on Windows): released by the
    kernel when the holder dies, on a descriptor no child process inherits (PEP 446),
    and a lock file removed by its holder after another process opened it is not a lock
    any more (filelock takes it again on the file now at the path). The holder writes
    `pid@host about` into the file for the message a second process shows. `what`:
    what the holder holds, for that message. `wait`: seconds to wait for the holder to
    let go first (a parallel run's short turns at a shared state); 0: fail at once.
    """
    import filelock

    lock = filelock.FileLock(path, timeout=wait, thread_local=False)
    try:
        lock.acquire()
    except filelock.Timeout:
        raise _locked_error(path, what) from None
    try:
        _write_holder(path, f"{os.getpid()}@{host()} {about}".strip())
        yield
    finally:
        with contextlib.suppress(OSError):
            _write_holder(path, "")
        lock.release()


def _write_holder(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _locked_error(path: Path, what: str) -> LockedError:
    try:
        holder = path.read_text("utf-8", "replace").strip()[:300]
    except OSError:
        holder = ""
    who, _, about = holder.partition(" ")
    pid_s, _, host = who.partition("@")
    running = f", running {about}" if about else ""
    return LockedError(
        f"another executor process {what} (pid {pid_s or '?'} on {host or '?'}{running}); "
        f"wait for it to finish, or stop it",
        pid=int(pid_s) if pid_s.isdigit() else None,
        host=host or None,
    )


def _stamp() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


class StateStore(Generic[P]):
    """Load and save one state file of record type `model` (schema `version`)."""

    def __init__(
        self,
        path: Path,
        *,
        model: type[BaseModel],
        version: int,
        lock: Path,
        migrate: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self.path = Path(path).absolute()
        self.folder = self.path.parent
        self.backup = self.path.with_name(self.path.name + ".bak")
        self.lock_path = Path(lock).absolute()
        self.model = model
        self.version = version
        self.migrate = migrate
        self._seen: tuple[int, int, int] | None = None  # (inode, size, mtime_ns) we know

    # -- locking (P16) -----------------------------------------------------------
    @contextlib.contextmanager
    def locked(self, wait: float = 0) -> Iterator[None]:
        """Hold the single-writer lock (`exclusive`, waiting up to `wait` seconds for
        it); orphaned temp files of dead writers are swept once it is ours (P6)."""
        with exclusive(self.lock_path, what=f"holds {self.lock_path}", wait=wait):
            sweep_orphans(self.folder)
            yield

    def drop_lock_file(self) -> None:
        """While holding the lock, when the run leaves nothing behind: remove the lock
        file too (a process that opened it meanwhile takes the lock again on a new file)."""
        with contextlib.suppress(FileNotFoundError):
            self.lock_path.unlink()

    # -- loading (P4) -------------------------------------------------------------
    def load(self) -> P | None:
        """The saved state, None when there is none; CorruptStateError when unreadable.

        A file of this version (it starts `{"schema_version":N,`) is checked against its
        checksum and then parsed and validated in one pass; anything else is read as
        JSON first, to tell a newer, an older and a broken file apart."""
        try:
            raw = read_bounded(self.path, STATE_LIMIT)
            self._seen = self._identity()
        except FileNotFoundError:
            self._seen = None
            return None
        except DataError as e:  # a FIFO, link or device in its place: never waited on
            if said(e).startswith("cannot be read"):
                raise StorageError(f"{self.path} {said(e)}", path=self.path) from None
            self._corrupt(None, said(e))
        if raw.startswith(b'{"schema_version":%d,' % self.version):
            if not sealed(raw):
                self._corrupt(raw, "checksum mismatch (edited by hand or torn)")
            return self._decode(raw, lambda: validate_json(self.model, raw))
        try:
            data = json.loads(raw.decode("utf-8"))
            if not isinstance(data, dict):
                raise ValueError("top level is not a JSON object")
        except (ValueError, UnicodeDecodeError) as e:
            self._corrupt(raw, f"not valid JSON ({e})")
        version = data.get("schema_version")
        if isinstance(version, int) and version > self.version:
            raise CorruptStateError(
                f"{self.path} has schema_version {version}, newer than this executor reads "
                f"({self.version}); upgrade plan-executor to continue it. Nothing was changed.",
                path=self.path,
            )
        older = version is None or (isinstance(version, int) and version < self.version)
        if older and self.migrate is not None:
            migrate = self.migrate
            return self._decode(raw, lambda: validate(self.model, migrate(data)))
        if older:
            raise DefinitionDriftError(
                f"{self.path} has schema_version {version}: it was written by an older "
                f"executor. Finish the run with that version, or delete {quote(self.path)} "
                f"to start the run afresh (completed sessions keep their commits). Nothing "
                f"was changed."
            )
        self._corrupt(raw, "checksum mismatch (edited by hand or torn)")

    def _decode(self, raw: bytes, read: Callable[[], BaseModel]) -> P:
        try:
            state = read()
        except DataError as e:
            self._corrupt(raw, "schema-invalid (" + "; ".join(e.problems[:5]) + ")")
        return state  # type: ignore[return-value]

    def _corrupt(self, raw: bytes | None, why: str) -> NoReturn:
        """CorruptStateError; the bytes read, if any, are first copied aside."""
        quarantine: Path | None = None
        if raw is not None:
            # every command (even `status`) reads the state: one copy per content, not per call
            quarantine = self._quarantined(raw)
            if quarantine is None:
                name = f"{self.path.name}.corrupt-{_stamp()}"
                quarantine, n = self.path.with_name(name), 1
                while _holds_other(quarantine, raw):  # never over another copy (same second)
                    n += 1
                    quarantine = self.path.with_name(f"{name}-{n}")
                with contextlib.suppress(OSError):
                    atomic_write_bytes(quarantine, raw, fault="quarantine")
        backup = self.backup if self.backup.exists() else None
        hint = (
            f" A previous good version is {backup}; to restore it: "
            f"cp {quote(backup)} {quote(self.path)}"
            if backup
            else f" No backup exists; delete {quote(self.path)} to start the run afresh."
        )
        raise CorruptStateError(
            f"state file {self.path} is corrupt: {why}. "
            + (f"A copy was quarantined as {quarantine}; " if quarantine else "")
            + f"the file was left as it is and nothing else was touched.{hint}",
            path=self.path,
            quarantined=quarantine,
            backup=backup,
        )

    def _quarantined(self, raw: bytes) -> Path | None:
        """A copy already quarantined with exactly these bytes, if any."""
        for copy in sorted(self.path.parent.glob(f"{self.path.name}.corrupt-*")):
            with contextlib.suppress(OSError):
                if copy.stat().st_size == len(raw) and copy.read_bytes() == raw:
                    return copy
        return None

    # -- saving (P1, P2, P17) -----------------------------------------------------
    def save(self, state: P) -> None:
        """Atomically save `state`; the previous version becomes `.bak` (hard link).

        Fencing: the file on disk must still be the one this process loaded or last
        saved (same inode, size and mtime), else another writer advanced it.
        """
        if self._identity() != self._seen:
            raise StaleWorkspaceError(
                f"{self.path} was changed by another process since this one read it; not "
                f"overwriting newer state. Re-run the command."
            )
        state.before_save(utc_now())
        state.checksum = ""
        data = seal(state.model_dump_json(by_alias=True).encode("utf-8"))
        state.checksum = data[data.rindex(_MARK) + len(_MARK) : -2].decode("ascii")
        try:
            atomic_write_bytes(self.path, data + b"\n", fault="state", backup=self.backup)
        except OSError as e:
            raise StorageError(
                f"could not save {self.path}: {e}. The previous state is intact.", path=self.path
            ) from e
        self._seen = self._identity()

    def unchanged(self) -> bool:
        """The file on disk is still the one this process last loaded or saved (no other
        writer since: the comparison every save makes, asked before a load)."""
        return self._identity() == self._seen

    def reclaim(self) -> None:
        """The file on disk is this process's again (it put back what it last saved,
        after a command agent rewrote it while this process held the run)."""
        self._seen = self._identity()

    def _identity(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def set_aside(self) -> None:
        """After a CorruptStateError (a copy is quarantined): remove the corrupt file, so
        a fresh state can be saved in its place. The `.bak` (the last good one) is kept."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._seen = None

    def remove(self) -> None:
        """Delete the state and its backup (a workflow that finished and keeps none)."""
        for path in (self.path, self.backup):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        self._seen = None
