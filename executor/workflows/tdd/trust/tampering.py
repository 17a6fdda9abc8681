"""What in the tree decides what passes, besides the code under test: test infrastructure,
code that reaches into the test runner, code git ignores, bytecode without its source,
and the plan (git's own files and the environment are the run's pin: `executor.pinning`).

Infrastructure is judged by what runs the tests, not by file names: `infra_fingerprint`
hashes the runner's settings as parsed and what a named runner reads (`runners_named`:
tox.ini for `tox`, the Makefile of `make test`, ...). Changing it after RED is tampering
unless a person takes it in."""

from __future__ import annotations

import configparser
import hashlib
import json
import os
import re
import shlex
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from executor.engine.layout import HIDDEN_PATTERN
from executor.fsutil import read_regular
from executor.vcs.trees import VOLATILE_DIRS
from executor.workflows.tdd.trust.testfiles import is_test_file

#: Files that change how tests run, whatever the tests say (pytest, jest, vitest, node).
_INFRA_NAMES = frozenset(
    {"conftest.py", "pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml",
     "pyproject.toml", "setup.cfg", "tox.ini", "package.json", "noxfile.py",
     # a module of these names in the repository shadows the runner itself
     "pytest.py", "_pytest.py", "pluggy.py", "sitecustomize.py", "usercustomize.py"}
)  # fmt: skip
_INFRA_PREFIXES = ("jest.config.", "vitest.config.", "vitest.workspace.", ".mocharc")
#: Packages of these names shadow the runner (`pytest/__init__.py` beside the tests).
_INFRA_PACKAGES = ("pytest/", "_pytest/", "pluggy/")
#: What a test command runs besides the tests: the files that define it.
_RUNS_FILES = {
    "make": ("Makefile", "makefile", "GNUmakefile"),
    "npm": ("package.json",),
    "yarn": ("package.json",),
    "pnpm": ("package.json",),
    "tox": ("tox.ini",),
    "nox": ("noxfile.py",),
    "just": ("justfile", "Justfile"),
}


#: What makes pytest skip a whole folder as a virtual environment (`_in_venv`): one in
#: `tests/` hides every test there from the suite.
_VENV_MARKERS = ("pyvenv.cfg", "conda-meta/history")


def is_infra(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (
        name in _INFRA_NAMES
        or any(path == m or path.endswith("/" + m) for m in _VENV_MARKERS)
        or name.startswith(_INFRA_PREFIXES)
        or name.endswith(".pth")
        or any(path.startswith(p) or f"/{p}" in path for p in _INFRA_PACKAGES)
    )


def command_files(root: Path, commands: Iterable[str | None]) -> list[str]:
    """The files the test commands run: a script or file they name (`./scripts/test.sh`,
    `tests/run.py` is a test itself and not counted), and what defines `make`, `npm`,
    `tox`, `nox` or `just` targets."""
    found: set[str] = set()
    for word in _words(commands):
        candidate = word.removeprefix("./")
        named = "/" in candidate or "." in candidate
        if named and (root / candidate).is_file() and not is_test_file(candidate):
            found.add(candidate)
        runs = _RUNS_FILES.get(word.rsplit("/", 1)[-1], ())
        found.update(n for n in runs if (root / n).is_file())
    return sorted(found)


def runners_named(commands: Iterable[str | None]) -> frozenset[str]:
    """The runners the test commands name that read files of their own (`tox`, `nox`,
    `make`, `npm`, ...): what else counts as infrastructure (`infra_fingerprint`)."""
    names = (w.rsplit("/", 1)[-1] for w in _words(commands))  # `.venv/bin/tox` is tox
    return frozenset(n for n in names if n in _RUNS_FILES)


def _words(commands: Iterable[str | None]) -> list[str]:
    out = []
    for command in filter(None, commands):
        try:
            out += shlex.split(command)
        except ValueError:
            out += command.split()
    return out


def infra_fingerprint(
    root: Path,
    files: Iterable[str],
    *,
    stored: Callable[[str], bytes | None] | None = None,
    runners: frozenset[str] = frozenset(),
) -> dict[str, str]:
    """Test infrastructure among `files`: path -> a hash of what configures the tests, as
    what runs them reads it (pytest's settings from pyproject.toml, setup.cfg or tox.ini,
    parsed; package.json's runner keys; any other such file whole; and what the
    `runners` the test commands name read: `runners_named`). `stored`: read each file as
    a commit holds it instead (None: the commit has none, not listed)."""
    out: dict[str, str] = {}
    for f in files:
        path = root / f
        data = read_regular(path) if stored is None else stored(f)
        if data is None and stored is not None:
            continue
        if data is None:
            # gone; or no file (a FIFO is never waited on), which configures nothing
            out[f] = "-" if not os.path.lexists(path) else "special"
            continue
        text = data.decode("utf-8", errors="replace")
        meaning = _settings(f.rsplit("/", 1)[-1], text, runners)
        if meaning is not None:
            out[f] = _digest(meaning.encode())
    return out


def _settings(name: str, text: str, runners: frozenset[str]) -> str | None:
    """What of a config file configures the tests (None: nothing), as canonical text;
    a file its reader cannot parse counts whole (a broken config is a change too)."""
    try:
        if name == "pyproject.toml":
            import tomllib

            tool = tomllib.loads(text).get("tool", {})
            read = {"pytest"} | ({"tox"} & runners)
            picked = {k: tool[k] for k in sorted(read) if k in tool}
            return _canonical(picked) if picked else None
        if name in {"setup.cfg", "tox.ini"}:
            parser = configparser.RawConfigParser(strict=False)
            parser.read_string(text)
            wanted = [s for s in parser.sections() if s in {"tool:pytest", "pytest"}
                      or ("tox" in runners and _tox_section(name, s))]  # fmt: skip
            return _canonical({s: dict(parser.items(s)) for s in wanted}) if wanted else None
        if name == "package.json":
            data = json.loads(text)
            if not isinstance(data, dict):
                return text
            keys = ["jest", "vitest", "mocha", "ava", "c8", "nyc"]
            keys += ["scripts"] if runners & {"npm", "yarn", "pnpm"} else []
            picked = {k: data[k] for k in keys if k in data}
            return _canonical(picked) if picked else None
        if name == "noxfile.py":
            return text if "nox" in runners else None
    except (ValueError, configparser.Error, AttributeError):
        return text
    return text


def _tox_section(name: str, section: str) -> bool:
    """A section tox reads: all of tox.ini; `tox:tox` and `testenv...` of setup.cfg."""
    return name == "tox.ini" or section.startswith(("tox:", "testenv"))


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:20]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def infra_changes(before: dict[str, str], now: dict[str, str]) -> list[str]:
    """Test infrastructure added, changed or removed since `before`, as `path (what)`."""
    out = []
    for path in sorted(p for p in set(before) | set(now) if before.get(p) != now.get(p)):
        if path not in before:
            out.append(f"{path} (added)")
        elif now.get(path, "-") == "-":
            out.append(f"{path} (removed)")
        else:
            out.append(f"{path} (changed)")
    return out


