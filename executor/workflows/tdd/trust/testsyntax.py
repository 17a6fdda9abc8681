"""What a test's syntax says: its marks, skips, assertions, parametrised cases, and the
module statements that decide whether tests run; read by `testchanges` to judge a change."""

from __future__ import annotations

import ast
import re

#: Marks that change what a test needs, not whether it runs or what it asks.
_NEUTRAL_MARKS = frozenset(
    {"parametrize", "usefixtures", "timeout", "asyncio", "anyio", "django_db", "trio",
     "filterwarnings", "order", "dependency", "benchmark"}
)  # fmt: skip
_SKIP_CALLS = frozenset({"skip", "xfail", "importorskip", "skipTest", "SkipTest"})
_SKIP_DECORATORS = frozenset({"skip", "skipif", "skipIf", "skipUnless", "xfail",
                              "expectedFailure"})  # fmt: skip
_ASSERT_CALL = re.compile(r"^(?:assert|fail)|^(?:raises|warns|deprecated_call|approx)$")
#: Module or class statements that decide whether tests run at all.
_COLLECTION_NAMES = frozenset(
    {"__test__", "pytestmark", "collect_ignore", "collect_ignore_glob", "pytest_plugins"}
)


def dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return dotted(node.func)
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    return ""


def mark_name(decorator: ast.expr) -> str:
    return dotted(decorator).rsplit(".", 1)[-1]


def marks(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {mark_name(d) + "\0" + ast.dump(d) for d in fn.decorator_list}


def weakening_mark(mark: str) -> bool:
    name = mark.split("\0", 1)[0]
    return name in _SKIP_DECORATORS or name not in _NEUTRAL_MARKS


def is_skip_call(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        return dotted(node.func).rsplit(".", 1)[-1] in _SKIP_CALLS
    if isinstance(node, ast.Raise) and node.exc is not None:
        return dotted(node.exc).rsplit(".", 1)[-1] == "SkipTest"
    return False


def count(fn: ast.AST, test: object) -> int:
    assert callable(test)
    return sum(1 for n in ast.walk(fn) if test(n))


def trivial(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A body that asks nothing: only a docstring, `pass`, `...` or a bare return."""
    for stmt in fn.body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        return isinstance(stmt, ast.Return) and (
            stmt.value is None or isinstance(stmt.value, ast.Constant)
        )
    return True


def reachable(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements before the first top-level `return` (what runs)."""
    out = []
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, ast.Return):
            break
    return out


def is_assertion(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.Call):
        return bool(_ASSERT_CALL.search(dotted(node.func).rsplit(".", 1)[-1]))
    return False


def assertions(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return sum(count(stmt, is_assertion) for stmt in reachable(fn.body))


def cases(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """How many cases its parametrisations make (their product; 1 without any)."""
    total = 1
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and mark_name(d) == "parametrize":
            values = d.args[1] if len(d.args) > 1 else None
            values = values or next((k.value for k in d.keywords if k.arg == "argvalues"), None)
            if isinstance(values, (ast.List, ast.Tuple, ast.Set)):
                total *= max(len(values.elts), 1)
    return total


def decides_collection(node: ast.stmt) -> bool:
    names = _assigned(node)
    if names:
        return bool(names & _COLLECTION_NAMES)
    return any(is_skip_call(n) for n in ast.walk(node))


def loads_plugins(node: ast.stmt) -> bool:
    """`pytest_plugins = [...]`: a plugin can pass tests, so one taken away is a change too."""
    return "pytest_plugins" in _assigned(node)


def _assigned(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {dotted(t) for t in targets}
    return set()


def rebound(old: list[ast.stmt], added: list[ast.stmt]) -> bool:
    """A name the module imported from the code now comes from a test module or a mock."""
    had = {alias.asname or alias.name: n.module or "" for n in old
           if isinstance(n, ast.ImportFrom) for alias in n.names}  # fmt: skip
    for node in added:
        if not isinstance(node, ast.ImportFrom):
            continue
        source = node.module or ""
        fake = source.split(".")[0] in {"tests", "test", "conftest", "unittest"} or any(
            part.startswith(("test_", "fake", "mock", "stub")) for part in source.split(".")
        )
        for alias in node.names:
            name = alias.asname or alias.name
            if fake and name in had and had[name] != source:
                return True
    return False
