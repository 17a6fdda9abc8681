"""Mutants of a JavaScript or TypeScript session's changed lines, made and run by Stryker
(`@stryker-mutator/core`, installed in the project: the executor installs nothing).

As `runner.measure` does for Python: in a temporary copy of the tested tree (the
project's `node_modules` linked in, as Stryker's own sandbox does), through the caller's
test run (the session's sandbox, timeout and log), within the budget, by Stryker's own
program (`executor.strength.program`); then Stryker's JSON report
(mutation-testing-report-schema) is read back from a socket, not a file. Stryker's `mutate` patterns
take line ranges (`src/add.js:3-7`), so only the lines the session changed are mutated;
its `command` test runner runs the session's test command against each mutant, so any
runner (node's, vitest, jest) works without a plugin. It writes its report only at the
end: a run the budget cuts short is partial with nothing judged.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shlex
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from executor.strength import program
from executor.strength.mutants import Mutant
from executor.strength.runner import (
    GRACE,
    PREFIX,
    Channel,
    Measured,
    RunIn,
    Survivor,
    copy_of,
    sweep,
)

#: What a project needs for its JavaScript/TypeScript sessions to be measured.
INSTALL = "npm install --save-dev @stryker-mutator/core"
_KILLED = {"Killed", "Timeout"}
_SURVIVED = {"Survived": "the tests pass with it", "NoCoverage": "no test runs this line"}


def installed(root: Path) -> bool:
    """Whether the project at `root` has Stryker (`program.entry`)."""
    return program.entry(root) is not None


def ranges(lines: set[int]) -> list[tuple[int, int]]:
    """`lines` as runs of consecutive numbers: {1, 2, 3, 7} -> [(1, 3), (7, 7)]."""
    out: list[tuple[int, int]] = []
    for n in sorted(lines):
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def measure(
    changed: Mapping[str, set[int]],
    *,
    root: Path,
    export: Callable[[Path], Any],
    run: RunIn,
    test_command: str,
    budget: float,
    log: Path | None = None,
) -> Measured:
    """Stryker's mutants of the `changed` lines of each file, run against `test_command`
    in a copy of the tested tree, within `budget` seconds, by Stryker's program as
    `program.entry` finds it (the caller has checked it is the one the session pinned;
    one that changes while it runs measures nothing). Its report comes back over a
    socket only Stryker's own process holds (`REPORTER`)."""
    started = time.monotonic()
    sweep()
    made = Measured(made=0)
    entry, node = program.entry(root), shutil.which("node")
    if entry is None or node is None:
        made.problem = f"Stryker is not installed here ({INSTALL})" if entry is None else (
            "node is not on PATH")  # fmt: skip
        return made
    pinned = program.pin(root)
    with copy_of(export) as work, _private() as private:
        tree = work / "tree"
        modules = tree / "node_modules"
        if not os.path.lexists(modules):
            modules.symlink_to(root / "node_modules", target_is_directory=True)
        reporter = private / "executor-reporter.cjs"
        reporter.write_text(REPORTER, encoding="utf-8")
        sham = private / "executor-sham.cjs"
        sham.write_text(SHAM, encoding="utf-8")
        encoded = base64.b64encode(test_command.encode()).decode()
        config = {
            "mutate": [f"{path}:{a}-{b}" for path, lines in sorted(changed.items())
                       for a, b in ranges(lines)],
            "testRunner": "command",
            "commandRunner": {"command": shlex.join([node, str(sham), encoded])},
            "appendPlugins": [str(reporter)],
            "reporters": ["executor"],
            "tempDirName": str(work / "stryker-tmp"),
            "cleanTempDir": "always",
            "concurrency": 1,
            "logLevel": "warn",
        }  # fmt: skip
        conf = private / "stryker.config.json"
        conf.write_text(json.dumps(config), encoding="utf-8")
        command = shlex.join([node, str(entry), "run", str(conf)])
        ours, theirs = socket.socketpair()
        with ours, Channel(ours, b"") as channel:
            try:
                env = {"EXECUTOR_STRYKER_FD": str(theirs.fileno())}
                ran = run(command, tree, budget + GRACE, env, log, (theirs.fileno(),))
            finally:
                theirs.close()
        data = _load(b"".join(channel.lines))
    made.seconds = round(time.monotonic() - started, 2)
    if program.pin(root) != pinned:
        made.problem = "Stryker's program changed while it ran (node_modules/@stryker-mutator)"
    elif data is None:
        made.partial = ran.timed_out
        made.problem = (
            f"Stryker did not finish within the budget ({budget:.0f} s)" if ran.timed_out
            else f"Stryker sent no report: {ran.summary()}"
        )  # fmt: skip
    else:
        read_report(made, data)
    return made


