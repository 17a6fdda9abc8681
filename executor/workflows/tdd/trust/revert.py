"""A session's change to the code, one definition at a time, and the code with some of
those changes undone: how `executor.workflows.tdd.session.checks.losses` finds which change makes an
earlier test fail.

A unit of change is a statement of a Python module that differs between the two
versions: a function or a class by its name, an assignment or an import by the names it
binds, any other statement by its syntax; inside a class whose head (decorators, bases)
is unchanged, each statement of its body. A file that is not Python, does not parse, or
is added or removed whole is one unit. Formatting and comments are no change (syntax
trees are compared). `undo` rebuilds a module from its syntax tree with the chosen
units as they were (`ast.unparse`: comments and layout go, meaning stays).
"""

from __future__ import annotations

import ast
import copy
import hashlib
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

Kind = Literal["changed", "added", "removed"]


@dataclass(frozen=True)
class Unit:
    """One change: `name` is "" for a whole file, else `name` or `Class.name`."""

    path: str
    name: str
    kind: Kind

    def label(self) -> str:
        return f"{self.path}: {self.name}" if self.name else self.path

    @property
    def short(self) -> str:
        """The name a plan would give it (`method` of `Class.method`)."""
        return self.name.rsplit(".", 1)[-1]


def units(path: str, before: bytes | None, after: bytes | None) -> list[Unit]:
    """The units in which `after` differs from `before` (None: the file is absent)."""
    if before == after:
        return []
    if before is None or after is None:
        return [Unit(path, "", "added" if before is None else "removed")]
    old, new = _parse(path, before), _parse(path, after)
    if old is None or new is None:
        return [Unit(path, "", "changed")]
    return [Unit(path, name, kind) for name, kind in _diff(old.body, new.body, "")]


def undo(
    path: str, before: bytes | None, after: bytes | None, chosen: Collection[Unit]
) -> bytes | None:
    """The file as `after` holds it with the `chosen` units (of this file) as `before` held
    them; None: the file is absent."""
    mine = {u for u in chosen if u.path == path}
    if not mine:
        return after
    if any(not u.name for u in mine):
        return before
    old, new = _parse(path, before or b""), _parse(path, after or b"")
    assert old is not None and new is not None, "units of a module that does not parse"
    body = _merge(old.body, new.body, "", {u.name for u in mine})
    return ast.unparse(ast.fix_missing_locations(ast.Module(body, []))).encode() + b"\n"


def _parse(path: str, data: bytes) -> ast.Module | None:
    if not path.endswith(".py"):
        return None
    try:
        return ast.parse(data)
    except (SyntaxError, ValueError):
        return None


def _key(node: ast.stmt) -> str:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return "import " + ", ".join(a.asname or a.name for a in node.names)
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = [ast.unparse(t) for t in targets]
        if all(n.replace(".", "").replace("_", "").isalnum() for n in names):
            return " = ".join(names)
    return "<" + hashlib.sha256(ast.dump(node).encode()).hexdigest()[:10] + ">"


def _keyed(body: list[ast.stmt]) -> list[tuple[str, ast.stmt]]:
    """Each statement with its key; a key seen again gets `#2`, `#3` (a name bound twice)."""
    seen: Counter[str] = Counter()
    out = []
    for node in body:
        key = _key(node)
        seen[key] += 1
        out.append((key if seen[key] == 1 else f"{key}#{seen[key]}", node))
    return out


def _head(node: ast.ClassDef) -> str:
    return "".join(map(ast.dump, [*node.decorator_list, *node.bases, *node.keywords]))


def _same_class(a: ast.stmt | None, b: ast.stmt | None) -> bool:
    return isinstance(a, ast.ClassDef) and isinstance(b, ast.ClassDef) and _head(a) == _head(b)


def _diff(old: list[ast.stmt], new: list[ast.stmt], prefix: str) -> list[tuple[str, Kind]]:
    before, now = dict(_keyed(old)), _keyed(new)
    found: list[tuple[str, Kind]] = []
    for key, node in now:
        was = before.get(key)
        if was is None:
            found.append((prefix + key, "added"))
        elif _same_class(was, node):
            assert isinstance(was, ast.ClassDef) and isinstance(node, ast.ClassDef)
            found += _diff(was.body, node.body, f"{prefix}{key}.")
        elif ast.dump(was) != ast.dump(node):
            found.append((prefix + key, "changed"))
    keys = {k for k, _ in now}
    found += [(prefix + k, "removed") for k in before if k not in keys]
    return found


def _merge(
    old: list[ast.stmt], new: list[ast.stmt], prefix: str, names: set[str]
) -> list[ast.stmt]:
    """`new` with the statements `names` holds as `old` has them (a removed one back after
    the statement it followed)."""
    was, now = _keyed(old), _keyed(new)
    before = dict(was)
    out: list[tuple[str, ast.stmt]] = []
    for key, node in now:
        name = prefix + key
        if name in names:
            if key in before:
                out.append((key, before[key]))
            continue  # added: taken out
        other = before.get(key)
        if _same_class(other, node) and any(n.startswith(name + ".") for n in names):
            assert isinstance(other, ast.ClassDef) and isinstance(node, ast.ClassDef)
            node = copy.copy(node)
            node.body = _merge(other.body, node.body, name + ".", names) or [ast.Pass()]
        out.append((key, node))
    present = {k for k, _ in now}
    for i, (key, node) in enumerate(was):
        if prefix + key not in names or key in present:
            continue
        at = 0
        for earlier, _ in reversed(was[:i]):
            spots = [j for j, (k, _) in enumerate(out) if k == earlier]
            if spots:
                at = spots[0] + 1
                break
        if at == 0 and not _preamble(node):  # after a docstring and `__future__` imports
            at = next((j for j, (_, n) in enumerate(out) if not _preamble(n)), len(out))
        out.insert(at, (key, node))
    return [n for _, n in out]


def _preamble(node: ast.stmt) -> bool:
    """What must stay first: a docstring, `from __future__ import ...`."""
    if isinstance(node, ast.ImportFrom):
        return node.module == "__future__"
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
