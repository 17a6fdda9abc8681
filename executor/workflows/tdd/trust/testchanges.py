"""How a test changed, judged by what changed and not by the fact of a change (P25, P26).

Real projects grow tests inside existing files and change an existing test when the
behaviour it describes changes. So a change to a test is sorted by its content:

- **added**: a test that did not exist (the session's);
- **strengthened or neutral**: a test that asks for more or the same (a case added to a
  parametrisation, an expected value changed, an import or a docstring added);
- **weakened**: it asks for less, or may no longer run at all. Each kind has a name
  (`WHY`), and docs/engine.md ("What counts as weakening") gives an example of each.

Some weakenings are *always* weakenings (a skip added, a body emptied, a test gone: the
test cannot fail any more); the others (fewer assertions, fewer parametrised cases) are
weakenings unless the changed test now fails in RED: then the change asks for behaviour
the code does not have yet, which is a stronger test (P25). After RED (GREEN, REFACTOR)
the session's tests are fixed: a test that failed in RED may not change at all, and a
fixture or helper the tests use may not change either.

Python test files are compared definition by definition (`executor.workflows.tdd.trust.verdicts.
test_fingerprints` keys: `file::test`, `file::Class::test`, `file::Class` for a class's
head, `file::Class::<class>` and `file::<module>` for what a class or module does besides
its definitions). Other test files (JavaScript, data) are compared as text.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

#: Why a change weakens, by kind (the words the person reads).
WHY = {
    "gone": "deleted or renamed away",
    "skip": "a skip, xfail or mark added",
    "runtime-skip": "a skip added in its code",
    "emptied": "its body emptied",
    "fewer-assertions": "assertions removed",
    "fewer-cases": "parametrised cases removed",
    "collection": "switched off for collection: `__test__`, `pytestmark` or a module skip",
    "rebound": "a name it tests now comes from a test module or a mock",
    "changed-after-red": "changed after it failed in RED",
    "helper-after-red": "a fixture or helper the tests use changed after RED",
    "import-after-red": "an import removed after RED: what the tests test may have changed",
    "base-removed": "its class no longer derives from what made it a test class",
    "text": "fewer assertions or more skips in a test file that is not Python",
    "changed-file": "a test file that is not Python changed after RED",
}
#: Weakenings a failing test in RED outweighs (the change asks for more elsewhere).
UNLESS_FAILING = frozenset({"fewer-assertions", "fewer-cases", "text"})

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
_TEXT_ASSERTS = re.compile(r"\bexpect\s*\(|\bassert\w*\s*[.(]|\bassert\s|\.should\b")
_TEXT_SKIPS = re.compile(
    r"\b(?:it|test|describe)\.(?:skip|todo)\b|\bx(?:it|test|describe)\s*\(|\.only\s*\("
    r"|\bt\.skip\s*\(|\bskip\s*:\s*true"
)


@dataclass
class Judged:
    """One changed definition: its key, whether it is a test, and why it weakens."""

    key: str
    kind: str  # "added", "changed", "gone"
    is_test: bool
    always: list[str] = field(default_factory=list)
    unless_failing: list[str] = field(default_factory=list)

    def weakenings(self, fails_now: bool) -> list[str]:
        return self.always + ([] if fails_now else self.unless_failing)


def is_test_name(name: str) -> bool:
    """pytest's default: functions and methods named `test*`."""
    return name.startswith("test")


def key_is_test(key: str) -> bool:
    last = key.rsplit("::", 1)[-1]
    return is_test_name(last)


