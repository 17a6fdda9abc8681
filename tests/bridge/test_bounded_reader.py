"""THE reader of bridge files (`executor.bridge.reading`): a regular file only, bounded,
JSON nested a little and holding finite numbers only; and its callers never block."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from executor.agent_output import reported_number
from executor.bridge import BridgeChannel
from executor.bridge.invoker import FileLedgerStore
from executor.errors import CorruptStateError, DataError
from executor.safe_read import MAX_JSON_DEPTH, parse_json, read_bounded


def plant(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        target = path.with_name("elsewhere.json")
        target.write_text("{}", encoding="utf-8")
        path.symlink_to(target)


@pytest.mark.parametrize("kind", ["fifo", "folder", "device", "link"])
def test_anything_but_a_regular_file_is_refused_unopened(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "f.json"
    plant(path, kind)
    with pytest.raises(DataError, match=r"\(file\): it is not a regular file \(a "):
        read_bounded(path, 100)


def test_a_file_over_the_limit_is_refused_and_one_at_it_read(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"x" * 101)
    with pytest.raises(DataError, match="it is 101 bytes, over the 100-byte limit"):
        read_bounded(path, 100)
    path.write_bytes(b"x" * 100)
    assert read_bounded(path, 100) == b"x" * 100
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "none.json", 100)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"a": Infinity}', "Infinity: not a finite number"),
        ('{"a": -Infinity}', "-Infinity: not a finite number"),
        ("[NaN]", "NaN: not a finite number"),
        ('{"a": 1e400}', "1e400: not a finite number"),
        ('{"a": -1E+999}', "-1E+999: not a finite number"),
        ("[" * 100_000, "nested more than 64 levels deep"),
        ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), "nested more than 64"),
        ('{"a": ' + "1" * 5000 + "}", "not valid JSON"),
        ('{"a": 1', "not valid JSON"),
        ('"\xff"', "not valid JSON"),
    ],
)
def test_json_no_model_can_hold_safely_is_refused(text: str, problem: str) -> None:
    data = text.encode("utf-8") if "\xff" not in text else b'"\xff"'
    with pytest.raises(DataError) as e:
        parse_json(data)
    assert e.value.problems[0].startswith("(file): ") and problem in e.value.problems[0]


def test_json_within_the_limits_is_read() -> None:
    deepest = "[" * (MAX_JSON_DEPTH - 1) + "]" * (MAX_JSON_DEPTH - 1)  # in the object: 64
    assert parse_json(f'{{"a": 1e308, "b": -0.5, "c": {deepest}}}'.encode())["a"] == 1e308


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_the_ledger_and_the_request_file_never_block(tmp_path: Path, kind: str) -> None:
    ledger = tmp_path / ".agent-bridge-ledger.json"
    plant(ledger, kind)
    with pytest.raises(CorruptStateError, match="not a regular file"):
        FileLedgerStore(ledger).load()
    channel = BridgeChannel(tmp_path)
    plant(channel.request_file, kind)
    channel.drop_request("any")  # neither read nor removed
    assert os.path.lexists(channel.request_file)


def test_a_response_nothing_waits_for_is_moved_aside_unread(tmp_path: Path) -> None:
    channel = BridgeChannel(tmp_path)
    plant(channel.response_file, "fifo")
    moved = channel.discard_unbound([])
    assert moved is not None and not os.path.lexists(channel.response_file)
    assert moved.name.startswith(".agent-response.json.rejected-")


@pytest.mark.parametrize(
    ("value", "number"),
    [(0.25, 0.25), (3, 3.0), (10**400, None), (-1, None), (float("inf"), None),
     (float("nan"), None), (True, None), ("0.5", None), (None, None)],
)  # fmt: skip
def test_a_hosts_metadata_number_counts_only_when_finite_and_not_negative(
    value: object, number: float | None
) -> None:
    assert reported_number(value) == number


def test_a_response_object_too_deep_to_serialise_is_refused_not_crashed(tmp_path: Path) -> None:
    from executor.bridge.reading import parse_response
    from executor.errors import InvalidResponseError

    deep = "[" * 500 + "]" * 500
    body = f'{{"request_id": "r", "status": "success", "response": {deep}}}'
    with pytest.raises(InvalidResponseError, match="nested more than 64 levels"):
        parse_response(body.encode(), path=tmp_path / "r.json")
    ok = json.dumps({"request_id": "r", "status": "success", "response": {"a": [1, 2]}})
    assert parse_response(ok.encode(), path=tmp_path / "r.json").response == '{"a": [1, 2]}'