#: What pytest reads in a folder above the repository when the repository has no
#: settings of its own: a settings file there (`rootdir` moves up), then a conftest.py.
_OUTSIDE_NAMES = ("pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml",
                  "pyproject.toml", "tox.ini", "setup.cfg", "conftest.py")  # fmt: skip


def outside_config(root: Path) -> dict[str, str]:
    """pytest's settings files and `conftest.py` in the folders above the repository
    `root`: absolute path -> a hash of the content (absent ones are not listed). The
    executor neither owns nor restores them; a change during a session is tampering."""
    out = {}
    for folder in Path(root).resolve().parents:
        for name in _OUTSIDE_NAMES:
            digest = _peek(folder / name)
            if digest is not None:
                out[str(folder / name)] = digest
    return out


def _peek(path: Path) -> str | None:
    """A hash of a file's content, "special" when it is no regular file (never waited
    on: a FIFO), None when there is nothing there."""
    data = read_regular(path)
    if data is None:
        return "special" if os.path.lexists(path) else None
    return _digest(data)


def plan_paths(plan: Path, repo_root: Path, files: Iterable[str]) -> list[str]:
    """Those of `files` (repo-relative) that belong to the plan named `plan`: for a plan
    file, that file; for a plan folder of its own, everything in it but the executor's
    `.agent-*` files; for plan files kept in the repository's top folder beside the
    code, those files only (PHASE_*.md, PROJECT_PLAN.md, tasks.md), not the code."""
    from executor.plan.formats import is_plan_file_name, plan_target

    target = plan_target(plan)
    try:
        rel = target.relative_to(repo_root.resolve()).as_posix()
    except ValueError:
        return []
    if not target.is_dir():
        return [f for f in files if f == rel]
    if rel == ".":
        return [f for f in files if "/" not in f and is_plan_file_name(f)]
    prefix, hidden = rel + "/", HIDDEN_PATTERN.rstrip("*")
    return [
        f
        for f in files
        if f.startswith(prefix) and not f[len(prefix) :].split("/", 1)[0].startswith(hidden)
    ]