def definitions(rel: str, data: bytes | None) -> dict[str, ast.AST | list[ast.stmt] | bytes]:
    """A test file's definitions by key (module docstring), each as its syntax: a function,
    a class head (`ClassDef` without body), the other statements of a class or module, or
    for a file that is not Python (or does not parse) its bytes as `file::<file>`."""
    if data is None:
        return {}
    if not rel.endswith(".py"):
        return {f"{rel}::<file>": data}
    key = (rel, hashlib.blake2b(data, digest_size=16).digest())
    found = _PARSED.pop(key, None)
    if found is None:
        try:
            found = _walk(rel, ast.parse(data).body)
        except (SyntaxError, ValueError):
            found = {f"{rel}::<file>": data}
    _PARSED[key] = found  # the newest last: the oldest goes first
    while len(_PARSED) > _PARSED_KEPT:
        del _PARSED[next(iter(_PARSED))]
    return dict(found)


#: (file, content hash) -> its definitions, the last `_PARSED_KEPT` read. A session
#: reads the same test file's definitions again and again (each fingerprinting, each
#: judgement of a change), and a real project's test module takes tens of milliseconds
#: to parse (more-itertools' tests/test_more.py: 35 ms). The nodes are only read.
_PARSED: dict[tuple[str, bytes], dict[str, ast.AST | list[ast.stmt] | bytes]] = {}
_PARSED_KEPT = 32


def _walk(prefix: str, body: list[ast.stmt]) -> dict[str, ast.AST | list[ast.stmt] | bytes]:
    out: dict[str, ast.AST | list[ast.stmt] | bytes] = {}
    rest: list[ast.stmt] = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[f"{prefix}::{node.name}"] = node
        elif isinstance(node, ast.ClassDef):
            out.update(_walk(f"{prefix}::{node.name}", node.body))
            out[f"{prefix}::{node.name}"] = node
        else:
            rest.append(node)
    if rest:
        out[f"{prefix}::{'<class>' if '::' in prefix else '<module>'}"] = rest
    return out


def digest(node: ast.AST | list[ast.stmt] | bytes) -> str:
    """A definition's fingerprint: a hash of its syntax (a class: of its head only, its
    methods have their own), or of the bytes of a file that is not Python."""
    if isinstance(node, bytes):
        data = node
    elif isinstance(node, list):
        data = "".join(map(ast.dump, node)).encode()
    elif isinstance(node, ast.ClassDef):
        data = "".join(map(ast.dump, [*node.decorator_list, *node.bases, *node.keywords])).encode()
    else:
        data = ast.dump(node).encode()
    return hashlib.sha256(data).hexdigest()[:20]


def judge(
    before: dict[str, ast.AST | list[ast.stmt] | bytes],
    after: dict[str, ast.AST | list[ast.stmt] | bytes],
    keys: Iterable[str],
    *,
    after_red: bool,
    failed_in_red: frozenset[str] = frozenset(),
) -> list[Judged]:
    """Judge each of `keys` (definitions that differ between `before` and `after`).

    `after_red`: the change happened after RED (GREEN, REFACTOR), when the session's tests
    are fixed; `failed_in_red`: the keys of tests that failed in RED."""
    out = []
    keys = list(keys)
    # in RED a test renamed to another test's name loses nothing (after RED the session's
    # tests are fixed: a person takes a rename in); renamed away from `test*`, it is no
    # longer collected: gone
    added = {_body(after[k]) for k in keys if k not in before and k in after and key_is_test(k)}
    for key in keys:
        old, new = before.get(key), after.get(key)
        test = key_is_test(key)
        if old is None:
            out.append(Judged(key, "added", test))
            continue
        j = Judged(key, "gone" if new is None else "changed", test)
        if new is None:
            if test and not after_red and _body(old) in added:
                j.kind = "renamed"  # the same test under another name: nothing is lost
            elif test or _holds_tests(old) or key.endswith("::<file>"):
                j.always.append("gone")
            elif after_red:
                j.always.append("helper-after-red")
        elif isinstance(old, bytes) or isinstance(new, bytes):
            _judge_text(j, old, new, after_red)
        elif isinstance(old, list) and isinstance(new, list):
            _judge_statements(j, old, new, after_red)
        elif isinstance(old, ast.ClassDef) and isinstance(new, ast.ClassDef):
            _judge_class_head(j, old, new)
        elif isinstance(old, ast.AST) and isinstance(new, ast.AST):
            _judge_function(j, old, new, after_red=after_red, failed=key in failed_in_red)
        out.append(j)
    return out


