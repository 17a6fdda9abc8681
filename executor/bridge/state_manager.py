"""template-create's checkpoint file (seed 000's StateManager, made crash-safe).

Every save is atomic (fault points `state.tmp_written`, `state.replaced`, ...); the
previous version is kept as `<state>.bak` so a corrupt file can be restored. A corrupt
or schema-invalid file is reported as ValueError naming the file and the `.bak`; it is
never silently reset (P4).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from executor import fsutil
from executor.bridge.models import (
    STATE_SCHEMA_VERSION,
    InvokerLedger,
    TemplateCreateState,
    utc_now,
)
from executor.bridge.reading import quarantine, remove_quietly
from executor.records import RecordError

DEFAULT_STATE_NAME = ".template-create-state.json"


class StateManager:
    """Saves and loads `.template-create-state.json` in a folder fixed by the run."""

    def __init__(self, state_file: Path = Path(DEFAULT_STATE_NAME)) -> None:
        self.state_file = Path(state_file).absolute()

    @property
    def backup_file(self) -> Path:
        return self.state_file.with_name(self.state_file.name + ".bak")

    def has_state(self) -> bool:
        return self.state_file.exists()

    def save_state(
        self,
        checkpoint: str,
        phase: int,
        config: dict[str, Any],
        phase_data: dict[str, Any],
        agent_request_pending: dict[str, Any] | None = None,
    ) -> None:
        """Save the state; keeps `created_at` and the bridge ledger, bumps `updated_at`.

        With `agent_request_pending=None` the bridge ledger's pending request (if any) is
        mirrored there, so saving a checkpoint never forgets a request the host is answering.
        """
        existing = self._existing_for_save()
        bridge = existing.bridge if existing else None
        if agent_request_pending is None and bridge is not None and bridge.pending is not None:
            agent_request_pending = bridge.pending.to_json()
        state = TemplateCreateState(
            checkpoint=checkpoint,
            phase=phase,
            created_at=existing.created_at if existing else utc_now(),
            updated_at=utc_now(),
            config=config,
            phase_data=phase_data,
            agent_request_pending=agent_request_pending,
            bridge=bridge,
        )
        self._write(state)

    def load_state(self) -> TemplateCreateState:
        """The saved state. FileNotFoundError if none; ValueError if corrupt or invalid."""
        try:
            data = self.state_file.read_bytes()
        except FileNotFoundError:
            raise FileNotFoundError(
                f"State file not found: {self.state_file}. Cannot resume - no saved state."
            ) from None
        hint = (
            f" The previous version is in {self.backup_file}; copy it over the state file to "
            f"restore it."
            if self.backup_file.exists()
            else ""
        )
        try:
            raw = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValueError(
                f"Corrupt state file {self.state_file}: not valid JSON ({e}).{hint}"
            ) from e
        if not isinstance(raw, dict):
            raise ValueError(f"Corrupt state file {self.state_file}: not a JSON object.{hint}")
        found = raw.get("schema_version", STATE_SCHEMA_VERSION)
        if not isinstance(found, int) or found > STATE_SCHEMA_VERSION:
            raise ValueError(
                f"State file {self.state_file} has schema_version {found!r}; this executor "
                f"reads up to {STATE_SCHEMA_VERSION}. Upgrade the executor to resume it."
            )
        try:
            return TemplateCreateState.from_json(raw)
        except RecordError as e:
            problems = "; ".join(e.problems)
            raise ValueError(f"Invalid state file {self.state_file}: {problems}.{hint}") from e

    def cleanup(self) -> None:
        """Remove the state file and its backup (on success). Idempotent."""
        remove_quietly(self.state_file)
        remove_quietly(self.backup_file)

    def load_ledger(self) -> InvokerLedger:
        """The bridge ledger kept in this state (empty if none). Needs a saved state."""
        if not self.has_state():
            raise FileNotFoundError(
                f"State file not found: {self.state_file}. Save the state with save_state() "
                f"before AgentBridgeInvoker.request() keeps its ledger in it."
            )
        return self.load_state().bridge or InvokerLedger()

    def save_ledger(self, ledger: InvokerLedger) -> None:
        """Store the ledger (and mirror its pending request) in the saved state."""
        state = self.load_state()
        pending = ledger.pending.to_json() if ledger.pending else None
        self._write(
            state.replace(bridge=ledger, agent_request_pending=pending, updated_at=utc_now())
        )

    def _existing_for_save(self) -> TemplateCreateState | None:
        if not self.state_file.exists():
            return None
        try:
            return self.load_state()
        except ValueError:
            # The caller is saving anew: keep the unreadable file aside, never overwrite it.
            quarantine(self.state_file, "corrupt")
            return None
        except FileNotFoundError:
            return None

    def _write(self, state: TemplateCreateState) -> None:
        folder = self.state_file.parent
        folder.mkdir(parents=True, exist_ok=True)
        fsutil.sweep_orphans(folder)
        try:
            previous = self.state_file.read_bytes()
        except FileNotFoundError:
            previous = None
        if previous is not None:
            fsutil.atomic_write_bytes(self.backup_file, previous, fault="state_bak")
        fsutil.atomic_write_json(self.state_file, state.to_json(), fault="state")
