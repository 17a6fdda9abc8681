"""THE reader of bridge files, and tolerant, explicit readers for what hosts write.

Every read of a bridge file (response, request, ledger) goes through `read_bounded` and
`parse_json`: a regular file only (never a FIFO, device, folder or link: lstat first,
then opened with O_NONBLOCK | O_NOFOLLOW and checked again), at most a size cap, JSON
nested at most `MAX_JSON_DEPTH` deep whose numbers are all finite (`Infinity`, `NaN` and
`1e400` are refused), then the pydantic model. A refusal is a `DataError` naming the
problem as `(file): ...`, which each caller turns into the error of its file.

Tolerant: a `response` that is a JSON object or array is accepted and serialised to a
string; unknown extra keys are ignored; `version`/`created_at` may be missing; any
`error_type` string is kept. Explicit: `result` instead of `response`, a bare payload
without the envelope, a bad status are rejected with field-level problems and a correct
example. A file that is not JSON at all (a torn write) is moved aside, never re-read.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import time
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from executor.bridge.models import PROTOCOL_VERSION, AgentRequest, AgentResponse
from executor.datamodel import validate
from executor.errors import BridgeFileInvalid, DataError, InvalidResponseError

M = TypeVar("M", bound=BaseModel)

#: A response larger than this is rejected unread (a runaway host, or a wrong file).
MAX_RESPONSE_BYTES = 1_000_000
#: The most a bridge file the executor wrote (a request, a ledger with its answers, a
#: brief) may hold before it is refused unread.
MAX_OWN_BYTES = 64_000_000
#: JSON nested deeper than this is refused (a response's envelope is level 1).
MAX_JSON_DEPTH = 64
_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISLNK, "a symbolic link, never followed"),
)

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


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of `path`, a regular file of at most `limit` bytes; nothing can block.

    Raises FileNotFoundError when it is absent, DataError (`(file): problem`) when it is
    a FIFO, device, socket, folder or symbolic link, over `limit`, or cannot be read.
    """
    try:
        _check(os.lstat(path), limit)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as e:  # a link or a FIFO swapped in after lstat: ELOOP, ENXIO
        raise DataError([f"(file): cannot be read: {e.strerror or e}"]) from None
    try:
        _check(os.fstat(fd), limit)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(limit + 1 - size, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise DataError([f"(file): cannot be read: {e.strerror or e}"]) from None
    finally:
        os.close(fd)
    if size > limit:
        raise DataError([f"(file): it grew over the {limit}-byte limit while read"])
    return b"".join(chunks)


def _check(info: os.stat_result, limit: int) -> None:
    for test, kind in _KINDS:
        if test(info.st_mode):
            raise DataError([f"(file): it is not a regular file ({kind})"])
    if info.st_size > limit:
        raise DataError([f"(file): it is {info.st_size} bytes, over the {limit}-byte limit"])


class _NotFinite(ValueError):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value


def _refuse(text: str) -> Any:
    raise _NotFinite(text)


def parse_json(data: bytes) -> Any:
    """JSON bytes as data; DataError when they are not UTF-8 JSON, hold a number that is
    not finite (`Infinity`, `NaN`, `1e400`), or nest deeper than MAX_JSON_DEPTH."""
    too_deep = f"(file): nested more than {MAX_JSON_DEPTH} levels deep"
    try:
        value = json.loads(data.decode("utf-8"), parse_float=_finite, parse_constant=_refuse)
    except _NotFinite as e:
        raise DataError([f"(file): {e.text}: not a finite number"]) from None
    except RecursionError:
        raise DataError([too_deep]) from None
    except (UnicodeDecodeError, ValueError) as e:
        raise DataError([f"(file): not valid JSON: {e}"]) from None
    if _deeper(value, MAX_JSON_DEPTH):
        raise DataError([too_deep])
    return value


def _deeper(value: Any, limit: int) -> bool:
    """Whether `value` nests objects or arrays more than `limit` levels (no recursion)."""
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


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


def said(error: DataError) -> str:
    """A refusal's problems as a sentence (`(file): ` left out)."""
    return "; ".join(p.removeprefix("(file): ") for p in error.problems)


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