def _body(node: ast.AST | list[ast.stmt] | bytes) -> str:
    """A test function's syntax without its name (a rename keeps it); "" for others."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return ""
    return "".join(map(ast.dump, [*node.decorator_list, node.args, *node.body]))


def _holds_tests(node: ast.AST | list[ast.stmt] | bytes) -> bool:
    """A class that had test methods (gone with it: each is reported on its own too)."""
    return isinstance(node, ast.ClassDef) and any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_test_name(n.name)
        for n in node.body
    )


def _judge_function(
    j: Judged, old: ast.AST, new: ast.AST, *, after_red: bool, failed: bool
) -> None:
    assert isinstance(old, (ast.FunctionDef, ast.AsyncFunctionDef))
    assert isinstance(new, (ast.FunctionDef, ast.AsyncFunctionDef))
    if not j.is_test:  # a fixture or helper
        if after_red:
            j.always.append("helper-after-red")
        elif _count(new, _is_skip_call) > _count(old, _is_skip_call):
            j.always.append("runtime-skip")
        return
    if after_red and failed:
        j.always.append("changed-after-red")
    added = _marks(new) - _marks(old)
    if any(_weakening_mark(m) for m in added):
        j.always.append("skip")
    if _count(new, _is_skip_call) > _count(old, _is_skip_call):
        j.always.append("runtime-skip")
    if _trivial(new) and not _trivial(old):
        j.always.append("emptied")
    elif _assertions(new) < _assertions(old):
        (j.always if after_red else j.unless_failing).append("fewer-assertions")
    if _cases(new) < _cases(old):
        (j.always if after_red else j.unless_failing).append("fewer-cases")


def _judge_class_head(j: Judged, old: ast.ClassDef, new: ast.ClassDef) -> None:
    added = {ast.dump(d) for d in new.decorator_list} - {ast.dump(d) for d in old.decorator_list}
    if any(_weakening_mark(_mark_name(d)) for d in new.decorator_list if ast.dump(d) in added):
        j.always.append("skip")
    lost = {_dotted(b) for b in old.bases} - {_dotted(b) for b in new.bases} - {"object"}
    if lost and _holds_tests(new):
        j.always.append("base-removed")


def _judge_statements(j: Judged, old: list[ast.stmt], new: list[ast.stmt], after_red: bool) -> None:
    """What a module or class does besides its definitions: in RED imports may come and
    go; what turns tests off may not be added (taken away, the suite runs more: a
    module-level skip dropped with an old Python) and the plugins loaded may not change;
    after RED only imports may be added."""
    before, now = Counter(map(ast.dump, old)), Counter(map(ast.dump, new))
    added = [n for n in new if ast.dump(n) in now - before]
    removed = [n for n in old if ast.dump(n) in before - now]
    if any(_decides_collection(n) for n in added) or any(_loads_plugins(n) for n in removed):
        j.always.append("collection")
    if _rebound(old, added):
        j.always.append("rebound")
    if after_red and any(not isinstance(n, (ast.Import, ast.ImportFrom)) for n in added):
        j.always.append("helper-after-red")
    if after_red and any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in removed):
        j.always.append("import-after-red")


def _judge_text(j: Judged, old: object, new: object, after_red: bool) -> None:
    if after_red:
        j.always.append("changed-file")
        return
    if not (isinstance(old, bytes) and isinstance(new, bytes)):
        return  # a Python file that stopped (or started) parsing: its run will tell
    was, now = old.decode("utf-8", "replace"), new.decode("utf-8", "replace")
    fewer = len(_TEXT_ASSERTS.findall(now)) < len(_TEXT_ASSERTS.findall(was))
    if len(_TEXT_SKIPS.findall(now)) > len(_TEXT_SKIPS.findall(was)):
        j.always.append("skip")
    elif fewer:
        j.unless_failing.append("text")


# -- reading syntax ------------------------------------------------------------------------


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _mark_name(decorator: ast.expr) -> str:
    return _dotted(decorator).rsplit(".", 1)[-1]


def _marks(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {_mark_name(d) + "\0" + ast.dump(d) for d in fn.decorator_list}


def _weakening_mark(mark: str) -> bool:
    name = mark.split("\0", 1)[0]
    return name in _SKIP_DECORATORS or name not in _NEUTRAL_MARKS


def _is_skip_call(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        return _dotted(node.func).rsplit(".", 1)[-1] in _SKIP_CALLS
    if isinstance(node, ast.Raise) and node.exc is not None:
        return _dotted(node.exc).rsplit(".", 1)[-1] == "SkipTest"
    return False


def _count(fn: ast.AST, test: object) -> int:
    assert callable(test)
    return sum(1 for n in ast.walk(fn) if test(n))


def _trivial(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
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


def _reachable(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements before the first top-level `return` (what runs)."""
    out = []
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, ast.Return):
            break
    return out


