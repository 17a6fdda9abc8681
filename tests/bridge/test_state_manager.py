"""Seed 002's seven StateManager tests, plus corruption, backup and ledger preservation.

`StateManager` is a facade over the template-create workflow's own store and record, so
these also pin what a seed program sees of the file the workflow writes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from executor.bridge import StateManager
from tests.bridge.helpers import read_json


@pytest.fixture
def manager(tmp_path: Path) -> StateManager:
    return StateManager(state_file=tmp_path / ".template-create-state.json")


def _save(manager: StateManager, checkpoint: str = "templates_generated", **kw: object) -> None:
    manager.save_state(
        checkpoint=checkpoint,
        phase=5,
        config={"codebase_path": "/x"},
        phase_data={"qa_answers": {"template_name": "t"}},
        **kw,  # type: ignore[arg-type]
    )


def test_save_state_creates_new(manager: StateManager) -> None:
    _save(manager)
    data = read_json(manager.state_file)
    assert data["checkpoint"] == "templates_generated"
    assert data["created_at"].endswith("Z")
    assert data["updated_at"].endswith("Z")
    assert data["agent_request_pending"] is None


def test_save_state_updates_existing(manager: StateManager) -> None:
    _save(manager)
    first = read_json(manager.state_file)
    _save(manager, "agent_generation_pending", agent_request_pending={"request_id": "r1"})
    second = read_json(manager.state_file)
    assert second["created_at"] == first["created_at"]
    assert second["updated_at"] >= first["updated_at"]
    assert second["checkpoint"] == "agent_generation_pending"
    assert second["agent_request_pending"] == {"request_id": "r1"}


def test_updated_at_changes_between_saves_10_ms_apart(manager: StateManager) -> None:
    """GuardKit's own test of the seed API: two saves 10 ms apart, two timestamps."""
    _save(manager)
    first = manager.load_state().updated_at
    time.sleep(0.01)
    _save(manager, checkpoint="agents_generated")
    second = manager.load_state().updated_at
    assert first != second and first.endswith("Z") and "." in first


def test_load_state_round_trip(manager: StateManager) -> None:
    manager.save_state(
        checkpoint="test_checkpoint",
        phase=6,
        config={"test": "config"},
        phase_data={"test": "data"},
    )
    state = manager.load_state()
    assert state.checkpoint == "test_checkpoint"
    assert state.phase == 6
    assert state.config == {"test": "config"}
    assert state.phase_data == {"test": "data"}
    assert state.created_at and state.updated_at


def test_load_state_missing_file(manager: StateManager) -> None:
    with pytest.raises(FileNotFoundError, match=str(manager.state_file)):
        manager.load_state()


def test_has_state(manager: StateManager) -> None:
    assert not manager.has_state()
    _save(manager)
    assert manager.has_state()


def test_cleanup(manager: StateManager) -> None:
    _save(manager)
    _save(manager)
    manager.cleanup()
    assert not manager.has_state()
    assert not manager.backup_file.exists()
    manager.cleanup()  # idempotent


def test_state_format_validation(manager: StateManager) -> None:
    _save(manager)
    data = read_json(manager.state_file)
    seed_fields = {
        "version",
        "checkpoint",
        "phase",
        "created_at",
        "updated_at",
        "config",
        "phase_data",
        "agent_request_pending",
    }
    # the seed's fields, plus the workflow's cursor and ledger and the store's bookkeeping
    ours = {"schema_version", "step", "agent_failures", "history", "bridge", "generation"}
    assert set(data) == seed_fields | ours | {"checksum"}
    assert data["version"] == "1.0"
    assert data["schema_version"] == 3
    assert data["phase"] == 5
    assert data["config"] == {"codebase_path": "/x"}
    assert data["step"] is None  # written through the seed API, not by the workflow
    assert data["checksum"].startswith("sha256:")


def test_seed_form_state_without_schema_version_loads(manager: StateManager) -> None:
    manager.state_file.write_text(
        json.dumps(
            {
                "version": "1.0",
                "checkpoint": "agent_generation_pending",
                "phase": 6,
                "created_at": "2025-01-11T10:30:00.000Z",
                "updated_at": "2025-01-11T10:30:00.123Z",
                "config": {},
                "phase_data": {},
                "agent_request_pending": {
                    "request_id": "550e",
                    "created_at": "2025-01-11T10:30:00Z",
                },
            }
        ),
        encoding="utf-8",
    )
    assert manager.load_state().agent_request_pending == {
        "request_id": "550e",
        "created_at": "2025-01-11T10:30:00Z",
    }


@pytest.mark.parametrize("content", [b"", b'{"version": "1.0", "check', b"\x00\xff garbage"])
def test_corrupt_state_is_value_error_naming_file_and_backup(
    manager: StateManager, content: bytes
) -> None:
    _save(manager)
    _save(manager)
    manager.state_file.write_bytes(content)
    with pytest.raises(ValueError) as exc_info:
        manager.load_state()
    assert str(manager.state_file) in str(exc_info.value)
    assert str(manager.backup_file) in str(exc_info.value)
    assert manager.state_file.read_bytes() == content  # never silently reset


def test_schema_invalid_and_future_version_refused(manager: StateManager) -> None:
    manager.state_file.write_text(json.dumps({"checkpoint": 3, "phase": "x"}), encoding="utf-8")
    with pytest.raises(ValueError, match="phase: "):
        manager.load_state()
    _save(manager)
    data = read_json(manager.state_file)
    data["schema_version"] = 99
    manager.state_file.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="schema_version 99"):
        manager.load_state()


def test_backup_holds_previous_version(manager: StateManager) -> None:
    _save(manager, "one")
    _save(manager, "two")
    assert read_json(manager.backup_file)["checkpoint"] == "one"
    assert manager.load_state().checkpoint == "two"


def test_save_over_corrupt_state_quarantines_it(manager: StateManager, tmp_path: Path) -> None:
    manager.state_file.write_bytes(b"{torn")
    _save(manager)
    assert manager.load_state().checkpoint == "templates_generated"
    quarantined = list(tmp_path.glob(".template-create-state.json.corrupt-*"))
    assert [q.read_bytes() for q in quarantined] == [b"{torn"]
