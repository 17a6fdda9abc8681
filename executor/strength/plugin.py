"""The executor's mutation run, inside the project's own pytest.

This file is copied beside the run and loaded with `-p executor_mutation`, by the
interpreter the project's tests run with: it imports nothing of the executor (the
standard library and pytest only). It is active when `EXECUTOR_MUTATION_FD` names a
descriptor: a Unix socket to the executor, over which the spec comes (JSON, written by
`executor.strength.runner`) and the results go back.

**The judge.** The pytest process the executor started takes the socket when this module
is imported (and removes its number from the environment), and never collects: no test
module and no line of the code under test runs in it. At `pytest_collection` (pytest's
plugins and the project's conftest.py files loaded, nothing collected yet) it forks a
worker for each question, and reads each mutant's fate from its worker's exit status
alone (`SURVIVED`, `KILLED`; killed at its time limit: a timeout, counted as killed):

1. **Baseline.** A worker collects as pytest would and runs the session's tests once,
   each traced for the mutants' lines (which test reaches which line, how long it takes,
   whether it fails), and reports that over a pipe. Its report only chooses which tests a
   mutant's worker runs and its time limit; a test that fails here is asked about no
   mutant.
2. **Mutants.** Once the spec's `hold` folder, if any, is gone (`_Judge.hold`), for each
   one a worker collects the files of the tests that reached the line, swaps the code of
   every live function made from the mutant's top-level statement for the mutated code,
   runs those tests (the fastest first) and stops at the first failure. A mutant the
   session's tests let through is tried on the rest of the collected tests (traced once,
   lazily) the same way.
3. **Shams.** The first time a set of tests kills a mutant, one more worker runs the same
   tests the same way with the unmutated code swapped in (fresh code objects): they must
   pass, or no kill of theirs counts (tests that fail run alone, or that tell a worker
   from the baseline, decide nothing).
4. **Results** go over the socket, which every worker closes first thing: the baseline,
   one record per mutant (in any order, each once), `{"stopped": "budget"}` when the
   spec's `seconds` ran out, then `{"end": ...}`.

The run stops by itself when the process that started it is gone (checked between
workers), so a killed executor leaves no mutation run behind.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import signal
import time
import types
from typing import Any

import pytest

#: mutated code objects by (file, name, first line)
_Codes = dict[tuple[str, str, int], types.CodeType]
#: A worker's exit status, the only thing the judge reads of a mutant's worker: its
#: tests passed with the mutant, or one failed. Any other ending is an error.
SURVIVED, KILLED = 80, 81
_NO_LIVE, _NOT_FOUND, _CRASHED = 82, 83, 84
_WHY = {
    _NO_LIVE: "no live function holds it",
    _NOT_FOUND: "its tests were not collected again",
    _CRASHED: "the mutation worker failed",
}
_STARTED = time.monotonic()
#: The probe's name in the instrumented functions' globals, while tracing only.
_PROBE = "__executor_mutation_probe__"
_PARENT = os.getppid()
#: The most of a baseline worker's report that is read.
_REPORT_BYTES = 64 * 1024 * 1024


class _Fork(BaseException):
    """Raised in a new worker: it leaves the judge's stack and goes on as pytest."""

    def __init__(self, role: Any) -> None:
        self.role = role


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


_CHANNEL, _SPEC = _take()
#: In a worker: what it does (`_Trace`, `_Try`).
_ROLE: Any = None


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: Any) -> Any:
    global _ROLE
    if _SPEC is None or _CHANNEL is None or _ROLE is not None:
        return None
    try:
        _Judge(session, _SPEC, _CHANNEL).main()
    except _Fork as fork:  # a worker: it collects, then runs in `pytest_runtestloop`
        _ROLE = fork.role
        _ROLE.prepare(session)
        return None
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: Any) -> Any:
    if _ROLE is not None:
        _ROLE.run(session)  # never returns
    return True if _SPEC is not None else None