def _is_assertion(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.Call):
        return bool(_ASSERT_CALL.search(_dotted(node.func).rsplit(".", 1)[-1]))
    return False


def _assertions(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return sum(_count(stmt, _is_assertion) for stmt in _reachable(fn.body))


def lives_on(old: object, new: object) -> bool:
    """Whether every assertion of the test `old` is in the test `new` as well, names
    aside (the same calls, operators and values: a test moved and renamed with the code
    it tests, `cachetools` `86352aed2b`). A test without assertions lives on nowhere."""
    if not all(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in (old, new)):
        return False
    assert isinstance(old, (ast.FunctionDef, ast.AsyncFunctionDef))
    assert isinstance(new, (ast.FunctionDef, ast.AsyncFunctionDef))
    was, now = _shapes(old), _shapes(new)
    return bool(was) and all(now[shape] >= n for shape, n in was.items())


def _shapes(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Counter[str]:
    """Each assertion of `fn` with every name, dotted or not, blanked out (constants
    kept)."""
    found: Counter[str] = Counter()
    for stmt in _reachable(fn.body):
        for node in ast.walk(stmt):
            if _is_assertion(node):
                found[ast.dump(_Blank().visit(copy.deepcopy(node)))] += 1
    return found


class _Blank(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Name(id="_", ctx=ast.Load())

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.value, ast.Name):  # `lib.half` is a name as `half` is
            return node.value
        return ast.Attribute(value=node.value, attr="_", ctx=ast.Load())

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        self.generic_visit(node)
        return ast.keyword(arg="_", value=node.value)


def _cases(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """How many cases its parametrisations make (their product; 1 without any)."""
    total = 1
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and _mark_name(d) == "parametrize":
            values = d.args[1] if len(d.args) > 1 else None
            values = values or next((k.value for k in d.keywords if k.arg == "argvalues"), None)
            if isinstance(values, (ast.List, ast.Tuple, ast.Set)):
                total *= max(len(values.elts), 1)
    return total


def _decides_collection(node: ast.stmt) -> bool:
    names = _assigned(node)
    if names:
        return bool(names & _COLLECTION_NAMES)
    return any(_is_skip_call(n) for n in ast.walk(node))


def _loads_plugins(node: ast.stmt) -> bool:
    """`pytest_plugins = [...]`: a plugin can pass tests, so one taken away is a change too."""
    return "pytest_plugins" in _assigned(node)


def _assigned(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {_dotted(t) for t in targets}
    return set()


def _rebound(old: list[ast.stmt], added: list[ast.stmt]) -> bool:
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
