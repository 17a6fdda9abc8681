"""One mutation run: a session's tested tree copied to a temporary folder, its mutants
run there by the project's pytest with the executor's plugin (`executor.strength.plugin`),
the results read back.

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
import tempfile
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
#: The plugin's module name on the run's PYTHONPATH.
PLUGIN = "executor_mutation"
#: Seconds the pytest process may run past the budget (collection, the last mutant).
GRACE = 30.0

#: run(command, cwd, timeout seconds, env, log): a measured test run (`executor.testrun`)
RunIn = Callable[[str, Path, float, dict[str, str], Path | None], "TestRun"]


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
    mutants wait (the plugin's `_hold`)."""
    started = time.monotonic()
    sweep()
    made = Measured(made=len(mutants))
    with copy_of(export) as work:
        plugin = work / "plugin"
        plugin.mkdir()
        shutil.copyfile(Path(__file__).with_name("plugin.py"), plugin / f"{PLUGIN}.py")
        results = work / "results.jsonl"
        spec = {
            "mutants": [_spec(m) for m in mutants],
            "session": {"files": list(test_files), "ids": list(test_ids) if test_ids else None},
            "seconds": max(budget - (time.monotonic() - started), 1.0),
            "results": str(results),
            "hold": str(hold) if hold is not None else None,
            "hold_ids": str(hold_ids(hold)) if hold is not None else None,
        }
        (work / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
        # of a session's files under tests/, only the Python modules the tree holds are
        # tests to run: pytest stops at a data file (`tests/files/x.sql`) or at one the
        # session deleted ("not found")
        held = [f for f in test_files
                if f.endswith(".py") and os.path.lexists(work / "tree" / f)]  # fmt: skip
        args = [*dict.fromkeys([*collect, *held])]
        command = shlex.join([*prefix, *args, "-p", PLUGIN, "-q"])
        path = os.environ.get("PYTHONPATH")
        env = {
            "EXECUTOR_MUTATION_SPEC": str(work / "spec.json"),
            "PYTHONPATH": str(plugin) + (os.pathsep + path if path else ""),
        }
        ran = run(command, work / "tree", budget + GRACE, env, log)
        lines = results.read_text("utf-8").splitlines() if results.exists() else []
    made.seconds = round(time.monotonic() - started, 2)
    _read(made, mutants, lines)
    if not lines and not made.problem:
        made.problem = f"the mutation run did not start: {ran.summary()}"
    if ran.timed_out:
        made.partial = True
    return made


def hold_ids(hold: Path) -> Path:
    """Where the session's test ids are written before `hold` goes (the plugin's
    `_hold`): beside it."""
    return hold.with_name(f"{hold.name}.ids.json")


def _spec(m: Mutant) -> dict[str, Any]:
    return {"key": m.key, "path": m.path, "line": m.line, "start": m.start, "end": m.end,
            "replacement": m.replacement, "scope": list(m.scope)}  # fmt: skip


def _read(made: Measured, mutants: Sequence[Mutant], lines: Sequence[str]) -> None:
    by_key = {m.key: m for m in mutants}
    seen = 0
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if "error" in record:
            made.problem = str(record["error"])
        if isinstance(record.get("baseline"), dict):
            made.failing = int(record["baseline"].get("failing") or 0)
        if "stopped" in record:
            made.partial = True
        mutant = by_key.get(record.get("key", ""))
        if mutant is None:
            continue
        seen += 1
        status = record.get("status")
        if status in {"killed", "timeout"}:
            made.killed += 1
            made.timeouts += status == "timeout"
            made.by_suite += bool(record.get("suite"))
        elif status == "survived":
            reached = int(record.get("tests") or 0)
            why = mutant.hint or _pass_with_it(reached)
            why = why if reached else "no test runs this line"
            made.survivors.append(Survivor(mutant, why))
        else:
            made.errors += 1
    if seen < len(mutants) and not made.problem:
        made.partial = True


def _pass_with_it(n: int) -> str:
    return "the one test that runs it passes with it" if n == 1 else (
        f"the {n} tests that run it pass with it")  # fmt: skip
