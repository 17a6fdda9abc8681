"""What kind of project a folder holds, and the test command it runs.

Looked at in this order (the first that matches wins): a Python project file
(`pyproject.toml`, `setup.py`, `setup.cfg`, `requirements.txt`, `Pipfile`) -> `python -m
pytest`; `go.mod` -> `go test ./...`; `Cargo.toml` -> `cargo test`; `package.json` ->
the runner its `scripts.test` runs, called directly (`node --test`, `npx vitest`, `npx
jest`: their reports count the tests), or `npm test` for any other real script (judged by
its exit code alone, as is a script with a `pretest` or `posttest` that npm runs around
it), else `node --test` (node's own runner: `npm init` writes a `test` script that only
fails). An empty folder is taken for a Python project. Every answer says why, so the
person can correct it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from executor.errors import DataError
from executor.safe_read import parse_json, read_bounded

Kind = Literal["python", "node", "go", "rust"]

PYTHON_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile")
#: The most of a package.json read (a real one is a few KB).
MAX_PACKAGE_JSON = 1_000_000
#: What `npm init` writes as the test script: it fails on purpose.
_NPM_PLACEHOLDER = "no test specified"
#: Folders with an `__init__.py` that are not the project's package.
_NOT_PACKAGES = {"tests", "test", "testing", "docs", "doc", "examples", "scripts", "benchmarks"}
#: Shell words that make a script more than one command.
_SHELL = {"&&", "||", ";", "|", "&", ">", ">>", "<", "2>&1"}


@dataclass(frozen=True)
class Project:
    """A folder as `init` sees it."""

    kind: Kind
    test_command: str
    #: Why: the file that told (`package.json scripts.test`), for the person to check.
    why: str
    #: The project's name as code names it (`word_count`), from the folder's name.
    name: str
    #: The project's own Python package when it has one (`roman_numerals`,
    #: `src/roman_numerals`): the starter plan's code goes in it, not beside it.
    package: str | None = None


def detect(root: Path) -> Project:
    """The project in `root` (module docstring)."""
    name = code_name(root.absolute().name)
    for marker in PYTHON_FILES:
        if (root / marker).is_file():
            package = python_package(root, name)
            return Project("python", "python -m pytest", marker, name, package)
    if (root / "go.mod").is_file():
        return Project("go", "go test ./...", "go.mod", name)
    if (root / "Cargo.toml").is_file():
        return Project("rust", "cargo test", "Cargo.toml", name)
    if (root / "package.json").is_file():
        scripts = _scripts(root / "package.json")
        script = scripts.get("test")
        if script and _NPM_PLACEHOLDER not in script:
            around = "pretest" in scripts or "posttest" in scripts  # only `npm test` runs them
            runner = None if around else runner_command(script)
            if runner is not None:  # run directly, so the runner's report counts the tests
                why = f"package.json scripts.test runs {script!r}, run directly to be counted"
                return Project("node", runner, why, name)
            why = f"package.json scripts.test ({script!r}: its tests are not counted)"
            return Project("node", "npm test", why, name)
        why = "package.json (no test script of its own: node's built-in test runner)"
        return Project("node", "node --test", why, name)
    return Project("python", "python -m pytest", "no project file found: a Python project", name)


def runner_command(script: str) -> str | None:
    """The command that runs an npm test script's runner itself, when the script is one
    runner the executor reads reports from (`node --test ...`, `vitest ...`, `jest ...`:
    `npm test` hides the runner, so its tests would be judged by the exit code alone);
    None for anything else (several commands, variables, another runner)."""
    argv = _words(script)
    if not argv or any(t in _SHELL for t in argv) or "=" in argv[0] or "$" in script:
        return None
    if argv[0] == "vitest" and (len(argv) == 1 or argv[1].startswith("-")):
        argv.insert(1, "run")  # once, not in watch mode (what a plan's command shows too)
    if argv[0] in ("vitest", "jest"):  # npm puts node_modules/.bin on PATH; npx does too
        argv = ["npx", *argv]
    command = shlex.join(argv)
    return command if counted(command) else None


def counted(command: str) -> bool:
    """Whether a run of `command` is counted from its runner's report (pytest, node
    --test, vitest, jest: `executor.testreports`), not judged by its exit code alone."""
    from executor.testreports import prepare

    argv = _words(command)
    return bool(argv) and prepare(argv, Path("report")) is not None


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return []


def python_package(root: Path, name: str) -> str | None:
    """The project's own package: the one folder under `src/` or the root holding an
    `__init__.py` (tests, docs and the like aside), or of several the one named like the
    project; None when there is none or it cannot be told."""
    found: list[str] = []
    for base in (root / "src", root):
        try:
            folders = sorted(p for p in base.iterdir() if p.is_dir())
        except OSError:
            continue
        for folder in folders:
            if (
                folder.name.isidentifier()
                and not folder.name.startswith("_")
                and folder.name not in _NOT_PACKAGES
                and (folder / "__init__.py").is_file()
            ):
                found.append(folder.relative_to(root).as_posix())
    if len(found) == 1:
        return found[0]
    named = [f for f in found if f.rsplit("/", 1)[-1] == name]
    return named[0] if len(named) == 1 else None


def code_name(text: str) -> str:
    """`text` as a Python package name: lower case, words joined by `_`, not starting
    with a digit (`My App 2` -> `my_app_2`); `app` when nothing is left."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    name = "_".join(words) or "app"
    return f"app_{name}" if name[0].isdigit() else name


def _scripts(package_json: Path) -> dict[str, str]:
    """package.json's `scripts` that are non-empty strings (none when it cannot be read)."""
    try:
        data = parse_json(read_bounded(package_json, MAX_PACKAGE_JSON))
    except (OSError, DataError):
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return {}
    return {k: v for k, v in scripts.items() if isinstance(v, str) and v.strip()}
