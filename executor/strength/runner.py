"""One mutation run: a session's tested tree copied to a temporary folder, its mutants
run there by the project's pytest with the executor's plugin (`executor.strength.mutation`),
the results read back from the run's judge.

Nothing happens in the person's checkout: the copy is a folder of its own under the
system's temporary folder (`executor-mutation-<pid>-*`), removed when the run ends; one
left by a process that was killed is removed by the next run (its pid is dead), and the
pytest process stops by itself once the executor is gone. The test run is made by the
caller's `run` (the session's sandbox, timeout and log, as every test run).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from executor import faults
from executor.fsutil import pid_alive
from executor.strength.mutants import Mutant

if TYPE_CHECKING:
    from executor.testrun import TestRun

#: What a copy's folder is called: the pid of the executor that made it comes first.
PREFIX = "executor-mutation-"
_COPY = re.compile(rf"^{PREFIX}(?P<pid>\d+)-")
#: The plugin's package name on the run's PYTHONPATH.
PLUGIN = "executor_mutation"
#: Seconds the judge may go on past the budget (the worker it waits for, a sham), and
#: the pytest process past that before it is killed (its start, its end): a run killed
#: so is not measured.
SLACK = 10.0
GRACE = 30.0
#: The most of the judge's records that is read.
RESULT_BYTES = 64 * 1024 * 1024

#: run(command, cwd, timeout seconds, env, log, descriptors it inherits): a measured
#: test run (`executor.testrun`)
RunIn = Callable[[str, Path, float, dict[str, str], Path | None, tuple[int, ...]], "TestRun"]


@dataclass
class Survivor:
    mutant: Mutant
    why: str


@dataclass
class Measured:
    """What one mutation run found."""

    made: int
    killed: int = 0
    survivors: list[Survivor] = field(default_factory=list)
    by_suite: int = 0
    timeouts: int = 0
    errors: int = 0
    #: the session's tests that failed in the unmutated copy (asked about no mutant)
    failing: int = 0
    #: mutants whose tests also fail without them (a sham: not judged, among `errors`)
    unjudged: int = 0
    #: runs of the tests that killed a mutant, with its statement unmutated
    shams: int = 0
    partial: bool = False
    seconds: float = 0.0
    #: why nothing was measured ("" when something was)
    problem: str = ""

    @property
    def judged(self) -> int:
        return self.killed + len(self.survivors)


def sweep() -> list[Path]:
    """Remove the copies left by executor processes that are gone; return them."""
    removed = []
    root = Path(tempfile.gettempdir())
    with contextlib.suppress(OSError):
        for entry in os.scandir(root):
            m = _COPY.match(entry.name)
            if m and entry.is_dir(follow_symlinks=False) and not pid_alive(int(m["pid"])):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(Path(entry.path))
    return removed


@contextlib.contextmanager
def copy_of(export: Callable[[Path], Any]) -> Iterator[Path]:
    """A temporary folder holding `tree/` (what `export` writes), removed afterwards."""
    work = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
    try:
        export(work / "tree")
        faults.hit("mutation.copied")
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def pytest_prefix(command: str) -> list[str] | None:
    """The words of `command` up to and including `pytest` (`python -m pytest`, `uv run
    pytest`, `.venv/bin/pytest`), None when it does not run pytest."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for i, word in enumerate(words):
        if Path(word).name in {"pytest", "py.test"}:
            return words[: i + 1]
    return None