#: A Stryker reporter of the executor's: the report goes over the socket the executor
#: handed Stryker (`EXECUTOR_STRYKER_FD`), which Stryker's process takes and no test
#: command it starts inherits; no file holds it.
REPORTER = """\
const fs = require('fs');
const fd = Number(process.env.EXECUTOR_STRYKER_FD);
delete process.env.EXECUTOR_STRYKER_FD;
class ExecutorReporter {
  static inject = [];
  onMutationTestReportReady(report) {
    const data = Buffer.from(JSON.stringify(report));
    let done = 0;
    while (done < data.length) done += fs.writeSync(fd, data, done);
    fs.closeSync(fd);
  }
}
module.exports.strykerPlugins = [
  { kind: 'Reporter', name: 'executor', injectableClass: ExecutorReporter },
];
"""


#: The command Stryker runs for each mutant (the session's test command, base64 in its
#: argument): a failure with the mutant active is a kill only if the same command passes
#: with an id that names no mutant (a sham: tests that fail whenever Stryker's
#: `__STRYKER_ACTIVE_MUTANT__` is set kill nothing); otherwise it says "survived".
SHAM = """\
const { spawnSync } = require('child_process');
const command = Buffer.from(process.argv[2], 'base64').toString();
const run = (env) => spawnSync(command, { shell: true, stdio: 'inherit', env }).status;
const first = run(process.env);
if (first === 0 || process.env.__STRYKER_ACTIVE_MUTANT__ === undefined) {
  process.exit(first === null ? 1 : first);
}
const none = { ...process.env, __STRYKER_ACTIVE_MUTANT__: '1000000007' };
process.exit(run(none) === 0 ? 1 : 0);
"""


@contextlib.contextmanager
def _private() -> Iterator[Path]:
    """A new folder for Stryker's configuration and the reporter, outside the copy its
    tests run in (named as the copies are: swept with them), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-stryker-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _load(data: bytes) -> dict[str, Any] | None:
    try:
        report = json.loads(data)
    except ValueError:
        return None
    return report if isinstance(report, dict) else None


def read_report(made: Measured, data: Mapping[str, Any]) -> None:
    """Count Stryker's mutants into `made`: killed (or timed out), survived (or covered
    by no test), and the rest (compile or runtime errors, ignored) judged neither way."""
    for path, file in sorted((data.get("files") or {}).items()):
        source = str(file.get("source") or "").splitlines()
        for entry in file.get("mutants") or []:
            made.made += 1
            status = entry.get("status")
            if status in _KILLED:
                made.killed += 1
                made.timeouts += status == "Timeout"
            elif status in _SURVIVED:
                made.survivors.append(Survivor(_mutant(path, source, entry), _SURVIVED[status]))
            else:
                made.errors += 1


def _mutant(path: str, source: list[str], entry: Mapping[str, Any]) -> Mutant:
    """A Stryker mutant as the executor shows one: its line as it is and as it becomes
    (columns are 1-based, the end exclusive; a mutant over several lines shows its
    replacement's first line)."""
    start, end = entry["location"]["start"], entry["location"]["end"]
    line = int(start["line"])
    text = source[line - 1] if 0 < line <= len(source) else ""
    replacement = str(entry.get("replacement") or "")
    if int(end["line"]) == line:
        after = text[: int(start["column"]) - 1] + replacement + text[int(end["column"]) - 1 :]
    else:
        first = replacement.splitlines()[0] if replacement else ""
        after = text[: int(start["column"]) - 1] + first
    return Mutant(
        path=path, line=line, start=0, end=0, replacement=replacement,
        operator=str(entry.get("mutatorName") or "mutant"), before=text.strip(),
        after=after.strip(), hint="", scope=(line, line),
    )  # fmt: skip
