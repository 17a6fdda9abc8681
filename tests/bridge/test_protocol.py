"""BridgeChannel: the engine's contract (binding, consumption, attempts, emission)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from executor.bridge import BridgeChannel, Consumed, Ledger, PendingRequest, Reply
from executor.bridge.models import sha256_bytes
from executor.cli.common import need_agent_line
from executor.errors import AgentUnavailableError, InvalidResponseError, NeedAgent
from executor.retry import RetryPolicy
from tests.bridge.helpers import read_json, write_response


@pytest.fixture
def channel(tmp_path: Path) -> BridgeChannel:
    return BridgeChannel(tmp_path / "plan", policy=RetryPolicy(max_emissions=3))


def _emit(
    channel: BridgeChannel, pending: PendingRequest, prompt: str = "do it", **ctx: object
) -> NeedAgent:
    with pytest.raises(NeedAgent) as exc_info:
        channel.emit(
            pending,
            phase=1,
            phase_name="session",
            prompt=prompt,
            context=dict(ctx),
        )
    return exc_info.value


def test_files_are_absolute_in_the_run_folder(channel: BridgeChannel, tmp_path: Path) -> None:
    assert channel.request_file == tmp_path / "plan" / ".agent-request.json"
    assert channel.response_file == tmp_path / "plan" / ".agent-response.json"


def test_poll_absent_is_none(channel: BridgeChannel) -> None:
    pending = channel.new_pending(key="s1.red", agent_name="builder", prompt="p")
    assert channel.poll(pending, []) is None


def test_emit_writes_request_and_raises_need_agent(channel: BridgeChannel) -> None:
    pending = channel.new_pending(key="s1.red", agent_name="builder", prompt="do it")
    need = _emit(channel, pending)
    assert need.code == 42 and need.request_id == pending.request_id
    assert need.request_file == channel.request_file
    line = need_agent_line(need)  # what the CLI prints from the data the exception carries
    assert "executor bridge respond --dir" in line and "--status success" in line
    assert str(channel.request_file) in line
    req = read_json(channel.request_file)
    assert req["request_id"] == pending.request_id
    assert (req["attempt"], req["emission"]) == (1, 1)


def test_poll_bound_reply_error_is_not_success(channel: BridgeChannel) -> None:
    pending = channel.new_pending(key="k", agent_name="builder", prompt="p")
    channel.folder.mkdir()
    write_response(
        channel.response_file,
        pending.request_id,
        status="timeout",
        response=None,
        error_type="TIMEOUT",
        error_message="slow",
    )
    reply = channel.poll(pending, [])
    assert reply is not None
    assert (reply.status, reply.error_type, reply.text) == ("timeout", "TIMEOUT", None)
    assert reply.response_sha256 == sha256_bytes(channel.response_file.read_bytes())


def test_consumed_same_bytes_is_dropped_silently(channel: BridgeChannel) -> None:
    pending = channel.new_pending(key="k", agent_name="builder", prompt="p")
    channel.folder.mkdir()
    write_response(channel.response_file, pending.request_id)
    sha = sha256_bytes(channel.response_file.read_bytes())
    consumed = [Consumed(request_id=pending.request_id, response_sha256=sha)]
    assert channel.poll(pending, consumed) is None
    assert not channel.response_file.exists()


def test_consumed_different_bytes_is_a_conflict(channel: BridgeChannel) -> None:
    pending = channel.new_pending(key="k", agent_name="builder", prompt="p")
    channel.folder.mkdir()
    write_response(channel.response_file, pending.request_id, response="second opinion")
    consumed = [Consumed(request_id=pending.request_id, response_sha256="0" * 64)]
    with pytest.raises(InvalidResponseError, match="conflict"):
        channel.poll(pending, consumed)
    assert not channel.response_file.exists()


def test_foreign_id_rejected_and_moved_aside(channel: BridgeChannel) -> None:
    pending = channel.new_pending(key="k", agent_name="builder", prompt="p")
    channel.folder.mkdir()
    write_response(channel.response_file, "other-id")
    with pytest.raises(InvalidResponseError) as exc_info:
        channel.poll(pending, [])
    assert "other-id" in str(exc_info.value) and pending.request_id in str(exc_info.value)
    assert "moved aside" in str(exc_info.value).lower()
    assert not channel.response_file.exists()
    assert len(list(channel.folder.glob(".agent-response.json.rejected-*"))) == 1


def test_bump_emission_and_cap(channel: BridgeChannel) -> None:
    pending = channel.new_pending(key="k", agent_name="builder", prompt="p", attempt=2)
    pending = channel.bump(channel.bump(pending))
    assert (pending.emissions, pending.attempt) == (3, 2)
    with pytest.raises(AgentUnavailableError) as exc_info:
        channel.bump(pending)
    assert "after 3 attempts" in str(exc_info.value)
    assert str(channel.request_file) in str(exc_info.value)


def test_caller_prompt_file_is_kept(channel: BridgeChannel, tmp_path: Path) -> None:
    brief = tmp_path / "brief.md"
    brief.write_text("x" * 5000, encoding="utf-8")
    pending = channel.new_pending(key="k", agent_name="builder", prompt="x" * 5000)
    need = _emit(channel, pending, "x" * 5000, prompt_file=str(brief))
    req = read_json(channel.request_file)
    assert req["context"]["prompt_file"] == str(brief) and need.prompt_file == brief
    assert channel.request_file.stat().st_size <= 2048
    assert not channel.briefs_dir.exists()


def test_human_request_kind(channel: BridgeChannel) -> None:
    pending = channel.new_pending(key="s1.after_red", agent_name="human", prompt="Proceed?")
    assert pending.kind == "human"


def test_finish_removes_only_what_was_consumed(channel: BridgeChannel) -> None:
    first = channel.new_pending(key="a", agent_name="builder", prompt="p")
    _emit(channel, first)
    write_response(channel.response_file, first.request_id)
    reply = channel.poll(first, [])
    assert reply is not None
    channel.finish(reply)
    assert not channel.request_file.exists() and not channel.response_file.exists()
    channel.finish(reply)  # idempotent
    second = channel.new_pending(key="b", agent_name="builder", prompt="q")
    _emit(channel, second)
    channel.finish(reply)  # a late finish of the old reply never removes the new request
    assert json.loads(channel.request_file.read_text())["request_id"] == second.request_id


def test_discard_unbound(channel: BridgeChannel) -> None:
    channel.folder.mkdir()
    write_response(channel.response_file, "old")
    moved = channel.discard_unbound([])
    assert moved is not None and moved.exists() and not channel.response_file.exists()


def test_exchange_same_call_polls_then_reemits_the_same_id(channel: BridgeChannel) -> None:
    ledger = Ledger()
    first = channel.exchange(ledger, key="s1.red.a1", agent_name="b", prompt="p")
    assert isinstance(first, PendingRequest) and ledger.pending == first
    again = channel.exchange(ledger, key="s1.red.a1", agent_name="b", prompt="p")
    assert isinstance(again, PendingRequest)
    assert (again.request_id, again.emissions) == (first.request_id, 2)
    channel.folder.mkdir()
    write_response(channel.response_file, first.request_id, response="done")
    reply = channel.exchange(ledger, key="s1.red.a1", agent_name="b", prompt="p")
    assert isinstance(reply, Reply) and reply.text == "done"


def test_exchange_changed_prompt_obsoletes_the_old_request(channel: BridgeChannel) -> None:
    """P15: a different brief for the same step is a new request; a late answer to the
    old one is stale and never applied to the new one."""
    ledger = Ledger()
    old = channel.exchange(ledger, key="s1.red.a1", agent_name="b", prompt="p")
    assert isinstance(old, PendingRequest)
    channel.folder.mkdir()
    write_response(channel.response_file, old.request_id, response="late")
    new = channel.exchange(ledger, key="s1.red.a1", agent_name="b", prompt="p2")
    assert isinstance(new, PendingRequest) and new.request_id != old.request_id
    assert not channel.response_file.exists()
    assert len(list(channel.folder.glob(".agent-response.json.rejected-*"))) == 1


def test_oversized_or_special_response_is_rejected_unread(channel: BridgeChannel) -> None:
    import os

    pending = channel.new_pending(key="k", agent_name="b", prompt="p")
    channel.folder.mkdir()
    channel.response_file.write_bytes(b" " * 1_000_001)
    with pytest.raises(InvalidResponseError, match="over the 1000000-byte limit"):
        channel.poll(pending, [])
    assert not channel.response_file.exists()
    os.mkfifo(channel.response_file)
    with pytest.raises(InvalidResponseError, match="not a regular file"):
        channel.poll(pending, [])
    assert not channel.response_file.exists()