def measure(
    mutants: Sequence[Mutant],
    *,
    export: Callable[[Path], Any],
    run: RunIn,
    prefix: Sequence[str],
    test_files: Sequence[str],
    test_ids: Sequence[str] | None,
    collect: Sequence[str],
    budget: float,
    log: Path | None = None,
    hold: Path | None = None,
) -> Measured:
    """Run `mutants` against the session's tests (`test_files`, or only `test_ids` of
    them) and, for what they let through, the rest of what `collect` collects, in a copy
    of the tested tree, within `budget` seconds. While the folder `hold` exists, the
    mutants wait (the plugin's `Judge.hold`). The spec goes to the plugin, and its
    results come back, over a socket only the run's judge holds (docs/test-strength.md)."""
    started = time.monotonic()
    sweep()
    made = Measured(made=len(mutants))
    with copy_of(export) as work:
        plugin = work / "plugin"
        shutil.copytree(Path(__file__).with_name("mutation"), plugin / PLUGIN,
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
        spec = {
            "mutants": [_spec(m) for m in mutants],
            "session": {"files": list(test_files), "ids": list(test_ids) if test_ids else None},
            "seconds": max(budget - (time.monotonic() - started), 1.0),
            "slack": SLACK,
            "hold": str(hold) if hold is not None else None,
            "hold_ids": str(hold_ids(hold)) if hold is not None else None,
        }
        # of a session's files under tests/, only the Python modules the tree holds are
        # tests to run: pytest stops at a data file (`tests/files/x.sql`) or at one the
        # session deleted ("not found")
        held = [f for f in test_files
                if f.endswith(".py") and os.path.lexists(work / "tree" / f)]  # fmt: skip
        args = [*dict.fromkeys([*collect, *held])]
        command = shlex.join([*prefix, *args, "-p", PLUGIN, "-q"])
        path = os.environ.get("PYTHONPATH")
        ours, theirs = socket.socketpair()
        env = {
            "EXECUTOR_MUTATION_FD": str(theirs.fileno()),
            "PYTHONPATH": str(plugin) + (os.pathsep + path if path else ""),
        }
        with ours, Channel(ours, json.dumps(spec).encode()) as channel:
            try:
                ran = run(command, work / "tree", budget + GRACE, env, log, (theirs.fileno(),))
            finally:
                theirs.close()  # the judge's side: the channel ends when the judge does
        lines = channel.lines
    made.seconds = round(time.monotonic() - started, 2)
    if not lines:
        made.problem = f"the mutation run did not start: {ran.summary()}"
    else:
        _read(made, mutants, lines)
    return made


class Channel:
    """The executor's side of the run's socket: a thread sends the spec, then reads the
    judge's records until it closes its side (`lines`, once the `with` ends)."""

    def __init__(self, sock: socket.socket, spec: bytes) -> None:
        self.lines: list[bytes] = []
        self._sock, self._spec = sock, spec
        self._thread = threading.Thread(target=self._converse, daemon=True)

    def __enter__(self) -> Channel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._thread.join()

    def _converse(self) -> None:
        data = bytearray()
        with contextlib.suppress(OSError):  # a run that never read it: nothing comes back
            self._sock.sendall(self._spec)
            self._sock.shutdown(socket.SHUT_WR)
            while len(data) <= RESULT_BYTES and (chunk := self._sock.recv(1 << 16)):
                data += chunk
        self.lines = bytes(data).splitlines()


def hold_ids(hold: Path) -> Path:
    """Where the session's test ids are written before `hold` goes (the plugin's
    `Judge.hold`): beside it."""
    return hold.with_name(f"{hold.name}.ids.json")


def _spec(m: Mutant) -> dict[str, Any]:
    return {"key": m.key, "path": m.path, "line": m.line, "start": m.start, "end": m.end,
            "replacement": m.replacement, "scope": list(m.scope)}  # fmt: skip


def _read(made: Measured, mutants: Sequence[Mutant], lines: Sequence[bytes]) -> None:
    """Count the judge's records into `made`. They are taken only as the judge writes
    them: a baseline (or an error) first, one record per mutant, then the end; anything
    else (a line that is no such record, a mutant twice, one missing with no budget stop,
    no end) leaves nothing judged, and says so."""
    got = Measured(made=len(mutants))
    try:
        problem = _records(got, mutants, [json.loads(line) for line in lines])
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as e:
        problem = f"a record that is none of the judge's ({type(e).__name__})"
    if problem:
        made.problem = f"the mutation run's results are not whole: {problem}"
    elif got.problem:  # the judge's own word: nothing judged
        made.problem, made.failing = got.problem, got.failing
    else:
        got.seconds = made.seconds
        made.__dict__.update(got.__dict__)


def _records(made: Measured, mutants: Sequence[Mutant], records: list[Any]) -> str:
    """Fill `made` from the judge's `records`; what is wrong with them ("" if nothing).
    An error (the tests do not run in a copy, the test process stopped answering) may
    come first or after any record: then nothing is judged, and `made.problem` says why."""
    if records and set(records[0]) == {"baseline"}:
        made.failing = int(records[0]["baseline"]["failing"])
    elif not records or set(records[0]) != {"error"}:
        return "no baseline first"
    seen: set[int] = set()
    for record in records[1:] if "baseline" in records[0] else records:
        if set(record) == {"end"}:
            if record is not records[-1] or int(record["end"]["records"]) != len(seen):
                return "its end does not close it"
            if len(seen) < len(mutants) and not made.partial and not made.problem:
                return f"{len(mutants) - len(seen)} mutant(s) with no result"
            made.shams = int(record["end"].get("shams", 0))
            return ""
        if made.partial or made.problem:
            return "more after its last word"
        if set(record) == {"error"}:
            made.problem = str(record["error"])
            continue
        if record == {"stopped": "budget"}:
            made.partial = True
            continue
        i = int(record["i"])
        if not 0 <= i < len(mutants) or i in seen:
            return f"mutant {i} twice, or one that was not asked"
        seen.add(i)
        _count(made, mutants[i], record)
    return "no end"


def _count(made: Measured, mutant: Mutant, record: dict[str, Any]) -> None:
    status = record["status"]
    if status in {"killed", "timeout"}:
        made.killed += 1
        made.timeouts += status == "timeout"
        made.by_suite += bool(record["suite"])
    elif status == "survived":
        reached = int(record["tests"])
        why = mutant.hint or _pass_with_it(reached)
        why = why if reached else "no test runs this line"
        made.survivors.append(Survivor(mutant, why))
    elif status == "error":
        made.errors += 1
        if "without the mutant" in str(record.get("why")):
            made.unjudged += 1
    else:
        raise ValueError(status)


def _pass_with_it(n: int) -> str:
    return "the one test that runs it passes with it" if n == 1 else (
        f"the {n} tests that run it pass with it")  # fmt: skip
