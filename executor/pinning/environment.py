"""What of the project's environment a test run loads, as the folders and files to pin.

A test run loads far more than the tests: the interpreter, `pyvenv.cfg`, every module its
imports reach besides the standard library, the pytest plugins any distribution there
registers, and what decides which environment is found at all (`executor.projectenv.find`);
a JavaScript project's `node_modules` holds its runner. All of it is pinned as folders
(`stats.walk`; the list is in docs/reliability.md, "What the run pins"). Inside the
repository only what git ignores and the tests load unseen is pinned, not the code the
session is meant to change.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: In a folder on the import path inside the repository: what registers plugins there.
_METADATA = (".egg-info", ".dist-info", ".egg-link", ".pth")
#: At a checkout's root: what decides which environment the tests run in.
_FINDS = (
    ".venv/pyvenv.cfg", ".venv/bin/python", "venv/pyvenv.cfg", "venv/bin/python",
    "uv.lock", "poetry.lock", "pdm.lock", "hatch.toml", ".python-version",
)  # fmt: skip
#: A root walked for its metadata entries only (`roots` says which).
TOP = "top:"
#: A root walked for what `import` can reach in it and its metadata.
MODULES = "modules:"
_CODE = (".py", ".pyc", ".so", ".pyd")


def roots(
    binaries: Iterable[str],
    prefix: str | None,
    site: Iterable[str],
    paths: Iterable[str],
    checkouts: Iterable[Path],
    *,
    python_project: bool = True,
) -> list[str]:
    """What to pin for the environment of the interpreter (`binaries`: `python` as found,
    and the binary that runs; found with `prefix`; its `site` folders and import `paths`
    as probed) and the
    repository's `checkouts` (its root, and for a lane the person's checkout too).
    `python_project` False (a JavaScript project): the interpreter and its folders are
    left out; `node_modules` and what finds an environment stay in."""
    tops = [os.path.realpath(c) for c in checkouts]
    out: list[str] = []
    for top in tops:
        out += [os.path.join(top, name) for name in _FINDS]
        out.append(os.path.join(top, "node_modules"))
    if not python_project:
        return list(dict.fromkeys(out))
    for binary in filter(None, binaries):
        out += [binary, os.path.realpath(binary)]
    home = os.path.realpath(prefix) if prefix else None
    if home is not None:
        out += [os.path.join(home, "bin"), os.path.join(home, "pyvenv.cfg")]
    sites = {os.path.realpath(p) for p in site}
    for path in [*site, *paths]:
        real = os.path.realpath(path)
        if any(_under(real, top) for top in tops) and not (home and _under(real, home)):
            out.append(TOP + real)  # the repository's own: only what installs register
        elif real in sites or (home is not None and _under(real, home)):
            out.append(real)
        else:
            out.append(MODULES + real)  # a checkout a `.pth` names: what imports reach
    return _outermost(out)


def expand(specs: Iterable[str]) -> list[str]:
    """The paths `stats.walk` walks for root `specs`, as the folders are now: a `TOP`
    folder's metadata entries (a new `.egg-info` there is found as added), a `MODULES`
    folder's importable entries and metadata."""
    out: list[str] = []
    for spec in specs:
        kind = TOP if spec.startswith(TOP) else MODULES if spec.startswith(MODULES) else ""
        if not kind:
            out.append(spec)
            continue
        folder = spec[len(kind) :]
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        out += [os.path.join(folder, n) for n in names if n.endswith(_METADATA)
                or (kind == MODULES and _importable(n))]  # fmt: skip
    return out


def _importable(name: str) -> bool:
    """A folder or module `import` can reach by this name (`.venv`, `.git` it cannot)."""
    stem = name.split(".", 1)[0] if name.endswith(_CODE) else name
    return stem.isidentifier()


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def _outermost(specs: list[str]) -> list[str]:
    """`specs` without duplicates and without a whole folder inside another one."""
    whole = sorted({s for s in specs if not s.startswith((TOP, MODULES))}, key=len)
    kept: list[str] = []
    for spec in whole:
        if not any(_under(spec, k) for k in kept if os.path.isdir(k)):
            kept.append(spec)
    parts = [s for s in dict.fromkeys(specs) if s.startswith((TOP, MODULES))]
    return kept + [p for p in parts if not any(_under(p.split(":", 1)[1], k) for k in kept)]