def _dumpable(on: bool) -> None:
    """Whether processes of the same user may debug this one (Linux's PR_SET_DUMPABLE:
    ptrace, pidfd_getfd, /proc/<pid>/mem). The judge is not; a worker is again."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, int(on), 0, 0, 0)


class _Judge:
    def __init__(self, session: Any, spec: dict[str, Any], channel: int) -> None:
        self.spec, self.channel = spec, channel
        self.root = os.getcwd()
        self.deadline = _STARTED + float(spec["seconds"])
        #: past the deadline, the worker it waits for and a sham may still end
        self.slack = float(spec["slack"])
        self.mutants: list[dict[str, Any]] = spec["mutants"]
        self.files = _Files(self.root, self.mutants)
        self.codes = [self.files.mutated(m) for m in self.mutants]
        #: (nodeid, file, junit id) of every collected test, from the baseline
        self.listed: list[tuple[str, str, str]] = []
        #: nodeid -> (mutant lines it reaches, seconds, failed)
        self.traced: dict[str, tuple[set[tuple[str, int]], float, bool]] = {}
        self.mine: list[str] = []
        self.others: list[str] = []
        self.others_traced = False
        self.collecting = 0.0
        self.shams: dict[Any, str] = {}

    # -- the run ---------------------------------------------------------------------------
    def main(self) -> None:
        _dumpable(False)
        problem = self.baseline()
        if problem:
            self.put({"error": problem})
            self.put({"end": {"records": 0}})
            return
        records = 0
        for i, mutant in enumerate(self.mutants):
            if os.getppid() != _PARENT:
                os._exit(3)  # the executor is gone: nobody reads this any more
            judged = None if time.monotonic() > self.deadline else self.judge(i, mutant)
            if judged is None:
                self.put({"stopped": "budget"})
                break
            self.put(judged)
            records += 1
        self.put({"end": {"records": records}})

    def baseline(self) -> str:
        """Trace the session's tests; why nothing can be measured ("" when it can)."""
        said = self.trace(None)
        if said is None:
            return "the session's tests did not run in a copy of the tree"
        if said.get("errors"):
            return "the tests do not collect in a copy of the tested tree"
        files, ids = self.spec["session"]["files"], self.spec["session"].get("ids")
        self.mine = _mine(self.listed, files, ids)
        if self.spec.get("hold"):
            self.hold()
        mine = set(self.mine)
        self.others = [n for n, _, _ in self.listed if n not in mine]
        failing = [n for n in self.mine if self.traced.get(n, (set(), 0.0, True))[2]]
        self.put({"baseline": {"tests": len(self.mine), "failing": len(failing),
                               "others": len(self.others)}})  # fmt: skip
        if self.mine and len(failing) == len(self.mine):
            return "the session's tests do not pass in a copy of the tree"
        return ""

    def hold(self) -> None:
        """Wait while the spec's `hold` folder exists: the run started beside the
        session's verification, whose test runs could disturb a mutant's (a fixed port,
        a file in /tmp). Then the session's tests are those the verification passed
        (`hold_ids`, written before the hold goes: a JSON list, or null for every test of
        the session's files); those not traced yet are traced now."""
        while os.path.exists(self.spec["hold"]) and time.monotonic() < self.deadline:
            if os.getppid() != _PARENT:
                os._exit(3)
            time.sleep(0.005)
        try:
            with open(self.spec["hold_ids"], encoding="utf-8") as f:
                ids = json.load(f)
        except (OSError, ValueError, KeyError):
            return  # stopped, or no verdict to go by: the spec's own
        if ids is not None and not (isinstance(ids, list) and all(isinstance(i, str) for i in ids)):
            return
        self.mine = _mine(self.listed, self.spec["session"]["files"], ids)
        self.trace([n for n in self.mine if n not in self.traced])

    def judge(self, i: int, mutant: dict[str, Any]) -> dict[str, Any] | None:
        """The record of mutant `i` (None: the budget ran out while it ran)."""
        started = time.monotonic()
        if self.codes[i] is None:
            return {"i": i, "status": "error", "why": "the mutant does not compile"}
        mine = self.reaching(mutant, self.mine)
        got = self.attempt(i, mine)
        tests, suite = len(mine), False
        if got is not None and got[0] == "survived" and self.others:
            if not self.others_traced:
                self.others_traced = True
                self.trace(self.others)
            theirs = self.reaching(mutant, self.others)
            tests += len(theirs)
            other = self.attempt(i, theirs)
            if other is None or other[0] != "survived":
                got, suite = other, True
        if got is None:
            return None
        status, why = got
        return {"i": i, "status": status, "why": why, "tests": tests, "suite": suite,
                "seconds": round(time.monotonic() - started, 3)}  # fmt: skip

    def reaching(self, mutant: dict[str, Any], nodeids: list[str]) -> list[str]:
        """Of `nodeids`, those that passed in the baseline and reached the mutant's line,
        the fastest first."""
        spot = (os.path.realpath(os.path.join(self.root, mutant["path"])), int(mutant["line"]))
        found = [n for n in nodeids if n in self.traced and not self.traced[n][2]
                 and spot in self.traced[n][0]]  # fmt: skip
        return sorted(found, key=lambda n: self.traced[n][1])

    # -- workers ---------------------------------------------------------------------------
    def attempt(self, i: int, nodeids: list[str]) -> tuple[str, str] | None:
        """Run `nodeids` against mutant `i`: (status, why); None when the budget ran out."""
        if not nodeids:
            return "survived", ""
        limit = 3.0 + 10.0 * sum(self.traced[n][1] for n in nodeids) + 2.0 * self.collecting
        got = self.run(_Try(self.where(nodeids), nodeids, self.codes[i] or {}), limit)
        if got is None or got[0] not in {"killed", "timeout"}:
            return got
        sham = self.sham(self.mutants[i], nodeids, limit)
        if sham is None:
            return None
        if sham != "survived":
            return "error", "its tests fail without the mutant too, run alone"
        return got

    def sham(self, mutant: dict[str, Any], nodeids: list[str], limit: float) -> str | None:
        """How `nodeids` end with the unmutated code of the mutant's statement swapped in
        (once per tests and statement)."""
        key = (tuple(nodeids), mutant["path"], tuple(mutant["scope"]))
        if key not in self.shams:
            codes = self.files.original(mutant["path"], mutant["scope"])
            got = self.run(_Try(self.where(nodeids), nodeids, codes), limit)
            if got is None:
                return None
            self.shams[key] = got[0]
        return self.shams[key]

    def trace(self, nodeids: list[str] | None) -> dict[str, Any] | None:
        """Trace `nodeids` (None: the session's tests, and list what is collected) in a
        worker; its report, merged in (None when it did not report)."""
        started = time.monotonic()
        role = _Trace(self.spec, self.files, nodeids)
        read, write = os.pipe()
        pid = self.fork(role, write, read)
        os.close(write)
        status, said = _wait(pid, max(self.deadline + self.slack - time.monotonic(), 1.0), read)
        if status is None or os.waitstatus_to_exitcode(status) != 0:
            return None
        report = _report(said)
        if report is None:
            return None
        if nodeids is None:
            self.listed = report["items"]
            self.collecting = min(float(report["collecting"]), time.monotonic() - started)
        for nodeid, (lines, seconds, failed) in report["traced"].items():
            self.traced[nodeid] = ({(p, n) for p, n in lines}, float(seconds), bool(failed))
        return report

    def run(self, role: _Try, limit: float) -> tuple[str, str] | None:
        """A worker running `role` for at most `limit` seconds: (status, why); None when
        the budget ran out first."""
        left = self.deadline + self.slack - time.monotonic()
        pid = self.fork(role)
        status, _ = _wait(pid, min(limit, left))
        if status is None:
            return ("timeout", "") if limit <= left else None
        code = os.waitstatus_to_exitcode(status)
        if code == KILLED:
            return "killed", ""
        if code == SURVIVED:
            return "survived", ""
        return "error", _WHY.get(code) or f"the worker ended with exit {code}"

    def fork(self, role: Any, *keep: int) -> int:
        """A worker for `role` (in it, `_Fork` is raised; `keep`'s first descriptor is
        its report's pipe, the others are closed)."""
        pid = os.fork()
        if pid == 0:
            os.close(self.channel)  # first thing: the executor's channel is the judge's
            for fd in keep[1:]:
                os.close(fd)
            role.out = keep[0] if keep else None
            role.forked = time.monotonic()
            _dumpable(True)
            os.setpgid(0, 0)
            quiet = os.open(os.devnull, os.O_WRONLY)
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            raise _Fork(role)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)  # its own group from the start: killed whole
        return pid

    def where(self, nodeids: list[str]) -> list[str]:
        files = {n: f for n, f, _ in self.listed}
        return list(dict.fromkeys(files[n] for n in nodeids))

    def put(self, record: dict[str, Any]) -> None:
        data = (json.dumps(record) + "\n").encode()
        try:
            while data:
                data = data[os.write(self.channel, data) :]
        except OSError:
            os._exit(3)  # the executor is gone


