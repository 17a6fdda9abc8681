"""What a mutation run makes of the mutated files and the collected tests: the files
read once, their code mutated, unmutated or with probes, the live functions made from
them, the session's tests among those collected."""

from __future__ import annotations

import gc
import os
import time
import types
from typing import Any

#: mutated code objects by (file, name, first line)
Codes = dict[tuple[str, str, int], types.CodeType]
#: The probe's name in the instrumented functions' globals, while tracing only.
PROBE = "__executor_mutation_probe__"


def session_tests(
    listed: list[tuple[str, str, str]], files: list[str], ids: list[str] | None
) -> list[str]:
    """The session's tests: of its files, those of `ids` (None: all of them)."""
    wanted = None if ids is None else set(ids)
    paths = {os.path.normpath(f) for f in files}
    return [n for n, f, j in listed if f in paths and (wanted is None or j in wanted)]


def live(files: set[str]) -> list[types.FunctionType]:
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


class Files:
    """The mutated files, read once, and the code made from them: mutated, unmutated, or
    with probes."""

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

    def mutated(self, mutant: dict[str, Any]) -> Codes | None:
        """The code objects of the mutant's top-level statement, mutated; None when it
        does not compile."""
        path = os.path.join(self.root, mutant["path"])
        data = self.sources[path]
        text = data[: mutant["start"]] + mutant["replacement"].encode() + data[mutant["end"] :]
        return compiled(chunk(text, mutant["scope"]), path, flags(data))

    def original(self, path: str, scope: Any) -> Codes:
        """The statement's code as it is, compiled anew."""
        full = os.path.join(self.root, path)
        data = self.sources[full]
        return compiled(chunk(data, scope), full, flags(data)) or {}

    def trace(self, items: list[Any], protocol: Any) -> dict[str, Any]:
        """Run `items` once each, recording the mutants' lines each one reaches: the live
        functions run instrumented code meanwhile (a probe before each statement holding
        a mutant), then their own again. Lines of a statement no live function holds (a
        module imported later) count as reached by every test."""
        probes: list[tuple[tuple[str, int], ...]] = []
        hits: set[tuple[str, int]] = set()
        everywhere: set[tuple[str, int]] = set()

        def probe(i: int) -> None:
            hits.update(probes[i])

        functions = live(self.real)
        groups: dict[tuple[str, tuple[int, int]], set[int]] = {}
        for m in self.mutants:
            key = (os.path.join(self.root, m["path"]), (m["scope"][0], m["scope"][1]))
            groups.setdefault(key, set()).add(int(m["line"]))
        saved: list[tuple[types.FunctionType, types.CodeType]] = []
        for (path, scope), lines in groups.items():
            codes = probed(path, scope, self.sources[path], lines, probes)
            held = False
            for f in functions:
                c = f.__code__
                new = codes.get((os.path.realpath(c.co_filename), c.co_name, c.co_firstlineno))
                if new is not None:
                    saved.append((f, c))
                    f.__globals__[PROBE] = probe
                    f.__code__ = new
                    held = True
            if not held:
                everywhere.update((os.path.realpath(path), n) for n in lines)
        traced: dict[str, Any] = {}
        try:
            for n, item in enumerate(items):
                hits.clear()
                following = items[n + 1] if n + 1 < len(items) else None
                started = time.monotonic()
                reports = protocol(item, nextitem=following, log=False)
                traced[item.nodeid] = {"lines": sorted(hits | everywhere),
                                       "seconds": time.monotonic() - started,
                                       "failed": any(r.failed for r in reports)}  # fmt: skip
        finally:
            for f, code in saved:
                f.__code__ = code
        return traced


def probed(path: str, scope: tuple[int, int], data: bytes, lines: set[int],
            probes: list[tuple[tuple[str, int], ...]]) -> Codes:  # fmt: skip
    """The top-level statement `scope` of `path`, with a probe before the innermost
    statement holding each of `lines` (empty when it does not compile)."""
    import ast

    try:
        tree = ast.parse(chunk(data, scope))
    except (SyntaxError, ValueError):
        return {}
    real = os.path.realpath(path)

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
                call = ast.Call(ast.Name(PROBE, ast.Load()), [ast.Constant(len(probes) - 1)], [])
                out.append(ast.copy_location(ast.Expr(call), stmt))
            out.append(stmt)
        return out

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.body = place(node.body)
    ast.fix_missing_locations(tree)
    return compiled(tree, path, flags(data)) or {}


def compiled(source: Any, path: str, flags: int) -> Codes | None:
    """Every code object of `source` (bytes or a syntax tree) compiled as `path`'s, by
    (real path, name, first line); None when it does not compile."""
    real = os.path.realpath(path)
    try:
        top = compile(source, real, "exec", flags=flags, dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    found: Codes = {}
    stack = [top]
    while stack:
        code = stack.pop()
        found[(real, code.co_name, code.co_firstlineno)] = code
        stack += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return found


def chunk(data: bytes, scope: Any) -> bytes:
    """The top-level statement on lines `scope` of `data`, at its own line numbers."""
    first, last = int(scope[0]), int(scope[1])
    lines = data.splitlines(keepends=True)
    return b"\n" * (first - 1) + b"".join(lines[first - 1 : last])


def flags(data: bytes) -> int:
    """Compile flags of the module's own: postponed annotations (a nested function's
    annotations may name what only a type checker imports)."""
    import __future__

    postponed = b"from __future__ import annotations" in data
    return __future__.annotations.compiler_flag if postponed else 0


def item_path(item: Any) -> Any:
    return getattr(item, "path", None) or item.fspath


def junit_id(item: Any, rel: str) -> str:
    """The id the executor's test reports give `item` (`tests.test_x[.Class]::name`)."""
    module = rel[:-3] if rel.endswith(".py") else rel
    owner = getattr(item, "cls", None)
    classname = module.replace(os.sep, ".") + (f".{owner.__name__}" if owner else "")
    return f"{classname}::{item.name}"
