"""What kind of project a folder holds, and the test command it runs.

Looked at in this order (the first that matches wins): a Python project file
(`pyproject.toml`, `setup.py`, `setup.cfg`, `requirements.txt`, `Pipfile`) -> `python -m
pytest`; `go.mod` -> `go test ./...`; `Cargo.toml` -> `cargo test`; `package.json` ->
`npm test` when its `scripts.test` is a real one, else `node --test` (node's own runner:
`npm init` writes a `test` script that only fails). An empty folder is taken for a Python
project. Every answer says why, so the person can correct it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from executor.bounded import parse_json, read_bounded
from executor.errors import DataError

Kind = Literal["python", "node", "go", "rust"]

PYTHON_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile")
#: The most of a package.json read (a real one is a few KB).
MAX_PACKAGE_JSON = 1_000_000
#: What `npm init` writes as the test script: it fails on purpose.
_NPM_PLACEHOLDER = "no test specified"


@dataclass(frozen=True)
class Project:
    """A folder as `init` sees it."""

    kind: Kind
    test_command: str
    #: Why: the file that told (`package.json scripts.test`), for the person to check.
    why: str
    #: The project's name as code names it (`word_count`), from the folder's name.
    name: str


def detect(root: Path) -> Project:
    """The project in `root` (module docstring)."""
    name = code_name(root.absolute().name)
    for marker in PYTHON_FILES:
        if (root / marker).is_file():
            return Project("python", "python -m pytest", marker, name)
    if (root / "go.mod").is_file():
        return Project("go", "go test ./...", "go.mod", name)
    if (root / "Cargo.toml").is_file():
        return Project("rust", "cargo test", "Cargo.toml", name)
    if (root / "package.json").is_file():
        script = _test_script(root / "package.json")
        if script and _NPM_PLACEHOLDER not in script:
            return Project("node", "npm test", "package.json scripts.test", name)
        why = "package.json (no test script of its own: node's built-in test runner)"
        return Project("node", "node --test", why, name)
    return Project("python", "python -m pytest", "no project file found: a Python project", name)


def code_name(text: str) -> str:
    """`text` as a Python package name: lower case, words joined by `_`, not starting
    with a digit (`My App 2` -> `my_app_2`); `app` when nothing is left."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    name = "_".join(words) or "app"
    return f"app_{name}" if name[0].isdigit() else name


def _test_script(package_json: Path) -> str | None:
    """package.json's `scripts.test`, when it can be read and is a string."""
    try:
        data = parse_json(read_bounded(package_json, MAX_PACKAGE_JSON))
    except (OSError, DataError):
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    test = scripts.get("test") if isinstance(scripts, dict) else None
    return test if isinstance(test, str) and test.strip() else None
