"""Timestamps and ids the executor writes: ISO 8601 UTC with milliseconds (the seeds'
form; two saves 10 ms apart get different stamps), and random UUID4s."""

from __future__ import annotations

import os
import time


def utc_now() -> str:
    """ISO 8601 UTC timestamp with milliseconds and a `Z`, as the seeds write them."""
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"


def new_id() -> str:
    """A random (version 4) UUID as text."""
    b = bytearray(os.urandom(16))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
