"""The executor's mutation run, inside the project's own pytest.

Copied beside the run and loaded with `-p executor_mutation` by the project's own
interpreter, so it imports nothing of the executor (the standard library and pytest
only). Two processes share the work and only the worker ever runs a line of the
project: the judge (`judge`) asks, counts and reports over the executor's socket
(`EXECUTOR_MUTATION_FD`), and trusts nothing the worker (`worker`) answers. Why and
how: docs/test-strength.md, "Who decides a mutant's fate (the channel)".
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import Any

import pytest

from .judge import Judge
from .worker import Worker

_STARTED = time.monotonic()


def _take() -> tuple[int | None, dict[str, Any] | None]:
    """The socket to the executor and the spec read from it, or (None, None)."""
    raw = os.environ.pop("EXECUTOR_MUTATION_FD", None)
    if not raw:
        return None, None
    fd = int(raw)
    os.set_inheritable(fd, False)  # no program a test starts gets it
    chunks = []
    while chunk := os.read(fd, 1 << 16):  # the executor closes its side once sent
        chunks.append(chunk)
    return fd, json.loads(b"".join(chunks))


def _dumpable(on: bool) -> None:
    """Whether processes of the same user may debug this one (Linux's PR_SET_DUMPABLE:
    ptrace, pidfd_getfd, /proc/<pid>/mem): the judge is not (the worker, forked before, is)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, int(on), 0, 0, 0)


def _split() -> tuple[dict[str, Any], int, int] | None:
    """In the mutation run, fork: the parent judges and never returns; the child goes
    on as pytest with the spec and its two pipes to the judge (questions, answers)."""
    channel, spec = _take()
    if channel is None or spec is None:
        return None
    questions, ask = os.pipe()
    hear, answers = os.pipe()
    judge = Judge(spec, channel, ask, hear, _STARTED)  # reads the mutated files first
    pid = os.fork()
    if pid == 0:
        os.close(channel)  # first thing: the executor's channel is the judge's alone
        os.close(ask)
        os.close(hear)
        return spec, questions, answers
    os.close(questions)
    os.close(answers)
    _dumpable(False)
    try:
        judge.main(pid)
    except Exception as e:  # a fault of its own: said, and nothing measured
        with contextlib.suppress(Exception):
            judge.put({"error": f"the mutation run failed: {e!r}"})
            judge.put({"end": {"records": 0}})
    finally:
        os._exit(0)


#: In the worker: the spec, and its pipes to the judge (questions, answers).
_WORKER = _split()


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: Any) -> Any:
    if _WORKER is None:
        return None
    Worker(session, *_WORKER).serve()
    return True
