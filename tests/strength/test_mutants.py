"""The mutator: recognisable operators, on the changed lines only, never where a mutant
could not be told apart by running the function (annotations, docstrings, module code)."""

from __future__ import annotations

from executor.strength.mutants import mutants_of

SOURCE = b'''"""A module."""
from __future__ import annotations

LIMIT = 10


def clamp(n: int, items: list[int]) -> int | None:
    """Docstring."""
    if n > LIMIT:
        items.append(n * 2)
    while items and not n:
        n += 1
    if items:
        return None
    return n if n is not None else 0


class Box:
    size = 3

    def fits(self, x: int = 4) -> bool:
        return x <= self.size or False
'''


def test_each_operator_on_the_changed_lines_as_a_one_line_diff() -> None:
    found = {(m.operator, m.diff()) for m in mutants_of("pkg/m.py", SOURCE, set(range(1, 30)))}
    assert ("boundary", "pkg/m.py:9: `if n > LIMIT:` -> `if n >= LIMIT:`") in found
    assert ("removed call", "pkg/m.py:10: `items.append(n * 2)` -> `None`") in found
    assert ("arithmetic", "pkg/m.py:10: `items.append(n * 2)` -> `items.append(n / 2)`") in found
    assert ("constant", "pkg/m.py:10: `items.append(n * 2)` -> `items.append(n * 3)`") in found
    assert ("boolean", "pkg/m.py:11: `while items and not n:` -> `while items or not n:`") in found
    assert ("boolean", "pkg/m.py:11: `while items and not n:` -> `while items and n:`") in found
    assert ("arithmetic", "pkg/m.py:12: `n += 1` -> `n -= 1`") in found
    assert ("boolean", "pkg/m.py:13: `if items:` -> `if not items:`") in found
    assert (
        "return None",
        "pkg/m.py:15: `return n if n is not None else 0` -> `return None`",
    ) in found
    assert ("comparison", "pkg/m.py:15: `return n if n is not None else 0` -> "
            "`return n if n is None else 0`") in found  # fmt: skip
    assert ("boundary", "pkg/m.py:22: `return x <= self.size or False` -> "
            "`return x < self.size or False`") in found  # fmt: skip
    assert ("constant", "pkg/m.py:22: `return x <= self.size or False` -> "
            "`return x <= self.size or True`") in found  # fmt: skip
    hint = next(m.hint for m in mutants_of("pkg/m.py", SOURCE, {9}) if m.operator == "boundary")
    assert hint == "no test checks n == LIMIT"


def test_only_what_runs_in_a_function_and_only_changed_lines() -> None:
    lines = {m.line for m in mutants_of("pkg/m.py", SOURCE, set(range(1, 30)))}
    # module code (LIMIT), a class attribute, annotations, defaults, docstrings: never
    assert lines.isdisjoint({1, 4, 7, 8, 19, 21})
    assert {m.line for m in mutants_of("pkg/m.py", SOURCE, {12})} == {12}
    assert mutants_of("pkg/m.py", SOURCE, set()) == []
    assert mutants_of("pkg/m.py", b"def broken(:\n", {1}) == []


def test_a_splice_keeps_every_line_where_it_was() -> None:
    source = b"def f(a, b):\n    return (a +\n            b)\n\n\ndef g():\n    return 1\n"
    for m in mutants_of("m.py", source, {2}):
        mutated = source[: m.start] + m.replacement.encode() + source[m.end :]
        assert mutated.count(b"\n") == source.count(b"\n")
        compile(mutated, "m.py", "exec")
    assert {m.scope for m in mutants_of("m.py", source, {2, 7})} == {(1, 3), (6, 7)}


def test_a_trailing_comment_is_not_part_of_the_diff() -> None:
    source = b"def f(x):\n    if x > 1:  # more than one\n        return x\n"
    found = [m.diff() for m in mutants_of("m.py", source, {2}) if m.operator == "boundary"]
    assert found == ["m.py:2: `if x > 1:` -> `if x >= 1:`"]