def _wait(pid: int, limit: float, read: int | None = None) -> tuple[int | None, bytes]:
    """The worker's wait status (None: killed at `limit` seconds) and what it wrote to
    `read` (closed here); what it left in its process group is killed."""
    ends = time.monotonic() + limit
    said: list[bytes] = []
    size, nap, status = 0, 0.001, None
    while True:
        if read is not None and select.select([read], [], [], nap)[0]:
            chunk = os.read(read, 1 << 16)
            if chunk:
                size += len(chunk)
                if size <= _REPORT_BYTES:
                    said.append(chunk)
                continue
            os.close(read)
            read = None
        elif read is None:
            time.sleep(nap)
        done, got = os.waitpid(pid, os.WNOHANG)
        if done:
            status = got
            break
        if time.monotonic() > ends:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            break
        nap = min(nap * 2, 0.02)
    while read is not None and select.select([read], [], [], 0)[0]:  # what is left of it
        chunk = os.read(read, 1 << 16)
        if not chunk:
            break
        said.append(chunk)
    if read is not None:
        os.close(read)
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    return status, b"".join(said) if size <= _REPORT_BYTES else b""


def _report(said: bytes) -> dict[str, Any] | None:
    """A baseline worker's report, when it has the expected shape (it ran the tests:
    anything may have written it)."""
    try:
        data = json.loads(said)
        items = [(str(n), str(f), str(j)) for n, f, j in data["items"]]
        traced = {
            str(n): ([(str(p), int(k)) for p, k in t["lines"]], float(t["seconds"]),
                     bool(t["failed"]))
            for n, t in data["traced"].items()
        }  # fmt: skip
        return {"items": items, "traced": traced, "errors": int(data["errors"]),
                "collecting": float(data["collecting"])}  # fmt: skip
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def _mine(listed: list[tuple[str, str, str]], files: list[str], ids: list[str] | None) -> list[str]:
    """The session's tests: of its files, those of `ids` (None: all of them)."""
    wanted = None if ids is None else set(ids)
    paths = {os.path.normpath(f) for f in files}
    return [n for n, f, j in listed if f in paths and (wanted is None or j in wanted)]


