"""Stryker's program as `program.pin` fingerprints it: its packages and what they load,
not the `.bin` link (docs/test-strength.md)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from executor.strength import program


def _package(folder: Path, name: str, *deps: str, files: dict[str, str] | None = None) -> None:
    folder.mkdir(parents=True)
    data = {"name": name, "dependencies": {d: "*" for d in deps}}
    (folder / "package.json").write_text(json.dumps(data), "utf-8")
    for rel, text in (files or {}).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, "utf-8")


def _install(root: Path) -> Path:
    """Stryker's core (depending on `dep`, which has a package of its own nested) and a
    plugin, as npm lays them out; the `.bin` link."""
    modules = root / "node_modules"
    core = modules / "@stryker-mutator" / "core"
    _package(core, "@stryker-mutator/core", "dep", files={"bin/stryker.js": "run()\n"})
    _package(modules / "@stryker-mutator" / "api", "@stryker-mutator/api")
    _package(modules / "dep", "dep", "inner", files={"index.js": "module.exports = 1\n"})
    _package(modules / "dep" / "node_modules" / "inner", "inner", files={"i.js": "1\n"})
    _package(modules / "unrelated", "unrelated", files={"index.js": "x\n"})
    (modules / ".bin").mkdir()
    (modules / ".bin" / "stryker").symlink_to("../@stryker-mutator/core/bin/stryker.js")
    return modules


def test_no_stryker_no_pin(tmp_path: Path) -> None:
    assert program.entry(tmp_path) is None and program.pin(tmp_path) == ""


def test_the_pin_covers_strykers_packages_and_what_they_load(tmp_path: Path) -> None:
    modules = _install(tmp_path)
    found = {p.relative_to(modules.resolve()).as_posix() for p in program.packages(tmp_path)}
    assert found == {"@stryker-mutator/core", "@stryker-mutator/api", "dep",
                     "dep/node_modules/inner"}  # fmt: skip
    pinned = program.pin(tmp_path)

    # not what Stryker is: the .bin link, a package it does not load
    (modules / ".bin" / "stryker").unlink()
    (modules / ".bin" / "stryker").write_text("#!/bin/sh\nforge\n", "utf-8")
    (modules / "unrelated" / "index.js").write_text("y\n", "utf-8")
    assert program.pin(tmp_path) == pinned

    # what it is: its own files, a plugin that appears, a file of what it loads
    (modules / "@stryker-mutator/core/bin/stryker.js").write_text("forge()\n", "utf-8")
    assert program.pin(tmp_path) != pinned
    pinned = program.pin(tmp_path)
    _package(modules / "@stryker-mutator" / "evil", "@stryker-mutator/evil")
    assert program.pin(tmp_path) != pinned
    pinned = program.pin(tmp_path)
    (modules / "dep/node_modules/inner/i.js").write_text("2\n", "utf-8")
    assert program.pin(tmp_path) != pinned


def test_a_dependency_rewritten_and_backdated_changes_the_pin(tmp_path: Path) -> None:
    """A dependency's files are pinned by size, inode and change time: the same size
    and an old modification time do not hide a rewrite."""
    modules = _install(tmp_path)
    target = modules / "dep" / "index.js"
    before = target.stat()
    pinned = program.pin(tmp_path)
    time.sleep(0.01)
    target.write_text("module.exports = 2\n", "utf-8")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert target.stat().st_size == before.st_size
    assert program.pin(tmp_path) != pinned
