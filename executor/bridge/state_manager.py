"""Seed 000's `StateManager`, a facade over the workflow's own state machinery.

Programs written against the seed get the seed's calls over the very store and record
`executor template-create` uses (`executor.store`, `executor.bridge.template_state`), so
there is one state machinery and one file format. A corrupt file is never replaced
silently: loading it raises ValueError naming its `.bak`, saving over it quarantines it
first (docs/template-create.md, "State and resume").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from executor.bridge.models import InvokerLedger
from executor.bridge.template_state import (
    STATE_NAME,
    TemplateCreateState,
    template_store,
)
from executor.datamodel import dump
from executor.errors import CorruptStateError
from executor.stamps import utc_now

DEFAULT_STATE_NAME = STATE_NAME


class StateManager:
    """Saves and loads `.template-create-state.json` in a folder fixed by the run."""

    def __init__(self, state_file: Path = Path(DEFAULT_STATE_NAME)) -> None:
        self.state_file = Path(state_file).absolute()
        self._store = template_store(self.state_file)

    @property
    def backup_file(self) -> Path:
        return self._store.backup

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
        """Save the state; keeps `created_at`, the cursor and the bridge ledger.

        With `agent_request_pending=None` the bridge ledger's pending request (if any) is
        mirrored there, so saving a checkpoint never forgets a request the host is answering.
        """
        self.state_file.parent.mkdir(parents=True, exist_ok=True)
        with self._store.locked():
            try:
                existing = self._store.load()
            except CorruptStateError:
                self._store.set_aside()  # a copy is quarantined; start anew beside it
                existing = None
            pending = agent_request_pending
            if pending is None and existing is not None and existing.bridge.pending is not None:
                pending = dump(existing.bridge.pending)
            now = utc_now()
            base = existing or TemplateCreateState(
                checkpoint=checkpoint, phase=phase, created_at=now, updated_at=now
            )
            state = base.model_copy(
                update={
                    "checkpoint": checkpoint,
                    "phase": phase,
                    "config": config,
                    "phase_data": phase_data,
                    "agent_request_pending": pending,
                }
            )
            self._store.save(state)

    def load_state(self) -> TemplateCreateState:
        """The saved state. FileNotFoundError if none; ValueError if corrupt or invalid."""
        try:
            state = self._store.load()
        except CorruptStateError as e:
            raise ValueError(str(e)) from e
        if state is None:
            raise FileNotFoundError(
                f"State file not found: {self.state_file}. Cannot resume - no saved state."
            )
        return state

    def cleanup(self) -> None:
        """Remove the state file and its backup (on success). Idempotent."""
        self._store.remove()

    def load_ledger(self) -> InvokerLedger:
        """The bridge ledger kept in this state (empty if none). Needs a saved state."""
        if not self.has_state():
            raise FileNotFoundError(
                f"State file not found: {self.state_file}. Save the state with save_state() "
                f"before AgentBridgeInvoker.request() keeps its ledger in it."
            )
        return self.load_state().bridge

    def save_ledger(self, ledger: InvokerLedger) -> None:
        """Store the ledger (and mirror its pending request) in the saved state."""
        with self._store.locked():
            state = self.load_state()
            state.bridge = ledger
            state.agent_request_pending = dump(ledger.pending) if ledger.pending else None
            self._store.save(state)