# -- in a worker ---------------------------------------------------------------------------
class _Trace:
    """A baseline worker: trace `nodeids` (None: the session's tests), report them."""

    out: int | None = None
    forked = 0.0

    def __init__(self, spec: dict[str, Any], files: _Files, nodeids: list[str] | None) -> None:
        self.spec, self.files, self.nodeids = spec, files, nodeids

    def prepare(self, session: Any) -> None:
        """Collect as pytest would."""

    def run(self, session: Any) -> None:
        assert self.out is not None
        try:
            root = os.getcwd()
            items = list(session.items)
            listed = []
            for item in items:
                rel = os.path.normpath(os.path.relpath(str(_item_path(item)), root))
                listed.append((item.nodeid, rel, _junit_id(item, rel)))
            if self.nodeids is None:
                session_ = self.spec["session"]
                wanted = set(_mine(listed, session_["files"], session_.get("ids")))
            else:
                wanted = set(self.nodeids)
            collecting = time.monotonic() - self.forked
            traced = self.files.trace([i for i in items if i.nodeid in wanted])
            report = {"items": listed, "errors": session.testsfailed, "collecting": collecting,
                      "traced": traced}  # fmt: skip
            data = json.dumps(report).encode()
            while data:
                data = data[os.write(self.out, data) :]
            os._exit(0)
        except BaseException:
            os._exit(_CRASHED)


