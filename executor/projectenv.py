"""The project's own environment: which interpreter and tools a session's tests run with
(P27).

Tests run with what the person's shell at the repository root would use, never the
executor's own environment by accident (installed with pipx or uv tool, it lives in a
venv with none of the project's dependencies). The order it is looked for in, and how
the run pins it (`executor.pinning`): docs/engine.md, "What is verified, by the
executor itself". An environment a tool has not made yet is named, never made here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from executor.errors import ProjectEnvError

#: How long a tool that names its environment may take (poetry, hatch start slowly).
_TOOL_SECONDS = 30
_PROBE = (
    "import importlib.util as u, json, os, site, sys, sysconfig\n"
    "paths = {sysconfig.get_path('purelib'), sysconfig.get_path('platlib')}\n"
    "try:\n    paths.add(site.getusersitepackages())\nexcept Exception:\n    pass\n"
    "std = tuple(os.path.join(sysconfig.get_path(k), '') for k in ('stdlib', 'platstdlib'))\n"
    "extra = sys.argv[1:]\n"
    "found = [p for p in sorted(paths) + sys.path + extra if p and os.path.isdir(p)"
    " and (p in paths or not os.path.join(p, '').startswith(std))]\n"
    "points = {}\n"
    "try:\n"
    "    from importlib.metadata import distributions\n"
    "    for d in distributions(path=sys.path + extra):\n"
    "        for e in d.entry_points.select(group='pytest11'):\n"
    "            points.setdefault(e.name, d.metadata['Name'] or '?')\n"
    "except Exception:\n    points = None\n"
    "print(json.dumps({'prefix': sys.prefix, 'version': sys.version.split()[0],"
    " 'executable': sys.executable,"
    " 'site': sorted(p for p in paths if p), 'paths': list(dict.fromkeys(found)),"
    " 'points': points,"
    " 'pytest': u.find_spec('pytest') is not None,"
    " 'pytest_cov': u.find_spec('pytest_cov') is not None}))\n"
)


@dataclass(frozen=True)
class Interpreter:
    """The project's Python environment, as found (`find`) and probed (`probe`)."""

    python: str
    #: How it was found, in the person's words ("the repository's .venv").
    source: str
    #: The environment's folder (a venv's or conda's prefix), None for PATH's python3.
    prefix: str | None = None
    #: The pytest plugins a test run loads, by entry point name, with pytest's autoload
    #: off (`executor.testrun`): those there when the run was pinned. None: as pytest
    #: finds them itself.
    plugins: tuple[str, ...] | None = None

    @property
    def bin(self) -> str | None:
        return str(Path(self.prefix) / "bin") if self.prefix else None

    def describe(self) -> str:
        return f"{self.python} ({self.source})"

    def environ(self, base: Mapping[str, str]) -> dict[str, str]:
        """`base` with this environment first on PATH and named by VIRTUAL_ENV."""
        env = dict(base)
        if self.prefix is None:
            return env
        path = [p for p in env.get("PATH", os.defpath).split(os.pathsep) if p != self.bin]
        env["PATH"] = os.pathsep.join([str(self.bin), *path])
        env["VIRTUAL_ENV"] = self.prefix
        env.pop("PYTHONHOME", None)
        return env


@dataclass(frozen=True)
class Probe:
    """What the interpreter says of itself (one process, when a session starts)."""

    version: str
    site: tuple[str, ...]
    has_pytest: bool
    has_pytest_cov: bool
    #: What a test run's imports can reach besides the standard library: the site folders,
    #: what `.pth` files add, PYTHONPATH and the repository's root (`python -m pytest`).
    paths: tuple[str, ...] = ()
    #: The binary that runs (`python` may be a link or a script that runs it).
    executable: str = ""
    #: The pytest plugins registered by entry point (`pytest11`) there: name -> the
    #: distribution that registers it; None when they could not be listed.
    entry_points: dict[str, str] | None = None


def find(root: Path, environ: Mapping[str, str] | None = None) -> Interpreter:
    """The environment the person's shell at `root` would run the tests with (module
    docstring). Raises ProjectEnvError when the project declares an environment that does not
    exist yet, or no python3 is found at all."""
    env = os.environ if environ is None else environ
    for var, label in (("VIRTUAL_ENV", "the active virtual environment"),
                       ("CONDA_PREFIX", "the active conda environment")):  # fmt: skip
        prefix = env.get(var)
        python = _python_in(Path(prefix)) if prefix else None
        if prefix is None or python is None:
            continue
        if not _is_own(prefix):
            return Interpreter(str(python), f"{label}, ${var}", prefix)
        # the executor's own (its README activates it): the project's comes first
        own = _projects(root, env)
        if own is not None:
            why = f"; the active environment, ${var}, is the executor's own"
            return Interpreter(own.python, own.source + why, own.prefix)
        return Interpreter(str(python), f"{label}, ${var}, which is the executor's own: the "
                           f"repository has none of its own", prefix)  # fmt: skip
    own = _projects(root, env)
    if own is not None:
        return own
    found = shutil.which("python3", path=env.get("PATH")) or shutil.which(
        "python", path=env.get("PATH")
    )
    if found:
        return Interpreter(found, "python3 on PATH")
    return Interpreter(sys.executable, "the executor's own Python: no other was found")


