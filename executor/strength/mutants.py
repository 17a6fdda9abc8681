"""Mutants of the lines a session changed, made from Python's syntax tree.

Each mutant is one small, plausible bug that people recognise (the operators:
docs/test-strength.md, "How the executor measures it"), made as a splice of the file's
bytes, so it shows as a one-line diff with its `file:line`. Only code that runs when a
function runs is mutated: a mutant is applied by swapping the code of live functions
(`executor.strength.mutation`), so what runs at import or never runs is left alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

_SWAP: dict[type[ast.cmpop], tuple[str, str]] = {
    ast.Lt: ("<=", "boundary"),
    ast.LtE: ("<", "boundary"),
    ast.Gt: (">=", "boundary"),
    ast.GtE: (">", "boundary"),
    ast.Eq: ("!=", "comparison"),
    ast.NotEq: ("==", "comparison"),
    ast.Is: ("is not", "comparison"),
    ast.IsNot: ("is", "comparison"),
    ast.In: ("not in", "comparison"),
    ast.NotIn: ("in", "comparison"),
}
_ARITH: dict[type[ast.operator], str] = {
    ast.Add: "-",
    ast.Sub: "+",
    ast.Mult: "/",
    ast.Div: "*",
    ast.FloorDiv: "*",
    ast.Pow: "*",
}


@dataclass(frozen=True)
class Mutant:
    """One mutant: `replacement` in place of the bytes `start`..`end` of `path`."""

    path: str
    line: int
    start: int
    end: int
    replacement: str
    operator: str
    #: the source line as it is, and as the mutant makes it (stripped)
    before: str
    after: str
    #: what a test would have to check to kill it ("" when nothing more precise than
    #: "a test that fails with it" can be said)
    hint: str
    #: first and last line of the top-level statement holding it (decorators included)
    scope: tuple[int, int]

    @property
    def key(self) -> str:
        return f"{self.path}:{self.line}:{self.start}:{self.operator}"

    def diff(self) -> str:
        """`path:line: \\`before\\` -> \\`after\\``."""
        return f"{self.path}:{self.line}: `{self.before}` -> `{self.after}`"


def mutants_of(path: str, source: bytes, lines: set[int]) -> list[Mutant]:
    """The mutants of `source` (the file `path`) on `lines`; none when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    starts = [0]
    for piece in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(piece))
    maker = _Maker(path, source, starts, lines)
    for body, scope in _scopes(tree):
        for node in body:
            maker.visit_tree(node, scope)
    return sorted(maker.found.values(), key=lambda m: (m.line, m.start, m.operator))


def _scopes(tree: ast.Module) -> Iterator[tuple[list[ast.stmt], tuple[int, int]]]:
    """Each top-level function and each method of a top-level class: its body, and the
    lines of the top-level statement holding it."""
    for stmt in tree.body:
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
        scope = (first, stmt.end_lineno or stmt.lineno)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield _without_docstring(stmt.body), scope
        elif isinstance(stmt, ast.ClassDef):
            for member in stmt.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield _without_docstring(member.body), scope


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    return body[1:] if docstring and isinstance(first.value.value, str) else body  # type: ignore[union-attr]