class _Try:
    """A mutant's (or a sham's) worker: swap `codes` in, run `nodeids`, exit `KILLED` at
    the first failure, `SURVIVED` when they all pass."""

    out: int | None = None
    forked = 0.0

    def __init__(self, files: list[str], nodeids: list[str], codes: _Codes) -> None:
        self.files, self.nodeids, self.codes = files, nodeids, codes

    def prepare(self, session: Any) -> None:
        session.config.args = list(self.files)  # their files only

    def run(self, session: Any) -> None:
        try:
            from _pytest.runner import runtestprotocol

            found = {item.nodeid: item for item in session.items}
            if session.testsfailed or not all(n in found for n in self.nodeids):
                os._exit(_NOT_FOUND)
            items = [found[n] for n in self.nodeids]
            names = {path for path, _, _ in self.codes}
            swapped = 0
            for f in _live(names):
                code = f.__code__
                new = self.codes.get((os.path.realpath(code.co_filename), code.co_name,
                                      code.co_firstlineno))  # fmt: skip
                if new is not None:
                    f.__code__ = new
                    swapped += 1
            if not swapped:
                os._exit(_NO_LIVE)
            option = session.config.option
            option.tbstyle, option.showlocals = "native", False  # a failure is not shown
            for item in items:
                if any(r.failed for r in runtestprotocol(item, nextitem=None, log=False)):
                    os._exit(KILLED)
            os._exit(SURVIVED)
        except BaseException:
            os._exit(_CRASHED)


def _live(files: set[str]) -> list[types.FunctionType]:
    """Every function object made from the code of `files` (real paths), as things are."""
    real: dict[str, bool] = {}
    found = []
    for f in gc.get_objects():
        if type(f) is types.FunctionType:
            name = f.__code__.co_filename
            if name not in real:
                real[name] = os.path.realpath(name) in files
            if real[name]:
                found.append(f)
    return found


class _Files:
    """The mutated files of the copy, read once (before any worker runs), and the code
    made from them: mutated, unmutated, or with probes."""

    def __init__(self, root: str, mutants: list[dict[str, Any]]) -> None:
        self.root = root
        self.mutants = mutants
        self.sources: dict[str, bytes] = {}
        for m in mutants:
            path = os.path.join(root, m["path"])
            if path not in self.sources:
                with open(path, "rb") as f:
                    self.sources[path] = f.read()
        self.real = {os.path.realpath(p) for p in self.sources}

    def mutated(self, mutant: dict[str, Any]) -> _Codes | None:
        """The code objects of the mutant's top-level statement, mutated; None when it
        does not compile."""
        path = os.path.join(self.root, mutant["path"])
        data = self.sources[path]
        text = data[: mutant["start"]] + mutant["replacement"].encode() + data[mutant["end"] :]
        return _compiled(_chunk(text, mutant["scope"]), path, _flags(data))

    def original(self, path: str, scope: Any) -> _Codes:
        """The statement's code as it is, compiled anew."""
        data = self.sources[os.path.join(self.root, path)]
        return _compiled(_chunk(data, scope), os.path.join(self.root, path), _flags(data)) or {}

    def trace(self, items: list[Any]) -> dict[str, Any]:
        """Run `items` once each, recording the mutants' lines each one reaches: the live
        functions run instrumented code meanwhile (a probe before each statement holding
        a mutant). Lines of a statement no live function holds (a module imported later)
        count as reached by every test."""
        from _pytest.runner import runtestprotocol

        probes: list[tuple[tuple[str, int], ...]] = []
        hits: set[tuple[str, int]] = set()
        everywhere: set[tuple[str, int]] = set()

        def probe(i: int) -> None:
            hits.update(probes[i])

        live = _live(self.real)
        groups: dict[tuple[str, tuple[int, int]], set[int]] = {}
        for m in self.mutants:
            key = (os.path.join(self.root, m["path"]), (m["scope"][0], m["scope"][1]))
            groups.setdefault(key, set()).add(int(m["line"]))
        for (path, scope), lines in groups.items():
            codes = _probed(path, scope, self.sources[path], lines, probes)
            held = False
            for f in live:
                c = f.__code__
                new = codes.get((os.path.realpath(c.co_filename), c.co_name, c.co_firstlineno))
                if new is not None:
                    f.__globals__[_PROBE] = probe
                    f.__code__ = new
                    held = True
            if not held:
                everywhere.update((os.path.realpath(path), n) for n in lines)
        traced: dict[str, Any] = {}
        for n, item in enumerate(items):
            hits.clear()
            following = items[n + 1] if n + 1 < len(items) else None
            started = time.monotonic()
            reports = runtestprotocol(item, nextitem=following, log=False)
            traced[item.nodeid] = {"lines": sorted(hits | everywhere),
                                   "seconds": time.monotonic() - started,
                                   "failed": any(r.failed for r in reports)}  # fmt: skip
        return traced


