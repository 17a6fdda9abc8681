"""What nobody gets past unseen: what an agent did to the plan, to the test
infrastructure and to git history during its step, and what a person changed while
the session waited for them.

The tree snapshot (`SessionRecord.tree`: path -> sha256, or "-" for a deleted file) is
taken of every file the session has changed when each work step ends. A later
difference that no step of ours made is someone else's: the person's at a checkpoint,
the agent's during its step.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from executor.engine.layout import HIDDEN_PATTERN

#: Files that change how tests run, whatever the tests say (pytest, jest, vitest, node).
_INFRA_NAMES = frozenset(
    {
        "conftest.py",
        "pytest.ini",
        ".pytest.ini",
        "pytest.toml",
        ".pytest.toml",
        "pyproject.toml",
        "setup.cfg",
        "tox.ini",
        "package.json",
        # a module of these names in the repository shadows the runner itself
        "pytest.py",
        "_pytest.py",
        "pluggy.py",
        "sitecustomize.py",
        "usercustomize.py",
    }
)
_INFRA_PREFIXES = ("jest.config.", "vitest.config.", "vitest.workspace.", ".mocharc")
#: Packages of these names shadow the runner (`pytest/__init__.py` beside the tests).
_INFRA_PACKAGES = ("pytest/", "_pytest/", "pluggy/")
#: The part of a shared config file that configures the test runner.
_SECTIONS = {
    "pyproject.toml": re.compile(r"^\[tool\.pytest[^\]]*\]", re.M),
    "setup.cfg": re.compile(r"^\[tool:pytest\]", re.M),
    "tox.ini": re.compile(r"^\[pytest\]", re.M),
}
_PACKAGE_KEYS = re.compile(r'"(jest|vitest|mocha|ava)"\s*:')


def file_sha(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return "-"
    except OSError:
        return "?"


def snapshot(root: Path, files: Iterable[str]) -> dict[str, str]:
    """path -> sha256 of each file (or "-" when it does not exist)."""
    return {f: file_sha(root / f) for f in sorted(files)}


def differences(before: dict[str, str], now: dict[str, str]) -> list[str]:
    """Paths whose content differs between two snapshots (absent means unchanged from
    the base commit, so a path in one snapshot only is a difference)."""
    return sorted(p for p in set(before) | set(now) if before.get(p) != now.get(p))


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


def is_infra(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (
        name in _INFRA_NAMES
        or name.startswith(_INFRA_PREFIXES)
        or name.endswith(".pth")
        or any(path.startswith(p) or f"/{p}" in path for p in _INFRA_PACKAGES)
    )


def infra_fingerprint(root: Path, files: Iterable[str]) -> dict[str, str]:
    """Test infrastructure among `files`: path -> sha256 of the part that configures
    tests (a whole conftest.py or jest.config.js; only the pytest section of
    pyproject.toml, setup.cfg or tox.ini; only the runner keys of package.json)."""
    out: dict[str, str] = {}
    for f in files:
        if not is_infra(f):
            continue
        path = root / f
        try:
            text = path.read_text("utf-8", errors="replace")
        except FileNotFoundError:
            out[f] = "-"
            continue
        except OSError:
            continue
        name = f.rsplit("/", 1)[-1]
        if name in _SECTIONS:
            text = _section(text, _SECTIONS[name])
            if not text:
                continue
        elif name == "package.json" and not _PACKAGE_KEYS.search(text):
            continue
        out[f] = hashlib.sha256(text.encode()).hexdigest()
    return out


def _section(text: str, header: re.Pattern[str]) -> str:
    """The test-runner sections of an ini/toml file ("" when there is none)."""
    parts: list[str] = []
    for m in header.finditer(text):
        end = re.compile(r"^\[", re.M).search(text, m.end())
        parts.append(text[m.start() : end.start() if end else len(text)])
    return "".join(parts)


#: Reaching into pytest from Python code: its internals, its hook functions, or the
#: module table (what a `conftest.py` would do, written somewhere else).
_RUNNER_INTERNALS = re.compile(
    r"\b_pytest\b|\bTestReport\b|\bpytest_(?:runtest|collect|collection|configure|"
    r"sessionstart|sessionfinish|make_report|report)\w*|sys\.modules\s*\[\s*['\"]_?pytest"
)
_IMPORTS_PYTEST = re.compile(r"^\s*(?:import|from)\s+_?pytest\b", re.M)


def runner_hooks(root: Path, files: Iterable[str], *, is_test: Callable[[str], bool]) -> list[str]:
    """Python files among `files` that reach into the test runner: pytest's internals
    or hooks anywhere, or any import of pytest from code that is not a test. Code under
    test runs in the runner's process, so such code can turn failures into passes
    without touching a conftest.py."""
    found = []
    for f in files:
        if not f.endswith(".py") or is_infra(f):
            continue
        try:
            text = (root / f).read_text("utf-8", errors="replace")
        except OSError:
            continue
        if _RUNNER_INTERNALS.search(text) or (not is_test(f) and _IMPORTS_PYTEST.search(text)):
            found.append(f)
    return found


def infra_changes(before: dict[str, str], now: dict[str, str]) -> list[str]:
    """Test infrastructure added, changed or removed since `before`, as `path (what)`."""
    out = []
    for path in differences(before, now):
        if path not in before:
            out.append(f"{path} (added)")
        elif now.get(path, "-") == "-":
            out.append(f"{path} (removed)")
        else:
            out.append(f"{path} (changed)")
    return out


def describe(paths: Sequence[str], limit: int = 10) -> str:
    shown = ", ".join(paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def git_controls_changed(git_dir: Path, since: float) -> list[str]:
    """git's own files that decide what git runs or shows (`config`, `info/attributes`
    with its filters, `info/exclude`, `hooks/*` but the shipped `.sample`s) modified after
    `since` (a POSIX time), as `.git/...` paths.

    They are outside the worktree, so no diff shows them; the executor's own git writes
    run no hooks, but the person's next `git commit` would.
    """
    common = git_dir / "commondir"  # a linked worktree: hooks and config are shared
    if common.is_file():
        git_dir = (git_dir / common.read_text("utf-8").strip()).resolve()
    found = []
    hooks = git_dir / "hooks"
    candidates = [git_dir / "config", git_dir / "info" / "attributes", git_dir / "info" / "exclude"]
    if hooks.is_dir():
        candidates += sorted(p for p in hooks.iterdir() if not p.name.endswith(".sample"))
    for path in candidates:
        try:
            if path.stat().st_mtime > since:
                found.append(".git/" + path.relative_to(git_dir).as_posix())
        except OSError:
            continue
    return found


#: Folders of caches and build output that tools write and git is told to ignore.
_CACHE_DIRS = frozenset(
    {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".tox",
     ".nox", "htmlcov", ".cache", ".eggs", "node_modules", ".git", "build", "dist"}
)  # fmt: skip
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
        if any(p in _CACHE_DIRS or p.endswith(".egg-info") for p in parts):
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


def links_outside(root: Path, files: Iterable[str]) -> list[str]:
    """Those of `files` that are symbolic links to somewhere outside the repository: the
    tests read what they point to, the commit holds only a link a clone cannot follow."""
    top = root.resolve()
    found = []
    for f in files:
        path = root / f
        if path.is_symlink() and not path.resolve().is_relative_to(top):
            found.append(f)
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
            try:
                with pyc.open("rb") as fh:
                    head = fh.read(8)
            except OSError:
                continue
            flags = int.from_bytes(head[4:8], "little") if len(head) == 8 else 0
            if flags & 0b01 and not flags & 0b10:
                found.append(pyc.relative_to(root).as_posix())
    return found
