"""THE bounded reader: a file another program could have put in place, read safely.

`read_bounded` reads a regular file only, never a FIFO, device, socket, folder or
symbolic link (lstat first, then opened with O_NONBLOCK | O_NOFOLLOW and checked again
with fstat, so one swapped in meanwhile is refused too), and at most a size cap: nothing
can make it wait or fill memory. `parse_json` takes UTF-8 JSON nested at most
`MAX_JSON_DEPTH` levels whose numbers are all finite (`Infinity`, `NaN` and `1e400` are
refused). A refusal is a `DataError` naming the problem as `(file): ...`, which each
caller turns into the error of its file (`executor.bridge.reading` for bridge files).
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

from executor.errors import DataError

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


def said(error: DataError) -> str:
    """A refusal's problems as a sentence (`(file): ` left out)."""
    return "; ".join(p.removeprefix("(file): ") for p in error.problems)