class _Maker:
    def __init__(self, path: str, source: bytes, starts: list[int], lines: set[int]) -> None:
        self.path, self.source, self.starts, self.lines = path, source, starts, lines
        self.found: dict[tuple[int, int, str], Mutant] = {}

    # -- walking ---------------------------------------------------------------------------
    def visit_tree(self, node: ast.AST, scope: tuple[int, int]) -> None:
        for child in _runtime_nodes(node):
            if getattr(child, "lineno", None) in self.lines:
                self.mutate(child, scope)

    def mutate(self, node: ast.AST, scope: tuple[int, int]) -> None:
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            op, kind = _SWAP[type(node.ops[0])]
            left, right = self.text(node.left), self.text(node.comparators[0])
            hint = f"no test checks {left} == {right}" if kind == "boundary" else ""
            self.add(node, f"{left} {op} {right}", kind, scope, hint=hint, wrap=True)
        elif isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            op = _ARITH[type(node.op)]
            self.add(node, f"{self.text(node.left)} {op} {self.text(node.right)}",
                     "arithmetic", scope, wrap=True)  # fmt: skip
        elif isinstance(node, ast.AugAssign) and type(node.op) in _ARITH:
            op = _ARITH[type(node.op)]
            self.add(node, f"{self.text(node.target)} {op}= {self.text(node.value)}",
                     "arithmetic", scope)  # fmt: skip
        elif isinstance(node, ast.BoolOp):
            joint = " or " if isinstance(node.op, ast.And) else " and "
            self.add(node, joint.join(self.text(v) for v in node.values), "boolean", scope,
                     wrap=True)  # fmt: skip
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.add(node, self.text(node.operand), "boolean", scope, wrap=True)
        elif isinstance(node, (ast.If, ast.While)) and not isinstance(
            node.test, (ast.Compare, ast.BoolOp, ast.UnaryOp)
        ):
            self.add(node.test, f"not {self.text(node.test)}", "boolean", scope, wrap=True)
        elif isinstance(node, ast.Constant):
            self.constant(node, scope)
        elif isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            if not (isinstance(value, ast.Constant) and value.value in (None, True, False)):
                self.add(node, "return None", "return None", scope)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            self.add(node, "None", "removed call", scope)

    def constant(self, node: ast.Constant, scope: tuple[int, int]) -> None:
        value = node.value
        if isinstance(value, bool):
            self.add(node, str(not value), "constant", scope)
        elif isinstance(value, (int, float)):
            self.add(node, repr(value + 1), "constant", scope, wrap=True)

    # -- splicing --------------------------------------------------------------------------
    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col  # ast's columns are UTF-8 byte offsets

    def text(self, node: ast.AST) -> str:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        return self.source[start:end].decode("utf-8")

    def add(
        self,
        node: ast.AST,
        new: str,
        operator: str,
        scope: tuple[int, int],
        *,
        hint: str = "",
        wrap: bool = False,
    ) -> None:
        line, end_line = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
        start = self.offset(line, node.col_offset)  # type: ignore[attr-defined]
        end = self.offset(end_line, node.end_col_offset)  # type: ignore[attr-defined]
        shown = " ".join(new.split())
        # the same number of lines, so every line number after it stays what it was
        breaks = self.source[start:end].count(b"\n") - new.count("\n")
        replacement = (f"({new}{chr(10) * max(breaks, 0)})" if wrap
                       else new + "\n" * max(breaks, 0))  # fmt: skip
        if breaks < 0:
            return
        row = self.source[self.starts[line - 1] : self.starts[line]].decode("utf-8", "replace")
        before = _code_of(row.rstrip("\r\n"))
        col = len(self.source[self.starts[line - 1] : start].decode("utf-8", "replace"))
        tail = "" if end_line != line else before[col + len(self.text(node)) :]
        after = (before[:col] + shown + tail).strip()
        key = (start, end, replacement)
        if after == before.strip() or key in self.found:
            return
        self.found[key] = Mutant(
            path=self.path,
            line=line,
            start=start,
            end=end,
            replacement=replacement,
            operator=operator,
            before=before.strip(),
            after=after,
            hint=hint,
            scope=scope,
        )


def _code_of(line: str) -> str:
    """A source line without its trailing comment (what a one-line diff shows)."""
    import io
    import tokenize

    try:
        for tok in tokenize.generate_tokens(io.StringIO(line).readline):
            if tok.type == tokenize.COMMENT:
                return line[: tok.start[1]].rstrip()
    except (tokenize.TokenError, SyntaxError):  # a line that continues a statement
        pass
    return line


def _runtime_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and what it holds that runs when the function runs: not annotations, nor
    nested definitions' defaults and decorators (run when the nesting function runs: they
    are kept), nor f-strings' pieces."""
    yield node
    for name, value in ast.iter_fields(node):
        if name in {"annotation", "returns", "type_comment"}:
            continue
        if isinstance(node, ast.JoinedStr):
            continue
        children = value if isinstance(value, list) else [value]
        for child in children:
            if isinstance(child, ast.AST):
                yield from _runtime_nodes(child)
