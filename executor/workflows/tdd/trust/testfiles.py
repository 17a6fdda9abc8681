"""Which paths are tests: the judges and the record both ask."""

from __future__ import annotations

import re


def is_test_file(path: str) -> bool:
    """A test by the conventions of the runners the executor reads: pytest's
    `test_*.py` / `*_test.py`, JavaScript's `*.test.js` / `*.spec.ts` (any of js, jsx,
    ts, tsx, mjs, cjs, mts, cts) and `__tests__/`, and anything in a top `tests/` or
    `test/` folder or a `tests/` folder deeper down."""
    name = path.rsplit("/", 1)[-1]
    return (
        (name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")))
        or _JS_TEST.search(name) is not None
        or "/tests/" in f"/{path}"
        or "/__tests__/" in f"/{path}"
        or path.startswith(("tests/", "test/"))
    )


_JS_TEST = re.compile(r"\.(?:test|spec)\.[cm]?[jt]sx?$")