#: Reaching into pytest from Python code: its internals, any of its hooks (by the names
#: of pytest's hook specification; `pytest_generate_tests`, which a test module may
#: define, aside), registering a plugin at run time, or the module table (what a
#: `conftest.py` would do, written somewhere else). A module a test file names in
#: `pytest_plugins` is such a plugin: its `pytest_pyfunc_call` can pass every test.
_RUNNER_INTERNALS = re.compile(
    r"\b_pytest\b|\bTestReport\b|\bhookimpl\b|\bpluginmanager\b"
    r"|\bpytest_(?:addhooks|addoption|assertion_pass|assertrepr_compare|cmdline_\w+|"
    r"collect\w*|configure|deselected|enter_pdb|exception_interact|fixture_\w+|"
    r"ignore_collect|internalerror|itemcollected|keyboard_interrupt|leave_pdb|"
    r"load_initial_conftests|make_collect_report|make_parametrize_id|markeval_namespace|"
    r"plugin_registered|pycollect_\w+|pyfunc_call|report\w*|runtest\w*|session\w*|"
    r"terminal_summary|unconfigure|warning_recorded)\b"
    r"|sys\.modules\s*\[\s*['\"]_?pytest"
)
_IMPORTS_PYTEST = re.compile(r"^\s*(?:import|from)\s+_?pytest\b", re.M)
#: In test infrastructure (a `conftest.py`), where hooks belong, only what decides an
#: outcome: a test function never called (`pytest_pyfunc_call`), a report rewritten
#: (`.outcome =`, `force_result`, `pytest_report_teststatus`), the run loop replaced, or
#: pytest's internals.
_FORGES_OUTCOMES = re.compile(
    r"\b_pytest\b|\bTestReport\b|\bforce_(?:result|exception)\b|\.outcome\s*=(?!=)"
    r"|\bpytest_(?:pyfunc_call|report_teststatus|runtest_call|runtest_protocol|runtestloop|"
    r"cmdline_main|make_collect_report|pycollect_makeitem)\b"
    r"|sys\.modules\s*\[\s*['\"]_?pytest"
)


def runner_hooks(root: Path, files: Iterable[str], *, is_test: Callable[[str], bool]) -> list[str]:
    """Python files among `files` that reach into the test runner: pytest's internals
    or hooks anywhere, or any import of pytest from code that is not a test. Code under
    test runs in the runner's process, so such code can turn failures into passes
    without touching a conftest.py. In test infrastructure (a conftest.py RED may write),
    only hooks and code that decide an outcome (`_FORGES_OUTCOMES`)."""
    found = []
    for f in files:
        if not f.endswith(".py"):
            continue
        data = read_regular(root / f)
        if data is None:
            continue
        if not any(word in data for word in _WORDS):
            continue  # none of the patterns can match: a large module is not searched
        text = data.decode("utf-8", errors="replace")
        if is_infra(f):
            if _FORGES_OUTCOMES.search(text):
                found.append(f)
        elif _RUNNER_INTERNALS.search(text) or (not is_test(f) and _IMPORTS_PYTEST.search(text)):
            found.append(f)
    return found


#: A word each match of `_RUNNER_INTERNALS`, `_IMPORTS_PYTEST` and `_FORGES_OUTCOMES`
#: holds. Searching for them first is a substring scan: the patterns' word-boundary
#: alternatives take milliseconds on a real module of 100 KB, at every sealed run.
_WORDS = (b"pytest", b"TestReport", b"hookimpl", b"pluginmanager", b"force_", b"outcome")


#: Folders of caches and build output that tools write and git is told to ignore.
_IGNORED_DIRS = VOLATILE_DIRS | {".git", "build", "dist"}
_CODE_SUFFIXES = (".py", ".pyc", ".pyo", ".so", ".pyd", ".pth")


def hidden_code(root: Path, before: Iterable[str], now: Iterable[str]) -> list[str]:
    """Python code or test configuration that git newly ignores (`git ls-files --ignored
    --directory` entries, `before` -> `now`): the tests can import it, but it is never
    committed and no diff shows it. Caches, build output, virtual environments and a
    generated `_version.py` aside.
    """
    found = []
    for entry in sorted(set(now) - set(before)):
        parts = entry.rstrip("/").split("/")
        if any(p in _IGNORED_DIRS or p.endswith(".egg-info") for p in parts):
            continue
        path = root / entry
        if entry.endswith("/"):
            if (path / "pyvenv.cfg").exists():
                continue
            inside = (f.name for _, f in zip(range(500), path.rglob("*"), strict=False))
            if any(n.endswith(_CODE_SUFFIXES) or is_infra(n) for n in inside):
                found.append(entry)
        elif parts[-1] == "_version.py":  # written by setuptools-scm and the like
            continue
        elif parts[-1].endswith(_CODE_SUFFIXES) or is_infra(entry):
            found.append(entry)
    return found


def unchecked_pycs(root: Path, files: Iterable[str]) -> list[str]:
    """Bytecode beside the session's changed modules that Python loads without looking at
    the source (hash-based, unchecked: no normal run writes one). Placed in the ignored
    `__pycache__`, it would run in place of the source the commit holds."""
    found = []
    for f in files:
        if not f.endswith(".py"):
            continue
        cache = (root / f).parent / "__pycache__"
        if not cache.is_dir():
            continue
        for pyc in sorted(cache.glob(f"{Path(f).stem}.*.pyc")):
            head = (read_regular(pyc) or b"")[:8]
            flags = int.from_bytes(head[4:8], "little") if len(head) == 8 else 0
            if flags & 0b01 and not flags & 0b10:
                found.append(pyc.relative_to(root).as_posix())
    return found
