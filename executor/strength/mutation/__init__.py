"""The executor's mutation run, inside the project's own pytest.

This package is copied beside the run and loaded with `-p executor_mutation`, by the
interpreter the project's tests run with: it imports nothing of the executor (the
standard library and pytest only; `judge`, `worker` and `source` are its own modules).
It is active when `EXECUTOR_MUTATION_FD` names a descriptor: a Unix socket to the
executor, over which the spec comes (JSON, written by `executor.strength.runner`) and
the results go back.

Two processes share the work, and only one of them ever runs a line of the project:

- **The judge** (`judge`) is the process the executor started. When pytest imports this module
  (before any conftest.py, before collection) it takes the socket, removes its number
  from the environment, reads the mutated files and compiles the mutants, and forks:
  the child goes on as pytest, the judge never returns from the import. It asks, keeps
  the score and writes the results; nothing it reads from the other process is taken
  on trust.
- **The worker** (the forked child: `worker`) closes the socket first thing, collects as pytest
  would, and answers the judge's questions over a pair of pipes:
  1. *baseline*: the session's tests run once, each traced for the mutants' lines
     (which test reaches which line, how long it takes, whether it fails); the answer
     only chooses which tests the judge asks about a mutant, and its time limit;
  2. *try*: a forked child swaps the code objects the judge sent into every live
     function they were made for, runs the given tests (the fastest first), stops at
     the first failure; killed at its limit, the mutant hangs them (`timeout`).

A mutant the session's tests let through is tried on the rest of what was collected
(traced once, lazily). **Shams**: the worker says which test killed a mutant; the
judge asks that test again with the statement's unmutated code (compiled anew): it must
pass, or the kill does not count. Records go to the socket as the judge decides them:
the baseline, one per mutant, `{"stopped": "budget"}` when the spec's `seconds` ran
out, `{"error": ...}` when the worker stops answering, then `{"end": ...}`.

The run stops by itself when the process that started it is gone (checked between
questions), so a killed executor leaves no mutation run behind.
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
