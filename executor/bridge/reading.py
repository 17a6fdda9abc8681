"""Tolerant, explicit readers for the files other programs write (and a validator).

Tolerant: a `response` that is a JSON object or array is accepted and serialised to a
string; unknown extra keys are ignored; `version`/`created_at` may be missing; any
`error_type` string is kept. Explicit: `result` instead of `response`, a bare payload
without the envelope, a bad status are rejected with field-level problems and a correct
example. A file that is not JSON at all (a torn write) is moved aside, never re-read.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from executor.bridge.models import PROTOCOL_VERSION, AgentRequest, AgentResponse
from executor.datamodel import validate
from executor.errors import BridgeFileInvalid, DataError, InvalidResponseError

RESPONSE_EXAMPLE = (
    '{"request_id": "<the pending request_id>", "version": "1.0", "status": "success", '
    '"response": "<the answer, as a string>"}'
)
_HOW_TO_FIX = (
    f"A correct minimal response is: {RESPONSE_EXAMPLE} "
    "(or let `executor bridge respond` write it)."
)
_RESPONSE_FIELDS = {
    "request_id",
    "version",
    "status",
    "response",
    "error_message",
    "error_type",
    "created_at",
    "duration_seconds",
    "metadata",
}


def quarantine(path: Path, label: str = "rejected") -> Path | None:
    """Move `path` aside to `<name>.<label>-<timestamp>`; None if it vanished meanwhile."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + f"{time.time_ns() % 10**9:09d}"
    target = path.with_name(f"{path.name}.{label}-{stamp}")
    try:
        os.replace(path, target)
    except FileNotFoundError:
        return None
    return target


def parse_response(data: bytes, *, path: Path) -> AgentResponse:
    """Parse response bytes tolerantly; raise InvalidResponseError naming the problems."""
    path = path.absolute()
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InvalidResponseError(
            f"Malformed response file {path}: not valid JSON ({e}); a torn or partial write? "
            f"Hosts must write it atomically. {_HOW_TO_FIX}",
            path=path,
            problems=[f"(file): not valid JSON: {e}"],
        ) from e
    if not isinstance(raw, dict) or ("request_id" not in raw and "status" not in raw):
        raise InvalidResponseError(
            f"Rejected response file {path}: it holds a bare payload, not the response "
            f"envelope; put the payload in the `response` field. {_HOW_TO_FIX}",
            path=path,
            problems=["(file): bare payload; expected an object with request_id, status, response"],
        )
    if "result" in raw and "response" not in raw:
        raise InvalidResponseError(
            f"Rejected response file {path}: it has a `result` field; the answer goes in the "
            f"`response` field. {_HOW_TO_FIX}",
            path=path,
            problems=["result: unknown field; the answer belongs in `response`"],
        )
    raw = {k: v for k, v in raw.items() if k in _RESPONSE_FIELDS}
    if isinstance(raw.get("response"), (dict, list)):
        raw["response"] = json.dumps(raw["response"], ensure_ascii=False)
    problems: list[str] = []
    try:
        resp = validate(AgentResponse, raw)
    except DataError as e:
        problems = e.problems
    else:
        if not resp.version.startswith(PROTOCOL_VERSION.split(".")[0] + "."):
            problems.append(f"version: expected {PROTOCOL_VERSION}, got {resp.version!r}")
        if resp.status == "success" and resp.response is None:
            problems.append("response: required when status is success")
    if problems:
        raise InvalidResponseError(
            f"Rejected response file {path}: " + "; ".join(problems) + f". {_HOW_TO_FIX}",
            path=path,
            problems=problems,
        )
    return resp


def read_response(path: Path, data: bytes | None = None) -> AgentResponse:
    """Parse a response file (or its bytes, already read); on rejection move it aside.

    Raises FileNotFoundError when absent, InvalidResponseError when rejected.
    """
    path = path.absolute()
    if data is None:
        data = path.read_bytes()
    try:
        return parse_response(data, path=path)
    except InvalidResponseError as e:
        moved = quarantine(path)
        where = f" It was moved aside to {moved}." if moved else ""
        raise InvalidResponseError(str(e) + where, path=path, problems=e.problems) from e


def _load_file(path: Path, what: str) -> Any:
    """The file's JSON; BridgeFileInvalid when it is not JSON at all."""
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BridgeFileInvalid(
            f"Invalid {what} {path}: not valid JSON ({e})",
            path=path,
            problems=[f"(file): not valid JSON: {e}"],
        ) from e


def _validated(model: type[BaseModel], path: Path, raw: Any, what: str) -> BaseModel:
    try:
        return validate(model, raw)
    except DataError as e:
        raise BridgeFileInvalid(
            f"Invalid {what} file {path}: " + "; ".join(e.problems), path=path, problems=e.problems
        ) from e


def read_request(path: Path) -> AgentRequest:
    """Read a request file we wrote. FileNotFoundError, or BridgeFileInvalid with problems."""
    path = path.absolute()
    req = _validated(AgentRequest, path, _load_file(path, "request file"), "request")
    assert isinstance(req, AgentRequest)
    return req


def validate_file(path: Path) -> tuple[str, BaseModel]:
    """Check a request or response file (detected by its fields); return (kind, record).

    Raises FileNotFoundError, or BridgeFileInvalid with field-level problems.
    """
    path = path.absolute()
    raw = _load_file(path, "file")
    if isinstance(raw, dict) and ("prompt" in raw or "phase_name" in raw) and "status" not in raw:
        return "request", read_request(path)
    try:
        return "response", parse_response(path.read_bytes(), path=path)
    except InvalidResponseError as e:
        raise BridgeFileInvalid(str(e), path=path, problems=e.problems) from e


def remove_quietly(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
