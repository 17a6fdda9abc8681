"""Persistence of `.agent-state.json`: one live writer, atomic saves, fencing, and
corruption that is detected and quarantined, never silently reset.

Files beside the plan (all named `.agent-*` so one exclude pattern hides them from git):
`.agent-state.json` (the state), `.agent-state.json.bak` (the previous good version),
`.agent-state.lock` (flock; records pid@host), `.agent-state.json.corrupt-<ts>`
(quarantined copies).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from executor.engine.state import SCHEMA_VERSION, RunState, checksum_of, now
from executor.errors import CorruptStateError, LockedError, StaleWorkspaceError, StorageError
from executor.fsutil import atomic_write_bytes, dumps_json, sweep_orphans

STATE_NAME = ".agent-state.json"
LOCK_NAME = ".agent-state.lock"


class StateStore:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder).resolve()
        self.path = self.folder / STATE_NAME
        self.backup = self.folder / (STATE_NAME + ".bak")
        self.lock_path = self.folder / LOCK_NAME
        self._lock_fd: int | None = None
        self._loaded_generation: int | None = None

    # -- locking (P16) -----------------------------------------------------------
    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the single-writer lock; LockedError names the holder if taken.

        flock is released by the kernel when the holder dies, and Python fds are not
        inherited by children (PEP 446), so a spawned agent cannot keep it.
        """
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
            os.close(fd)
            pid_s, _, host = holder.partition("@")
            raise LockedError(
                f"another executor process holds {self.lock_path} "
                f"(pid {pid_s or '?'} on {host or '?'}); wait for it to finish, or stop it",
                pid=int(pid_s) if pid_s.isdigit() else None,
                host=host or None,
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}@{socket.gethostname()}".encode(), 0)
        self._lock_fd = fd
        try:
            yield
        finally:
            self._lock_fd = None
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)

    # -- loading (P4) -------------------------------------------------------------
    def exists(self) -> bool:
        return self.path.exists()

    def load(self) -> RunState | None:
        """The saved state, None when there is none; CorruptStateError when unreadable."""
        sweep_orphans(self.folder)
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as e:
            raise StorageError(f"cannot read {self.path}: {e}", path=self.path) from e
        try:
            data = json.loads(raw.decode("utf-8"))
            if not isinstance(data, dict):
                raise ValueError("top level is not a JSON object")
        except (ValueError, UnicodeDecodeError) as e:
            self._corrupt(raw, f"not valid JSON ({e})")
        version = data.get("schema_version")
        if isinstance(version, int) and version > SCHEMA_VERSION:
            raise CorruptStateError(
                f"{self.path} has schema_version {version}, newer than this executor "
                f"understands ({SCHEMA_VERSION}); upgrade plan-executor. Nothing was changed.",
                path=self.path,
            )
        try:
            state = RunState.model_validate(data)
        except ValidationError as e:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors()[:5]
            )
            self._corrupt(raw, f"schema-invalid ({problems})")
        if state.checksum != checksum_of(data):
            self._corrupt(raw, "checksum mismatch (edited by hand or torn)")
        self._loaded_generation = state.generation
        return state

    def _corrupt(self, raw: bytes, why: str) -> None:
        quarantine = self.folder / f"{STATE_NAME}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}"
        with contextlib.suppress(OSError):
            atomic_write_bytes(quarantine, raw, fault="quarantine")
        backup = self.backup if self.backup.exists() else None
        hint = (
            f" A previous good version is {backup}; to restore it: cp '{backup}' '{self.path}'"
            if backup
            else " No backup exists; delete the state file to start the plan run afresh."
        )
        raise CorruptStateError(
            f"state file {self.path} is corrupt: {why}. A copy was quarantined as "
            f"{quarantine}; the file was left as it is and nothing else was touched.{hint}",
            path=self.path,
            quarantined=quarantine,
            backup=backup,
        )

    # -- saving (P1, P2, P17) -----------------------------------------------------
    def save(self, state: RunState) -> None:
        """Atomically save `state`, keeping the previous version as `.bak`.

        Compare-and-swap on `generation`: the file on disk must still carry the
        generation this process loaded (or last saved), else another writer advanced it.
        """
        current = self._disk_generation()
        if current != self._loaded_generation:
            raise StaleWorkspaceError(
                f"{self.path} was changed by another process (generation {current}, this "
                f"process expected {self._loaded_generation}); not overwriting newer state."
            )
        state.generation = (self._loaded_generation or 0) + 1
        state.updated_at = now()
        state.checksum = checksum_of(state.model_dump(mode="json"))
        data = dumps_json(state.model_dump(mode="json")).encode("utf-8")
        try:
            if self.path.exists():
                atomic_write_bytes(self.backup, self.path.read_bytes(), fault="backup")
            atomic_write_bytes(self.path, data, fault="state")
        except OSError as e:
            raise StorageError(
                f"could not save {self.path}: {e}. The previous state is intact.", path=self.path
            ) from e
        self._loaded_generation = state.generation

    def _disk_generation(self) -> int | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return -1
        gen = data.get("generation") if isinstance(data, dict) else None
        return gen if isinstance(gen, int) else -1
