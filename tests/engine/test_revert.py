"""A session's change to the code one definition at a time, and some of it undone
(executor.workflows.tdd.trust.revert): what `losses` undoes to find which change breaks an
earlier test."""

from __future__ import annotations

import runpy
from pathlib import Path

from executor.workflows.tdd.trust.revert import Unit, undo, units

BEFORE = b'''"""The module."""
from __future__ import annotations

import re

LIMIT = 3


def add(a, b):
    return a + b


def sub(a, b):
    return a - b


class Builder:
    MARKER = re.compile(r"\\*\\s*,")

    def build(self):
        return "old"
'''

AFTER = b'''"""The module."""
from __future__ import annotations

LIMIT = 3


def add(a, b):
    # a comment and new layout change nothing
    return (a
            + b)


def sub(a, b):
    return a + b


def mul(a, b):
    return a * b


class Builder:
    def build(self):
        return "new"
'''


def test_the_units_of_a_change_are_its_definitions() -> None:
    assert units("lib.py", BEFORE, AFTER) == [
        Unit("lib.py", "sub", "changed"),
        Unit("lib.py", "mul", "added"),
        Unit("lib.py", "Builder.build", "changed"),
        Unit("lib.py", "Builder.MARKER", "removed"),
        Unit("lib.py", "import re", "removed"),
    ]


def test_files_that_are_not_python_or_whole_are_one_unit() -> None:
    assert units("data.json", b"{}", b"[]") == [Unit("data.json", "", "changed")]
    assert units("new.py", None, b"x = 1\n") == [Unit("new.py", "", "added")]
    assert units("lib.py", b"def f(:\n", b"x = 1\n") == [Unit("lib.py", "", "changed")]
    assert units("lib.py", b"x = 1  # a\n", b"x = 1  # b\n") == []


def test_undoing_some_units_keeps_the_others(tmp_path: Path) -> None:
    chosen = [Unit("lib.py", "sub", "changed"), Unit("lib.py", "Builder.MARKER", "removed"),
              Unit("lib.py", "import re", "removed")]  # fmt: skip
    module = tmp_path / "lib.py"
    written = undo("lib.py", BEFORE, AFTER, chosen)
    assert written is not None
    module.write_bytes(written)
    lib = runpy.run_path(str(module))
    assert lib["sub"](5, 3) == 2  # as it was
    assert lib["mul"](2, 3) == 6 and lib["Builder"]().build() == "new"  # as it is
    assert lib["Builder"].MARKER.search("a, *, b")  # back, with the import it needs
    assert lib["__doc__"] == "The module."


def test_undoing_every_unit_gives_the_earlier_meaning(tmp_path: Path) -> None:
    module = tmp_path / "lib.py"
    written = undo("lib.py", BEFORE, AFTER, units("lib.py", BEFORE, AFTER))
    assert written is not None
    module.write_bytes(written)
    lib = runpy.run_path(str(module))
    assert "mul" not in lib and lib["sub"](5, 3) == 2 and lib["Builder"]().build() == "old"


def test_a_whole_file_is_undone_whole() -> None:
    assert undo("new.py", None, b"x = 1\n", [Unit("new.py", "", "added")]) is None
    assert undo("old.py", b"x = 1\n", None, [Unit("old.py", "", "removed")]) == b"x = 1\n"
    assert undo("lib.py", BEFORE, AFTER, [Unit("other.py", "f", "changed")]) == AFTER
