"""Stryker's program in a project, found and pinned by content.

Stryker makes and runs the mutants of a JavaScript/TypeScript session, so what it is
decides the score. Its program is its entry (`@stryker-mutator/core`'s `bin/stryker.js`,
run with `node`: never the `node_modules/.bin/stryker` link, which is whatever was left
there), every package under `node_modules/@stryker-mutator` (Stryker loads its plugins
from there), and every package those depend on, where node finds them. `pin` is a
fingerprint of all their files; the session records it when it starts, and a mutation
step that finds another one stops the session (`executor.workflows.tdd.session.checks.strength`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

#: Stryker's entry, under the project's `node_modules`.
ENTRY = ("@stryker-mutator", "core", "bin", "stryker.js")
#: A package name as npm allows it (anything else is not looked up: no `../` in a path).
_NAME = re.compile(r"^(?:@[a-z0-9][\w.~-]*/)?[a-z0-9][\w.~-]*$", re.IGNORECASE)


def entry(root: Path) -> Path | None:
    """Stryker's entry in the project at `root`, None when it has no Stryker."""
    path = root.joinpath("node_modules", *ENTRY)
    return path if path.is_file() else None


def pin(root: Path) -> str:
    """A fingerprint of Stryker's program in the project at `root` ("" when it has
    none). Stryker's own packages by content; the packages they depend on (thousands of
    files) by each file's size, inode and change time: the kernel sets a file's change
    time at every write, rename or `utime`, and no call sets it back."""
    if entry(root) is None:
        return ""
    digest = hashlib.sha256()
    for package in packages(root):
        own = package.parent.name == "@stryker-mutator"
        digest.update(f"{package}\0".encode())
        for rel, item in _files(str(package), ""):
            digest.update(f"{rel}\0".encode())
            try:
                if item.is_symlink():
                    digest.update(f"-> {os.readlink(item.path)}\0".encode())
                elif own:
                    with open(item.path, "rb") as f:
                        digest.update(hashlib.sha256(f.read()).digest())
                else:
                    st = item.stat(follow_symlinks=False)
                    digest.update(f"{st.st_size} {st.st_ino} {st.st_ctime_ns}\0".encode())
            except OSError as e:
                digest.update(f"unreadable: {e.errno}\0".encode())
    return digest.hexdigest()


def packages(root: Path) -> list[Path]:
    """The folders of the packages Stryker is made of (real paths, each once): those
    under `node_modules/@stryker-mutator` and, transitively, what they depend on."""
    scope = root / "node_modules" / "@stryker-mutator"
    try:
        todo = [p.resolve() for p in scope.iterdir() if p.is_dir()]
    except OSError:
        return []
    seen: set[Path] = set()
    while todo:
        package = todo.pop()
        if package in seen:
            continue
        seen.add(package)
        for name in _dependencies(package):
            found = _find(package, name)
            if found is not None:
                todo.append(found)
    return sorted(seen)


def _dependencies(package: Path) -> list[str]:
    try:
        data = json.loads((package / "package.json").read_text("utf-8"))
    except (OSError, ValueError):
        return []
    names: list[str] = []
    for key in ("dependencies", "optionalDependencies", "peerDependencies"):
        listed = data.get(key) if isinstance(data, dict) else None
        if isinstance(listed, dict):
            names += [n for n in listed if isinstance(n, str) and _NAME.match(n)]
    return names


def _find(package: Path, name: str) -> Path | None:
    """Where node finds `name` required from `package`: the nearest `node_modules/name`
    in it or a folder above it."""
    for folder in (package, *package.parents):
        candidate = folder / "node_modules" / name
        if candidate.is_dir():
            return candidate.resolve()
    return None


def _files(folder: str, rel: str) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """The files (and links) under `folder` in a stable order, by their path under it
    (its own `node_modules` aside: those are packages of their own)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for item in entries:
        path = f"{rel}/{item.name}" if rel else item.name
        if item.is_dir(follow_symlinks=False):
            if item.name != "node_modules":
                yield from _files(item.path, path)
        else:
            yield path, item