def _probed(path: str, scope: tuple[int, int], data: bytes, lines: set[int],
            probes: list[tuple[tuple[str, int], ...]]) -> _Codes:  # fmt: skip
    """The top-level statement `scope` of `path`, with a probe before the innermost
    statement holding each of `lines` (empty when it does not compile)."""
    import ast

    real = os.path.realpath(path)
    try:
        tree = ast.parse(_chunk(data, scope))
    except (SyntaxError, ValueError):
        return {}

    def place(body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            inner = {n for n in lines if stmt.lineno <= n <= (stmt.end_lineno or stmt.lineno)}
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                nested = getattr(stmt, field, None)
                if isinstance(nested, list) and nested:
                    held = {
                        n
                        for s in nested
                        for n in inner
                        if getattr(s, "lineno", 0) <= n <= (getattr(s, "end_lineno", 0) or 0)
                    }
                    inner -= held
                    if all(isinstance(s, ast.stmt) for s in nested):
                        setattr(stmt, field, place(nested))
                    else:  # except handlers, match cases: their bodies
                        for part in nested:
                            part.body = place(part.body)
            if inner:
                probes.append(tuple((real, n) for n in sorted(inner)))
                call = ast.Call(ast.Name(_PROBE, ast.Load()), [ast.Constant(len(probes) - 1)], [])
                out.append(ast.copy_location(ast.Expr(call), stmt))
            out.append(stmt)
        return out

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.body = place(node.body)
    ast.fix_missing_locations(tree)
    return _compiled(tree, path, _flags(data)) or {}


def _compiled(source: Any, path: str, flags: int) -> _Codes | None:
    """Every code object of `source` (bytes or a syntax tree) compiled as `path`'s, by
    (real path, name, first line); None when it does not compile."""
    real = os.path.realpath(path)
    try:
        top = compile(source, real, "exec", flags=flags, dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    found: _Codes = {}
    stack = [top]
    while stack:
        code = stack.pop()
        found[(real, code.co_name, code.co_firstlineno)] = code
        stack += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return found


def _chunk(data: bytes, scope: Any) -> bytes:
    """The top-level statement on lines `scope` of `data`, at its own line numbers."""
    first, last = int(scope[0]), int(scope[1])
    lines = data.splitlines(keepends=True)
    return b"\n" * (first - 1) + b"".join(lines[first - 1 : last])


def _flags(data: bytes) -> int:
    """Compile flags of the module's own: postponed annotations (a nested function's
    annotations may name what only a type checker imports)."""
    import __future__

    postponed = b"from __future__ import annotations" in data
    return __future__.annotations.compiler_flag if postponed else 0


def _item_path(item: Any) -> Any:
    return getattr(item, "path", None) or item.fspath


def _junit_id(item: Any, rel: str) -> str:
    """The id the executor's test reports give `item` (`tests.test_x[.Class]::name`)."""
    module = rel[:-3] if rel.endswith(".py") else rel
    owner = getattr(item, "cls", None)
    classname = module.replace(os.sep, ".") + (f".{owner.__name__}" if owner else "")
    return f"{classname}::{item.name}"
