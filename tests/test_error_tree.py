"""docs/exit-codes.md draws the exception tree of `executor/errors.py`: every error, its
parent and its exit code, so the page cannot drift from the code."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import executor.errors as errors
from executor.errors import ExecutorError

REPO = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^(?P<indent>[│├└─ ]*)(?P<name>\w+)\s+(?P<code>\d+|-|\*)(\s|$)")


def _drawn() -> dict[str, tuple[str | None, str]]:
    """Each drawn error -> (its parent in the drawing, its code column)."""
    page = (REPO / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    block = page.split("## The error tree", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    drawn: dict[str, tuple[str | None, str]] = {}
    chain: list[str] = []
    for line in block.splitlines():
        row = ROW.match(line)
        assert row, f"cannot read the tree's line {line!r}"
        depth = len(row["indent"]) // 4
        chain[depth:] = [row["name"]]
        drawn[row["name"]] = (chain[depth - 1] if depth else None, row["code"])
    return drawn


def test_the_drawn_tree_is_the_code() -> None:
    drawn = _drawn()
    classes = {
        name: cls
        for name, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, ExecutorError) and cls.__module__ == errors.__name__
    }
    assert set(drawn) == set(classes)
    for name, (parent, code) in drawn.items():
        cls = classes[name]
        bases = [b.__name__ for b in cls.__bases__ if issubclass(b, ExecutorError)]
        assert bases == ([parent] if parent else []), name
        if code.isdigit():
            assert int(cls.exit_code) == int(code), name
