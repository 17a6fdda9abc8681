"""GREEN's mutation run, started beside GREEN's verification while a second processor
would wait anyway (docs/test-strength.md). Nothing is judged from a disturbed run: the
mutants wait until GREEN's test runs end, a verification that fails beside it runs again
alone, and a result counts only for the tree and the tests the step would measure.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from executor.strength.runner import PREFIX, SLACK, hold_ids

if TYPE_CHECKING:
    from executor.strength.job import Job, SessionTests
    from executor.strength.runner import Measured


def spare_processor() -> bool:
    """Whether this process may use more than one processor (its affinity, not the
    machine's count: a run pinned to one core gains nothing from a second run)."""
    try:
        return len(os.sched_getaffinity(0)) > 1
    except (AttributeError, OSError):  # not Linux
        return (os.cpu_count() or 1) > 1


class Ahead:
    """One mutation run going on in a thread of its own."""

    def __init__(
        self, tree: str, tests: SessionTests, job: Job, measure: Callable[[Job], Measured]
    ) -> None:
        self.tree = tree
        self.tests = tests
        self.made = len(job.mutants)
        self.started = time.monotonic()
        #: the mutants wait while `hold` exists, in a folder named as the runner's
        #: copies (a killed executor's is swept with them)
        self._folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-ahead-"))
        self.hold = self._folder / "hold"
        self.hold.mkdir()
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._stopped = False
        self._result: Measured | None = None
        self._thread = threading.Thread(
            target=self._run,
            args=(measure, replace(job, on_start=self._on_start, hold=self.hold)),
            daemon=True,
        )
        _GOING.add(self)
        self._thread.start()

    def _run(self, measure: Callable[[Job], Measured], job: Job) -> None:
        try:
            self._result = measure(job)
        except Exception:  # the step measures again, alone, where an error shows
            self._result = None
        finally:
            _GOING.discard(self)
            shutil.rmtree(self._folder, ignore_errors=True)

    def _on_start(self, pid: int) -> None:
        with self._lock:
            self._pid = pid
            if self._stopped:
                _kill(pid)

    def release(self, tests: SessionTests | None = None) -> None:
        """GREEN's test runs ended: the mutants may run, against `tests` (the session's
        tests as verification found them; None: those the run started with)."""
        if tests is not None and self.hold.exists():  # still waiting: it takes them
            # read only once the hold is gone, so written whole before it goes; a run
            # ending meanwhile takes its folder with it (and its result is not taken)
            with contextlib.suppress(OSError):
                hold_ids(self.hold).write_text(json.dumps(tests.ids), encoding="utf-8")
                self.tests = tests
        shutil.rmtree(self.hold, ignore_errors=True)

    def stop(self) -> None:
        """End the run now (its process group), and wait for its thread."""
        with self._lock:
            self._stopped = True
            if self._pid is not None:
                _kill(self._pid)
        self._thread.join()
        self.release()

    def take(self, tree: str, tests: SessionTests, budget: float) -> Measured | None:
        """The run's result, if it measured `tree` against `tests`: waited for until
        `budget` seconds from its start (and the judge's slack past it: it stops itself
        there), then stopped (nothing measured). None when it measured something else, or
        failed: the step measures as usual."""
        if tree != self.tree or _ids(tests) != _ids(self.tests) or tests.files != self.tests.files:
            self.stop()
            return None
        self._thread.join(max(0.0, self.started + budget + SLACK - time.monotonic()))
        if self._thread.is_alive():
            self.stop()
        found = self._result
        if found is None or found.failing or (found.problem and not found.judged):
            return None  # disturbed, or it could not run here: measured again alone
        return found


#: Runs going on now: stopped when the executor exits before a step took them (a pause,
#: a stop between the two steps), so no mutation run outlives it.
_GOING: set[Ahead] = set()


@atexit.register
def _stop_all() -> None:
    for ahead in list(_GOING):
        ahead.stop()


def _ids(tests: SessionTests) -> set[str] | None:
    return None if tests.ids is None else set(tests.ids)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