def _projects(root: Path, env: Mapping[str, str]) -> Interpreter | None:
    """The repository's own environment: its `.venv` (or `venv`), else the one its project
    tool declares; None when it has none."""
    for top in _checkouts(root):
        for name in (".venv", "venv"):
            folder = top / name
            if (folder / "pyvenv.cfg").is_file() and _python_in(folder):
                return Interpreter(str(_python_in(folder)), f"the repository's {name}", str(folder))
    return _declared(root, env)


def _is_own(prefix: str) -> bool:
    """Whether `prefix` is the environment the executor itself runs from."""
    return os.path.realpath(prefix) == os.path.realpath(sys.prefix)


def _checkouts(root: Path) -> list[Path]:
    """`root`, and for a linked worktree (a session's lane) the main checkout too, where
    the project's `.venv` lives (`.git` is then a file: `gitdir: <main>/.git/worktrees/N`)."""
    try:
        line = (root / ".git").read_text("utf-8").strip() if (root / ".git").is_file() else ""
    except OSError:
        line = ""
    if not line.startswith("gitdir:"):
        return [root]
    linked = Path(line.removeprefix("gitdir:").strip())
    linked = linked if linked.is_absolute() else root / linked
    main = linked.parent.parent.parent if linked.parent.name == "worktrees" else None
    return [root, main] if main is not None else [root]


def _python_in(prefix: Path) -> Path | None:
    for name in ("bin/python", "bin/python3", "Scripts/python.exe"):
        if (prefix / name).exists():
            return prefix / name
    return None


def _declared(root: Path, env: Mapping[str, str]) -> Interpreter | None:
    """The environment a project tool manages, when the project uses one."""
    if (root / "uv.lock").is_file():
        named = env.get("UV_PROJECT_ENVIRONMENT")
        folder = Path(named) if named else root / ".venv"
        folder = folder if folder.is_absolute() else root / folder
        return _made(folder, "uv's project environment (uv.lock)", "uv sync")
    if (root / "poetry.lock").is_file():
        out = _ask_tool(["poetry", "env", "info", "--path"], root, env)
        if out:
            return _made(Path(out), "poetry's environment (poetry.lock)", "poetry install")
        raise _not_made("poetry's environment (poetry.lock)", "poetry install", root)
    if (root / "pdm.lock").is_file():
        return _made(root / ".venv", "pdm's environment (pdm.lock)", "pdm install")
    if _uses_hatch(root):
        out = _ask_tool(["hatch", "env", "find", "default"], root, env)
        if out:
            return _made(Path(out), "hatch's default environment", "hatch env create")
    return None


def _made(folder: Path, label: str, make: str) -> Interpreter:
    python = _python_in(folder)
    if python is None:
        raise _not_made(label, make, folder)
    return Interpreter(str(python), label, str(folder))


def _not_made(label: str, make: str, where: Path) -> ProjectEnvError:
    return ProjectEnvError(
        f"the tests run in {label}, which is not made yet ({where}): run `{make}` in the "
        f"repository first (the executor installs nothing). Or activate another environment "
        f"and run the command again."
    )


def _ask_tool(argv: list[str], root: Path, env: Mapping[str, str]) -> str:
    """One line a project tool prints ("" when it is not installed or says nothing)."""
    if not shutil.which(argv[0], path=env.get("PATH")):
        return ""
    try:
        proc = subprocess.run(argv, cwd=root, env=dict(env), capture_output=True, text=True,
                              timeout=_TOOL_SECONDS, stdin=subprocess.DEVNULL)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = [ln.strip() for ln in proc.stdout.splitlines() if ln.strip()]
    return lines[-1] if proc.returncode == 0 and lines else ""


def _uses_hatch(root: Path) -> bool:
    if (root / "hatch.toml").is_file():
        return True
    try:
        text = (root / "pyproject.toml").read_text("utf-8", errors="replace")
    except OSError:
        return False
    return "[tool.hatch.envs" in text


def probe(
    interpreter: Interpreter, environ: Mapping[str, str] | None = None, root: Path | None = None
) -> Probe:
    """Ask the interpreter where its packages are and whether it has pytest; with the
    repository `root`, also what a test run there imports from (`Probe.paths`)."""
    env = interpreter.environ(os.environ if environ is None else environ)
    extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    extra += [str(root)] if root is not None else []
    try:
        proc = subprocess.run([interpreter.python, "-I", "-c", _PROBE, *extra], env=env,
                              capture_output=True, text=True, timeout=_TOOL_SECONDS,
                              stdin=subprocess.DEVNULL)  # fmt: skip
        data = json.loads(proc.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        raise ProjectEnvError(
            f"cannot run the project's Python {interpreter.describe()}: it did not start "
            f"or said nothing readable. Activate a working environment and run again."
        ) from None
    points = data.get("points")
    return Probe(
        version=str(data.get("version", "")),
        site=tuple(str(p) for p in data.get("site", [])),
        has_pytest=bool(data.get("pytest")),
        has_pytest_cov=bool(data.get("pytest_cov")),
        paths=tuple(str(p) for p in data.get("paths", [])),
        executable=str(data.get("executable", "")),
        entry_points=None
        if not isinstance(points, dict)
        else {str(k): str(v) for k, v in points.items()},
    )
