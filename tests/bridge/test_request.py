"""`AgentBridgeInvoker.request()`: the one call that cannot loop ("beyond the seed")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from executor.bridge import AgentBridgeInvoker, AgentInvocationError, StateManager
from executor.errors import (
    AgentUnavailableError,
    DefinitionDriftError,
    InvalidResponseError,
    NeedAgent,
)
from executor.retry import RetryPolicy
from tests.bridge.helpers import read_json, write_response

AGENT = "architectural-reviewer"
PROMPT = "Analyse this codebase and list the agents it needs."


class Sleeps:
    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def make(tmp_path: Path, **kw: object) -> AgentBridgeInvoker:
    return AgentBridgeInvoker(
        request_file=tmp_path / ".agent-request.json",
        response_file=tmp_path / ".agent-response.json",
        **kw,  # type: ignore[arg-type]
    )


def ask(tmp_path: Path, prompt: str = PROMPT, **kw: object) -> str:
    return make(tmp_path, **kw).request(AGENT, prompt)


def emitted(tmp_path: Path, prompt: str = PROMPT, **kw: object) -> NeedAgent:
    with pytest.raises(NeedAgent) as exc_info:
        ask(tmp_path, prompt, **kw)
    assert exc_info.value.code == 42
    return exc_info.value


def test_first_call_records_pending_then_writes_request(tmp_path: Path) -> None:
    need = emitted(tmp_path)
    request = read_json(tmp_path / ".agent-request.json")
    ledger = read_json(tmp_path / ".agent-bridge-ledger.json")
    assert ledger["pending"]["request_id"] == request["request_id"] == need.request_id
    assert need.request_file == tmp_path / ".agent-request.json"
    assert need.request_file.is_absolute() and need.response_file.is_absolute()


def test_matching_response_is_returned_and_files_removed(tmp_path: Path) -> None:
    need = emitted(tmp_path)
    write_response(tmp_path / ".agent-response.json", need.request_id, response="the answer")
    assert ask(tmp_path) == "the answer"
    assert not (tmp_path / ".agent-response.json").exists()
    assert not (tmp_path / ".agent-request.json").exists()
    assert ask(tmp_path) == "the answer"  # a replayed run gets the same answer, no new request
    assert not (tmp_path / ".agent-request.json").exists()


def test_missing_response_reemits_same_id_with_attempt_count(tmp_path: Path) -> None:
    first = emitted(tmp_path)
    second = emitted(tmp_path)
    third = emitted(tmp_path)
    assert first.request_id == second.request_id == third.request_id
    assert (first.emission, second.emission, third.emission) == (1, 2, 3)
    assert read_json(tmp_path / ".agent-request.json")["emission"] == 3


def test_attempt_cap_fails_with_clear_message(tmp_path: Path) -> None:
    for _ in range(3):
        emitted(tmp_path, max_attempts=3)
    with pytest.raises(AgentUnavailableError) as exc_info:
        ask(tmp_path, max_attempts=3)
    message = str(exc_info.value)
    assert "after 3 attempts" in message
    assert str(tmp_path / ".agent-request.json") in message
    assert str(tmp_path / ".agent-response.json") in message
    assert exc_info.value.exit_code == 17
    # the host can still answer the pending request afterwards
    request_id = read_json(tmp_path / ".agent-request.json")["request_id"]
    write_response(tmp_path / ".agent-response.json", request_id, response="late")
    assert ask(tmp_path, max_attempts=3) == "late"


def test_stale_response_rejected_state_unchanged_request_pending(tmp_path: Path) -> None:
    need = emitted(tmp_path)
    ledger_before = (tmp_path / ".agent-bridge-ledger.json").read_bytes()
    write_response(tmp_path / ".agent-response.json", "00000000-old-run")
    with pytest.raises(InvalidResponseError) as exc_info:
        ask(tmp_path)
    message = str(exc_info.value)
    assert "00000000-old-run" in message and need.request_id in message
    assert str(tmp_path / ".agent-response.json") in message
    assert (tmp_path / ".agent-bridge-ledger.json").read_bytes() == ledger_before
    assert read_json(tmp_path / ".agent-request.json")["request_id"] == need.request_id
    assert list(tmp_path.glob(".agent-response.json.rejected-*"))
    again = emitted(tmp_path)  # the next resume re-emits the same pending request
    assert again.request_id == need.request_id


def test_duplicate_consumption_is_a_no_op(tmp_path: Path) -> None:
    need = emitted(tmp_path)
    body = json.dumps({"request_id": need.request_id, "status": "success", "response": "once"})
    (tmp_path / ".agent-response.json").write_text(body, encoding="utf-8")
    assert ask(tmp_path) == "once"
    ledger = (tmp_path / ".agent-bridge-ledger.json").read_bytes()
    (tmp_path / ".agent-response.json").write_text(body, encoding="utf-8")  # host re-writes it
    second = make(tmp_path)
    with pytest.raises(NeedAgent):
        second.request(AGENT, "the next question")
    led = read_json(tmp_path / ".agent-bridge-ledger.json")
    assert [c["request_id"] for c in led["consumed"]] == [need.request_id]
    assert not (tmp_path / ".agent-response.json").exists()  # the duplicate was dropped
    assert ledger != (tmp_path / ".agent-bridge-ledger.json").read_bytes()  # only the new pending


def test_object_response_is_serialised(tmp_path: Path) -> None:
    need = emitted(tmp_path)
    write_response(
        tmp_path / ".agent-response.json", need.request_id, response={"agents": [{"name": "x"}]}
    )
    assert json.loads(ask(tmp_path)) == {"agents": [{"name": "x"}]}


def test_array_response_is_serialised(tmp_path: Path) -> None:
    need = emitted(tmp_path)
    write_response(tmp_path / ".agent-response.json", need.request_id, response=[1, "two"])
    assert json.loads(ask(tmp_path)) == [1, "two"]


def test_result_field_rejected_naming_response_field(tmp_path: Path) -> None:
    need = emitted(tmp_path)
    (tmp_path / ".agent-response.json").write_text(
        json.dumps({"request_id": need.request_id, "status": "success", "result": "x"}),
        encoding="utf-8",
    )
    with pytest.raises(InvalidResponseError) as exc_info:
        ask(tmp_path)
    message = str(exc_info.value)
    assert "`result`" in message and "`response` field" in message
    assert '"response": "<the answer, as a string>"' in message  # a correct example
    assert read_json(tmp_path / ".agent-request.json")["request_id"] == need.request_id


def test_bare_payload_rejected_with_example(tmp_path: Path) -> None:
    emitted(tmp_path)
    (tmp_path / ".agent-response.json").write_text('[{"name": "agent"}]', encoding="utf-8")
    with pytest.raises(InvalidResponseError, match=r"bare payload.*`response` field"):
        ask(tmp_path)
    (tmp_path / ".agent-response.json").write_text('{"agents": []}', encoding="utf-8")
    with pytest.raises(InvalidResponseError, match="bare payload"):
        ask(tmp_path)


def test_bad_status_field_level_message(tmp_path: Path) -> None:
    need = emitted(tmp_path)
    write_response(tmp_path / ".agent-response.json", need.request_id, status="ok")
    with pytest.raises(InvalidResponseError) as exc_info:
        ask(tmp_path)
    assert exc_info.value.problems == [
        "status: expected one of success, error, timeout, cancelled, invalid_request, got 'ok'"
    ]


def test_torn_response_quarantined_request_stays_pending(tmp_path: Path) -> None:
    need = emitted(tmp_path)
    (tmp_path / ".agent-response.json").write_text('{"request_id": "', encoding="utf-8")
    with pytest.raises(InvalidResponseError, match="not valid JSON"):
        ask(tmp_path)
    assert not (tmp_path / ".agent-response.json").exists()
    assert emitted(tmp_path).request_id == need.request_id


def _fail(tmp_path: Path, request_id: str, error_type: str, status: str = "error") -> None:
    write_response(
        tmp_path / ".agent-response.json",
        request_id,
        status=status,
        response=None,
        error_message="boom",
        error_type=error_type,
    )


def test_retryable_error_retried_with_backoff_then_raised(tmp_path: Path) -> None:
    sleeps = Sleeps()
    ids = [emitted(tmp_path, max_retries=2, sleep=sleeps, backoff_seconds=0.5).request_id]
    for _ in range(2):
        _fail(tmp_path, ids[-1], "INVOCATION_FAILED")
        ids.append(emitted(tmp_path, max_retries=2, sleep=sleeps, backoff_seconds=0.5).request_id)
    assert len(set(ids)) == 3  # each retry is a new request (the old id was consumed)
    assert sleeps.calls == [0.5, 1.0]
    _fail(tmp_path, ids[-1], "TIMEOUT", status="timeout")
    with pytest.raises(AgentInvocationError) as exc_info:
        ask(tmp_path, max_retries=2, sleep=sleeps, backoff_seconds=0.5)
    assert exc_info.value.status == "timeout" and "boom" in str(exc_info.value)
    # the failure is the outcome: a replay raises it again and never re-requests
    with pytest.raises(AgentInvocationError):
        ask(tmp_path, max_retries=2, sleep=sleeps)
    assert not (tmp_path / ".agent-request.json").exists()


@pytest.mark.parametrize("error_type", ["PARSE_ERROR", "VALIDATION_ERROR", "AGENT_NOT_FOUND"])
def test_non_retryable_error_raised_immediately(tmp_path: Path, error_type: str) -> None:
    sleeps = Sleeps()
    need = emitted(tmp_path, sleep=sleeps)
    _fail(tmp_path, need.request_id, error_type)
    with pytest.raises(AgentInvocationError) as exc_info:
        ask(tmp_path, sleep=sleeps)
    assert exc_info.value.error_type == error_type
    assert not RetryPolicy.retryable(exc_info.value.status, exc_info.value.error_type)
    assert sleeps.calls == []


def test_cancelled_is_not_retried_and_never_success(tmp_path: Path) -> None:
    need = emitted(tmp_path)
    write_response(
        tmp_path / ".agent-response.json",
        need.request_id,
        status="cancelled",
        response="ignored text",
    )
    with pytest.raises(AgentInvocationError) as exc_info:
        ask(tmp_path)
    assert exc_info.value.status == "cancelled"


def test_different_call_pending_is_definition_drift(tmp_path: Path) -> None:
    emitted(tmp_path)
    with pytest.raises(DefinitionDriftError, match="different agent call is pending"):
        ask(tmp_path, "a different prompt")


def test_long_prompt_goes_to_brief_request_stays_small(tmp_path: Path) -> None:
    prompt = "Describe the architecture. " * 2000  # ~54 KB
    need = emitted(tmp_path, prompt)
    request_file = tmp_path / ".agent-request.json"
    assert request_file.stat().st_size <= 2048
    brief = Path(read_json(request_file)["context"]["prompt_file"])
    assert brief.is_absolute() and brief == need.prompt_file
    assert brief.read_text(encoding="utf-8") == prompt
    assert str(brief) in read_json(request_file)["prompt"]
    write_response(tmp_path / ".agent-response.json", need.request_id, response="ok")
    assert ask(tmp_path, prompt) == "ok"
    assert not brief.exists()


def test_ledger_kept_in_template_create_state(tmp_path: Path) -> None:
    sm = StateManager(tmp_path / ".template-create-state.json")
    sm.save_state("templates_generated", 5, {"a": 1}, {"b": 2})
    need = emitted(tmp_path, state_manager=sm)
    state = sm.load_state()
    assert state.agent_request_pending is not None
    assert state.agent_request_pending["request_id"] == need.request_id
    assert not (tmp_path / ".agent-bridge-ledger.json").exists()
    # a checkpoint save by the orchestrator keeps the pending request and the ledger
    sm.save_state("agent_generation_pending", 6, {"a": 1}, {"b": 2})
    assert sm.load_state().agent_request_pending["request_id"] == need.request_id  # type: ignore[index]
    write_response(tmp_path / ".agent-response.json", need.request_id, response="via state")
    assert ask(tmp_path, state_manager=sm) == "via state"
    state = sm.load_state()
    assert state.agent_request_pending is None
    assert state.bridge is not None and state.bridge.consumed[0].request_id == need.request_id


def test_corrupt_ledger_refused_not_reset(tmp_path: Path) -> None:
    ledger = tmp_path / ".agent-bridge-ledger.json"
    ledger.write_text("{nope", encoding="utf-8")
    from executor.errors import CorruptStateError

    with pytest.raises(CorruptStateError, match=str(ledger)):
        ask(tmp_path)
    assert ledger.read_text(encoding="utf-8") == "{nope"
