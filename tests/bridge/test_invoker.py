"""Seed 002's ten AgentBridgeInvoker tests (names as in the seed), on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from executor.bridge import AgentBridgeInvoker, AgentInvocationError
from tests.bridge.helpers import read_json, write_response


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_invoke_writes_request_and_exits_42(tmp_path: Path) -> None:
    invoker = AgentBridgeInvoker()
    with pytest.raises(SystemExit) as exc_info:
        invoker.invoke("architectural-reviewer", "Test prompt")
    assert exc_info.value.code == 42
    request = read_json(tmp_path / ".agent-request.json")
    assert request["agent_name"] == "architectural-reviewer"
    assert request["prompt"] == "Test prompt"


def test_invoke_with_cached_response_returns_immediately(tmp_path: Path) -> None:
    write_response(tmp_path / ".agent-response.json", "test-123", response="cached text")
    invoker = AgentBridgeInvoker()
    assert invoker.load_response() == "cached text"
    # no request is written and no exit happens: the cached text comes back
    assert invoker.invoke("architectural-reviewer", "Test prompt") == "cached text"
    assert not (tmp_path / ".agent-request.json").exists()


def test_load_response_success(tmp_path: Path) -> None:
    write_response(tmp_path / ".agent-response.json", "test-123")
    invoker = AgentBridgeInvoker()
    assert invoker.load_response() == "Test agent response"


def test_load_response_error(tmp_path: Path) -> None:
    write_response(
        tmp_path / ".agent-response.json",
        "test-123",
        status="error",
        response=None,
        error_message="Agent crashed",
        error_type="INVOCATION_FAILED",
    )
    with pytest.raises(AgentInvocationError) as exc_info:
        AgentBridgeInvoker().load_response()
    assert "Agent crashed" in str(exc_info.value)
    assert "INVOCATION_FAILED" in str(exc_info.value)
    assert exc_info.value.error_type == "INVOCATION_FAILED"
    assert not (tmp_path / ".agent-response.json").exists()


def test_load_response_timeout(tmp_path: Path) -> None:
    write_response(
        tmp_path / ".agent-response.json",
        "test-123",
        status="timeout",
        response=None,
        error_message="no answer in 120s",
        error_type="TIMEOUT",
        duration_seconds=120.0,
    )
    with pytest.raises(AgentInvocationError) as exc_info:
        AgentBridgeInvoker().load_response()
    assert "timed out" in str(exc_info.value)
    assert "no answer in 120s" in str(exc_info.value)
    assert "TIMEOUT" in str(exc_info.value)
    assert exc_info.value.status == "timeout"
    assert not (tmp_path / ".agent-response.json").exists()


def test_load_response_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as exc_info:
        AgentBridgeInvoker().load_response()
    assert str(tmp_path / ".agent-response.json") in str(exc_info.value)


def test_has_pending_request(tmp_path: Path) -> None:
    invoker = AgentBridgeInvoker()
    assert not invoker.has_pending_request()
    with pytest.raises(SystemExit):
        invoker.invoke("architectural-reviewer", "Test prompt")
    assert invoker.has_pending_request()


def test_has_response(tmp_path: Path) -> None:
    invoker = AgentBridgeInvoker()
    assert not invoker.has_response()
    write_response(tmp_path / ".agent-response.json", "test-123")
    assert invoker.has_response()


def test_request_format_validation(tmp_path: Path) -> None:
    invoker = AgentBridgeInvoker(phase=6, phase_name="agent_generation")
    with pytest.raises(SystemExit):
        invoker.invoke(
            "architectural-reviewer",
            "Test prompt",
            timeout_seconds=90,
            context={"template_name": "t"},
        )
    request = read_json(tmp_path / ".agent-request.json")
    assert set(request) == {
        "request_id",
        "version",
        "phase",
        "phase_name",
        "agent_name",
        "prompt",
        "timeout_seconds",
        "created_at",
        "context",
        "attempt",
        "emission",
    }
    assert request["version"] == "1.0"
    assert request["phase"] == 6
    assert request["phase_name"] == "agent_generation"
    assert request["timeout_seconds"] == 90
    assert request["context"] == {"template_name": "t"}
    assert request["attempt"] == request["emission"] == 1
    assert request["created_at"].endswith("Z")
    import uuid

    assert str(uuid.UUID(request["request_id"])) == request["request_id"]


def test_response_cleanup(tmp_path: Path) -> None:
    write_response(tmp_path / ".agent-response.json", "test-123")
    invoker = AgentBridgeInvoker()
    invoker.load_response()
    assert not (tmp_path / ".agent-response.json").exists()


def test_load_response_malformed_json_is_value_error_and_quarantined(tmp_path: Path) -> None:
    (tmp_path / ".agent-response.json").write_text('{"request_id": "x", "sta', encoding="utf-8")
    with pytest.raises(ValueError, match="Malformed response file"):
        AgentBridgeInvoker().load_response()
    assert not (tmp_path / ".agent-response.json").exists()
    assert list(tmp_path.glob(".agent-response.json.rejected-*"))


def test_load_response_missing_fields_is_value_error(tmp_path: Path) -> None:
    (tmp_path / ".agent-response.json").write_text(
        json.dumps({"request_id": "x", "response": "hi"}), encoding="utf-8"
    )
    with pytest.raises(ValueError, match="status: required field is missing"):
        AgentBridgeInvoker().load_response()


def test_invoke_loads_waiting_response_instead_of_requesting_again(tmp_path: Path) -> None:
    """Seed 003's infinite loop: invoke() without a has_response() check. Designed out."""
    invoker = AgentBridgeInvoker()
    with pytest.raises(SystemExit):
        invoker.invoke("architectural-reviewer", "Test prompt")
    request_id = read_json(tmp_path / ".agent-request.json")["request_id"]
    write_response(tmp_path / ".agent-response.json", request_id, response="answer")
    assert AgentBridgeInvoker().invoke("architectural-reviewer", "Test prompt") == "answer"
    assert not (tmp_path / ".agent-response.json").exists()
    assert not (tmp_path / ".agent-request.json").exists()


def test_load_response_rejects_response_for_another_pending_request(tmp_path: Path) -> None:
    invoker = AgentBridgeInvoker()
    with pytest.raises(SystemExit):
        invoker.invoke("architectural-reviewer", "Test prompt")
    write_response(tmp_path / ".agent-response.json", "someone-else")
    with pytest.raises(ValueError, match="someone-else"):
        AgentBridgeInvoker().load_response()
    assert (tmp_path / ".agent-request.json").exists()
