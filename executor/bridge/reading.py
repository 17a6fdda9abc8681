"""The readers of bridge files, and tolerant, explicit readers for what hosts write.

Every read of a bridge file (response, request, ledger) goes through the one bounded
reader (`executor.safe_read`: a regular file only, a size cap, JSON nested at most 64 deep
with finite numbers only), then its pydantic model. A refusal is a `DataError` naming the
problem as `(file): ...`; each reader here turns it into the error of its file.

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
from typing import Any, TypeVar

from pydantic import BaseModel

from executor.bridge.models import PROTOCOL_VERSION, AgentRequest, AgentResponse
from executor.datamodel import validate
from executor.errors import BridgeFileInvalid, DataError, InvalidResponseError
from executor.safe_read import parse_json, read_bounded, said

M = TypeVar("M", bound=BaseModel)

#: A response larger than this is rejected unread (a runaway host, or a wrong file).
MAX_RESPONSE_BYTES = 1_000_000
#: The most a bridge file the executor wrote (a request, a ledger with its answers, a
#: brief) may hold before it is refused unread.
MAX_OWN_BYTES = 64_000_000
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


def read_json(path: Path, model: type[M], *, limit: int = MAX_OWN_BYTES) -> M:
    """A bridge file the executor wrote, as `model`: bounded, parsed, validated.

    Raises FileNotFoundError, or DataError listing `location: problem`.
    """
    return validate(model, parse_json(read_bounded(path, limit)))


def parse_response(data: bytes, *, path: Path) -> AgentResponse:
    """Parse response bytes tolerantly; raise InvalidResponseError naming the problems."""
    path = path.absolute()
    try:
        raw = parse_json(data)
    except DataError as e:
        torn = "not valid JSON" in e.problems[0]
        hint = "; a torn or partial write? Hosts must write it atomically" if torn else ""
        raise InvalidResponseError(
            f"Malformed response file {path}: {said(e)}{hint}. {_HOW_TO_FIX}",
            path=path,
            problems=e.problems,
        ) from None
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


def read_response(path: Path) -> tuple[AgentResponse, bytes]:
    """The response in `path` and its bytes; a refused or rejected file is moved aside.

    Raises FileNotFoundError when absent, InvalidResponseError when refused (not a
    regular file, too large) or rejected (its content).
    """
    path = path.absolute()
    try:
        data = read_bounded(path, MAX_RESPONSE_BYTES)
    except DataError as e:
        error = InvalidResponseError(
            f"Rejected response file {path}: {said(e)}.", path=path, problems=e.problems
        )
    else:
        try:
            return parse_response(data, path=path), data
        except InvalidResponseError as e:
            error = e
    moved = quarantine(path)
    where = f" It was moved aside to {moved}." if moved else ""
    raise InvalidResponseError(str(error) + where, path=path, problems=error.problems)


def _load_file(path: Path, what: str) -> tuple[Any, bytes]:
    """The file's JSON and bytes; BridgeFileInvalid when it is refused or not JSON."""
    try:
        data = read_bounded(path, MAX_OWN_BYTES)
        return parse_json(data), data
    except DataError as e:
        raise BridgeFileInvalid(
            f"Invalid {what} {path}: {said(e)}", path=path, problems=e.problems
        ) from None


def _validated(model: type[M], path: Path, raw: Any, what: str) -> M:
    try:
        return validate(model, raw)
    except DataError as e:
        raise BridgeFileInvalid(
            f"Invalid {what} file {path}: " + "; ".join(e.problems), path=path, problems=e.problems
        ) from e


def read_request(path: Path) -> AgentRequest:
    """Read a request file we wrote. FileNotFoundError, or BridgeFileInvalid with problems."""
    path = path.absolute()
    return _validated(AgentRequest, path, _load_file(path, "request file")[0], "request")


def validate_file(path: Path) -> tuple[str, BaseModel]:
    """Check a request or response file (detected by its fields); return (kind, record).

    Raises FileNotFoundError, or BridgeFileInvalid with field-level problems.
    """
    path = path.absolute()
    raw, data = _load_file(path, "file")
    if isinstance(raw, dict) and ("prompt" in raw or "phase_name" in raw) and "status" not in raw:
        return "request", _validated(AgentRequest, path, raw, "request")
    if len(data) > MAX_RESPONSE_BYTES:
        problem = f"(file): it is {len(data)} bytes, over the {MAX_RESPONSE_BYTES}-byte limit"
        raise BridgeFileInvalid(
            f"Invalid response file {path}: {problem}", path=path, problems=[problem]
        )
    try:
        return "response", parse_response(data, path=path)
    except InvalidResponseError as e:
        raise BridgeFileInvalid(str(e), path=path, problems=e.problems) from e


def remove_quietly(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
