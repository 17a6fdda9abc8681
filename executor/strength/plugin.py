"""The executor's mutation run, inside the project's own pytest.

This file is copied beside the run and loaded with `-p executor_mutation`, by the
interpreter the project's tests run with: it imports nothing of the executor (the
standard library and pytest only). It replaces pytest's test loop when
`EXECUTOR_MUTATION_SPEC` names a spec (JSON, written by `executor.strength.runner`):

1. **Baseline.** The session's tests run once, each traced for the mutants' lines: which
   test reaches which line, and how long it takes. A test that fails here is not asked
   about any mutant.
2. **Mutants.** Once the spec's `hold` folder, if any, is gone (a run started beside the
   session's verification waits for its test runs to end, and then takes the session's
   tests as they found them: `_hold`), for each one: the process
   forks; the child swaps the code of the live functions of the mutant's top-level
   statement for the mutated code (every function object whose code came from it, found
   once after the baseline), runs only the tests that reached the mutant's line, and
   exits 1 at the first failure. A child that runs
   past ten times its tests' baseline (plus 3 s) is killed: the mutant hangs them
   (`timeout`, counted as killed). A mutant the session's tests let through is tried on
   the rest of the collected tests (the suite) the same way, traced once, lazily.
3. **Results** go to the spec's `results` file as JSON lines while the run goes: the
   baseline, then one line per mutant, then `{"stopped": "budget"}` when the spec's
   `seconds` ran out (the score is then partial).

The run stops by itself when the process that started it is gone (checked between
mutants), so a killed executor leaves no mutation run behind.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import signal
import time
import types
from typing import Any

import pytest

#: mutated code objects by (file, name, first line)
_Codes = dict[tuple[str, str, int], types.CodeType]
_STARTED = time.monotonic()
#: The probe's name in the instrumented functions' globals, during the baseline only.
_PROBE = "__executor_mutation_probe__"
_PARENT = os.getppid()


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: Any) -> Any:
    spec_path = os.environ.get("EXECUTOR_MUTATION_SPEC")
    if not spec_path:
        return None
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    with open(spec["results"], "a", encoding="utf-8") as out:
        if session.testsfailed:
            _put(out, {"error": "the tests do not collect in a copy of the tested tree"})
            return True
        _Run(session, spec, out).main()
    return True


def _put(out: Any, record: dict[str, Any]) -> None:
    out.write(json.dumps(record) + "\n")
    out.flush()


class _Run:
    def __init__(self, session: Any, spec: dict[str, Any], out: Any) -> None:
        from _pytest.runner import runtestprotocol

        self.protocol = runtestprotocol
        self.out = out
        self.spec = spec
        self.root = os.getcwd()
        self.deadline = _STARTED + float(spec["seconds"])
        self.mutants: list[dict[str, Any]] = spec["mutants"]
        self.files = {os.path.realpath(os.path.join(self.root, m["path"])) for m in self.mutants}
        self.wanted: dict[str, set[int]] = {}
        for m in self.mutants:
            key = os.path.realpath(os.path.join(self.root, m["path"]))
            self.wanted.setdefault(key, set()).add(int(m["line"]))
        self.items: list[Any] = list(session.items)
        self.mine: list[Any] = []
        self.others: list[Any] = []
        self._pick(spec["session"].get("ids"))
        self.reached: dict[Any, set[tuple[str, int]]] = {}
        self.seconds: dict[Any, float] = {}
        self.failing: set[Any] = set()
        self.others_traced = False
        self.live: list[types.FunctionType] = []
        self.sources: dict[str, bytes] = {}
        self._names: dict[str, str | None] = {}

    def _pick(self, ids: list[str] | None) -> None:
        """The session's tests (`mine`: of its files, those of `ids`; None: all of them)
        and the rest of what was collected (`others`)."""
        files = {os.path.normpath(f) for f in self.spec["session"]["files"]}
        wanted = None if ids is None else set(ids)
        self.mine = []
        for item in self.items:
            rel = os.path.normpath(os.path.relpath(str(_item_path(item)), self.root))
            if rel in files and (wanted is None or _junit_id(item, rel) in wanted):
                self.mine.append(item)
        picked = set(self.mine)
        self.others = [i for i in self.items if i not in picked]

    # -- the run ---------------------------------------------------------------------------
    def main(self) -> None:
        self._trace(self.mine)
        if self.spec.get("hold"):
            self._hold()
        failing = [i for i in self.mine if i in self.failing]
        _put(self.out, {"baseline": {"tests": len(self.mine), "failing": len(failing),
                                     "others": len(self.others)}})  # fmt: skip
        if self.mine and len(failing) == len(self.mine):
            _put(self.out, {"error": "the session's tests do not pass in a copy of the tree"})
            return
        good = [i for i in self.mine if i not in self.failing]
        self.live = self._live()
        for mutant in self.mutants:
            if os.getppid() != _PARENT:
                os._exit(3)  # the executor is gone: nobody reads this any more
            if time.monotonic() > self.deadline:
                _put(self.out, {"stopped": "budget"})
                return
            started = time.monotonic()
            judged = self._judge(mutant, good)
            _put(
                self.out,
                {"key": mutant["key"], **judged, "seconds": round(time.monotonic() - started, 3)},
            )

    def _hold(self) -> None:
        """Wait while the spec's `hold` folder exists: the run started beside the
        session's verification, whose test runs could disturb a mutant's (a fixed port,
        a file in /tmp); its mutants wait for them to end. Then the session's tests are
        those the verification passed (`hold_ids`, written before the hold goes: a JSON
        list, or null for every test of the session's files); those the baseline has
        not run yet run now."""
        hold = self.spec["hold"]
        while os.path.exists(hold) and time.monotonic() < self.deadline:
            if os.getppid() != _PARENT:
                os._exit(3)
            time.sleep(0.005)
        try:
            with open(self.spec["hold_ids"], encoding="utf-8") as f:
                ids = json.load(f)
        except (OSError, ValueError, KeyError):
            return  # stopped, or no verdict to go by: the spec's own
        self._pick(ids)
        self._trace([i for i in self.mine if i not in self.reached])

    def _judge(self, mutant: dict[str, Any], good: list[Any]) -> dict[str, Any]:
        codes = self._codes(mutant)
        if codes is None:
            return {"status": "error", "why": "the mutant does not compile"}
        mine = self._reaching(mutant, good)
        status, by = self._try(codes, mine)
        if status == "survived" and self.others:
            if not self.others_traced:
                self.others_traced = True
                self._trace(self.others)
            theirs = self._reaching(mutant, [i for i in self.others if i not in self.failing])
            other, other_by = self._try(codes, theirs)
            if other != "survived":
                return {"status": other, "by": other_by, "suite": True,
                        "tests": len(mine) + len(theirs)}  # fmt: skip
            return {"status": "survived", "tests": len(mine) + len(theirs)}
        return {"status": status, "by": by, "tests": len(mine)}

    def _reaching(self, mutant: dict[str, Any], items: list[Any]) -> list[Any]:
        spot = (os.path.realpath(os.path.join(self.root, mutant["path"])), int(mutant["line"]))
        return sorted((i for i in items if spot in self.reached.get(i, ())),
                      key=lambda i: self.seconds.get(i, 0.0))  # fmt: skip

    # -- which test reaches which line --------------------------------------------------
    def _name(self, filename: str) -> str | None:
        """The mutated file `filename` is (its real path), None when it is none of them."""
        if filename not in self._names:
            real = os.path.realpath(filename)
            self._names[filename] = real if real in self.files else None
        return self._names[filename]

    def _trace(self, items: list[Any]) -> None:
        """Run `items` once each, recording the mutants' lines each one reaches: the live
        functions run instrumented code meanwhile (a probe before each statement holding
        a mutant), then their own again. Lines of a statement no live function holds
        (a module imported later) count as reached by every test."""
        probes: list[tuple[tuple[str, int], ...]] = []
        hits: set[tuple[str, int]] = set()
        everywhere: set[tuple[str, int]] = set()

        def probe(i: int) -> None:
            hits.update(probes[i])

        live = self._live()
        saved: list[tuple[types.FunctionType, types.CodeType]] = []
        for (path, scope), lines in self._groups().items():
            codes = self._compiled(path, scope, self._source(path), lines, probes)
            mine = [f for f in live if (self._name(f.__code__.co_filename), f.__code__.co_name,
                                        f.__code__.co_firstlineno) in codes]  # fmt: skip
            if not mine:
                everywhere.update((os.path.realpath(path), n) for n in lines)
            for f in mine:
                saved.append((f, f.__code__))
                f.__globals__[_PROBE] = probe
                f.__code__ = codes[(self._name(f.__code__.co_filename) or "", f.__code__.co_name,
                                    f.__code__.co_firstlineno)]  # fmt: skip
        try:
            for n, item in enumerate(items):
                hits.clear()
                following = items[n + 1] if n + 1 < len(items) else None
                started = time.monotonic()
                reports = self.protocol(item, nextitem=following, log=False)
                self.seconds[item] = time.monotonic() - started
                self.reached[item] = set(hits) | everywhere
                if any(r.failed for r in reports):
                    self.failing.add(item)
        finally:
            for f, code in saved:
                f.__code__ = code

    def _live(self) -> list[types.FunctionType]:
        """Every function object made from a mutated file's code, as things are now."""
        objects = gc.get_objects()
        return [
            f
            for f in objects
            if type(f) is types.FunctionType and self._name(f.__code__.co_filename)
        ]

    def _groups(self) -> dict[tuple[str, tuple[int, int]], set[int]]:
        groups: dict[tuple[str, tuple[int, int]], set[int]] = {}
        for m in self.mutants:
            path = os.path.join(self.root, m["path"])
            groups.setdefault((path, (m["scope"][0], m["scope"][1])), set()).add(int(m["line"]))
        return groups

    def _source(self, path: str) -> bytes:
        if path not in self.sources:
            with open(path, "rb") as f:
                self.sources[path] = f.read()
        return self.sources[path]

    def _compiled(self, path: str, scope: tuple[int, int], data: bytes, lines: set[int],
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
                    call = ast.Call(
                        ast.Name(_PROBE, ast.Load()), [ast.Constant(len(probes) - 1)], []
                    )
                    out.append(ast.copy_location(ast.Expr(call), stmt))
                out.append(stmt)
            return out

        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                node.body = place(node.body)
        ast.fix_missing_locations(tree)
        try:
            top = compile(tree, real, "exec", flags=_flags(data), dont_inherit=True)
        except (SyntaxError, ValueError):
            return {}
        return _codes_in(top, real)

    # -- one mutant ------------------------------------------------------------------------
    def _codes(self, mutant: dict[str, Any]) -> _Codes | None:
        """The code objects of the mutant's top-level statement, mutated, by (file,
        name, first line); None when it does not compile."""
        path = os.path.join(self.root, mutant["path"])
        data = self._source(path)
        mutated = data[: mutant["start"]] + mutant["replacement"].encode() + data[mutant["end"] :]
        real = os.path.realpath(path)
        try:
            top = compile(_chunk(mutated, mutant["scope"]), real, "exec", flags=_flags(data),
                          dont_inherit=True)  # fmt: skip
        except (SyntaxError, ValueError):
            return None
        return _codes_in(top, real)

    def _try(self, codes: _Codes, items: list[Any]) -> tuple[str, str | None]:
        """Run `items` with the mutated code in a child process: (status, test that
        failed)."""
        if not items:
            return "survived", None
        limit = 3.0 + 10.0 * sum(self.seconds.get(i, 0.0) for i in items)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read)
            self._child(codes, items, write)
        os.close(write)
        ends = time.monotonic() + limit
        nap = 0.001
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > ends:
                for kill in (os.killpg, os.kill):
                    with contextlib.suppress(OSError):
                        kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                os.close(read)
                return "timeout", None
            time.sleep(nap)
            nap = min(nap * 2, 0.02)
        said = b""
        while chunk := os.read(read, 65536):
            said += chunk
        os.close(read)
        code = os.waitstatus_to_exitcode(status)
        text = said.decode("utf-8", "replace")
        if code == 1:
            return "killed", text
        if code == 0:
            return "survived", None
        return "error", text or f"exit {code}"

    def _child(self, codes: _Codes, items: list[Any], write: int) -> None:
        try:
            os.setpgid(0, 0)
            quiet = os.open(os.devnull, os.O_WRONLY)
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            swapped = 0
            for f in self.live:
                code = f.__code__
                new = codes.get((self._name(code.co_filename) or "", code.co_name,
                                 code.co_firstlineno))  # fmt: skip
                if new is not None:
                    f.__code__ = new
                    swapped += 1
            if not swapped:
                os.write(write, b"no live function holds it")
                os._exit(3)
            option = items[0].config.option
            option.tbstyle, option.showlocals = "native", False  # a failure is not shown
            for item in items:
                reports = self.protocol(item, nextitem=None, log=False)
                if any(r.failed for r in reports):
                    os.write(write, item.nodeid.encode("utf-8", "replace")[:500])
                    os._exit(1)
            os._exit(0)
        except BaseException as e:
            os.write(write, repr(e).encode("utf-8", "replace")[:500])
            os._exit(2)


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


def _codes_in(top: types.CodeType, real: str) -> _Codes:
    found: _Codes = {}
    stack = [top]
    while stack:
        code = stack.pop()
        found[(real, code.co_name, code.co_firstlineno)] = code
        stack += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return found


def _item_path(item: Any) -> Any:
    return getattr(item, "path", None) or item.fspath


def _junit_id(item: Any, rel: str) -> str:
    """The id the executor's test reports give `item` (`tests.test_x[.Class]::name`)."""
    module = rel[:-3] if rel.endswith(".py") else rel
    owner = getattr(item, "cls", None)
    classname = module.replace(os.sep, ".") + (f".{owner.__name__}" if owner else "")
    return f"{classname}::{item.name}"
