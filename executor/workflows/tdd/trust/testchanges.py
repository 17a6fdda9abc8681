"""How a test changed, judged by what changed and not by the fact of a change (P25, P26).

A change is added, neutral or stronger, or a weakening named in `WHY`; docs/engine.md
("What counts as weakening") gives an example of each. Python test files are compared
definition by definition (keys `file::test`, `file::Class::test`, `file::Class`,
`file::<module>`), other test files as text."""

from __future__ import annotations

import ast
import copy
import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from executor.workflows.tdd.trust import testsyntax as syn

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
        elif syn.count(new, syn.is_skip_call) > syn.count(old, syn.is_skip_call):
            j.always.append("runtime-skip")
        return
    if after_red and failed:
        j.always.append("changed-after-red")
    added = syn.marks(new) - syn.marks(old)
    if any(syn.weakening_mark(m) for m in added):
        j.always.append("skip")
    if syn.count(new, syn.is_skip_call) > syn.count(old, syn.is_skip_call):
        j.always.append("runtime-skip")
    if syn.trivial(new) and not syn.trivial(old):
        j.always.append("emptied")
    elif syn.assertions(new) < syn.assertions(old):
        (j.always if after_red else j.unless_failing).append("fewer-assertions")
    if syn.cases(new) < syn.cases(old):
        (j.always if after_red else j.unless_failing).append("fewer-cases")


def _judge_class_head(j: Judged, old: ast.ClassDef, new: ast.ClassDef) -> None:
    added = {ast.dump(d) for d in new.decorator_list} - {ast.dump(d) for d in old.decorator_list}
    if any(
        syn.weakening_mark(syn.mark_name(d)) for d in new.decorator_list if ast.dump(d) in added
    ):
        j.always.append("skip")
    lost = {syn.dotted(b) for b in old.bases} - {syn.dotted(b) for b in new.bases} - {"object"}
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
    if any(syn.decides_collection(n) for n in added) or any(syn.loads_plugins(n) for n in removed):
        j.always.append("collection")
    if syn.rebound(old, added):
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
    for stmt in syn.reachable(fn.body):
        for node in ast.walk(stmt):
            if syn.is_assertion(node):
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
