"""`Pinned`: what a run fixed before any agent acted, built by one function (`pin`), and
the one thing every judge of the environment and of git's own files compares against.

The record (`Pinned`, in the run's state) names the environment its tests run in and a
digest of the pin file beside the state (`.agent-pinned.json`: every pinned file's stat,
and git's control files whole). The pin file is the executor's own: put back if an agent
step or a test run writes it, and read only when its digest is the one recorded.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from executor import fsutil
from executor.datamodel import Strict
from executor.pinning import environment, gitfiles, stats
from executor.projectenv import Interpreter, Probe
from executor.stamps import utc_now


class TestEnvironment(Strict):
    """The project's environment the tests run in (`executor.projectenv`), as found and
    probed when the run was pinned."""

    __test__: ClassVar[bool] = False

    python: str
    source: str = Field(description="how it was found, in the person's words")
    prefix: str | None = Field(default=None, description="the environment's folder")
    identity: str = Field(description="the binary that runs (the interpreter's real path)")
    plugins: dict[str, str] = Field(
        default_factory=dict,
        description="pytest plugins registered by entry point (name -> distribution): test "
        "runs load these by name, with pytest's autoload off",
    )
    autoload: bool = Field(
        default=True,
        description="false: the person's shell turns pytest's plugin autoload off already "
        "(PYTEST_DISABLE_PLUGIN_AUTOLOAD), and test runs leave plugins as it chose",
    )
    site: list[str] = Field(default_factory=list, description="where its packages are")
    coverage: bool = Field(default=False, description="pytest-cov is installed there")


class Pinned(Strict):
    """What the run pinned before any agent step: its environment, and the digest of the
    pin file holding every pinned file (`PinFile`)."""

    at: str = Field(default_factory=utc_now, description="when it was pinned")
    environment: TestEnvironment | None = None
    roots: list[str] = Field(default_factory=list, description="the folders and files pinned")
    checkouts: list[str] = Field(
        default_factory=list, description="the checkouts whose environment it is"
    )
    python: bool = Field(default=True, description="the Python environment is pinned too")
    git: list[str] = Field(
        default_factory=list, description="git's own files and folders kept (gitfiles.places)"
    )
    digest: str = Field(description="sha256 of the pin file (.agent-pinned.json)")
    used: bool = Field(
        default=False,
        description="a session started with it: from then on it is the run's, and another "
        "environment found is asked about (before that it may be made anew)",
    )
    unsettled: dict[str, str] = Field(
        default_factory=dict,
        description="what differs from the pin after an agent step or a test run (path -> "
        "added, removed, changed), until a person takes it in: never taken in as theirs",
    )


@dataclass
class PinFile:
    """The pin file's content: each pinned file's stat line (`stats.walk`), and git's
    control files whole (`gitfiles.keep`)."""

    files: dict[str, str] = field(default_factory=dict)
    git: dict[str, gitfiles.Kept] = field(default_factory=dict)

    def dump(self) -> bytes:
        return json.dumps({"files": self.files, "git": self.git}, sort_keys=True).encode()


@dataclass
class Changes:
    """What differs from the pin: environment files and git's own files, path -> what."""

    environment: dict[str, str] = field(default_factory=dict)
    git: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.environment or self.git)


def pin(
    found: Interpreter,
    probe: Probe,
    *,
    checkouts: list[Path],
    python: bool,
    git: list[str],
    path: Path,
    environ: Mapping[str, str],
) -> Pinned:
    """Pin the environment of `found` (as `probe` says) for the repository's
    `checkouts` (`environment.roots`; `python` False: a project with no Python tests)
    by stat, and the `git` control files by content; write the pin file at `path`, and
    return the record of it."""
    roots = environment.roots([found.python, probe.executable], found.prefix, probe.site,
                              probe.paths, checkouts, python_project=python)  # fmt: skip
    files = stats.walk(environment.expand(roots))
    data = PinFile(files=files, git=gitfiles.keep(git)).dump()
    fsutil.atomic_write_bytes(path, data, fault="pinned")
    return Pinned(
        environment=tested_with(found, probe, environ), roots=roots, digest=_sha(data),
        checkouts=[str(c) for c in checkouts], python=python, git=git,
    )  # fmt: skip


class Pins:
    """A run's `Pinned` with its pin file: the one place the judges ask."""

    def __init__(self, pinned: Pinned, path: Path) -> None:
        self.pinned = pinned
        self.path = path
        self._file: PinFile | None = None

    def file(self) -> PinFile | None:
        """The pin file, when it holds what was recorded (None: changed or gone)."""
        if self._file is None:
            data = fsutil.read_regular(self.path)
            if data is None or _sha(data) != self.pinned.digest:
                return None
            raw = json.loads(data)
            self._file = PinFile(files=dict(raw.get("files", {})), git=dict(raw.get("git", {})))
        return self._file

    def changes(self, python: str | None = None) -> Changes | None:
        """What differs from the pin now; None when the pin file cannot be trusted.
        `python`: the interpreter whose bytecode may appear in its folders (checked)."""
        pinned = self.file()
        if pinned is None:
            return None
        now = stats.walk(environment.expand(self.pinned.roots), pinning=False)
        moved = stats.code_changed(pinned.files, now, python)
        git = gitfiles.changed(pinned.git, gitfiles.keep(self.pinned.git))
        return Changes(environment=moved, git=git)

    def put_back_git(self, paths: list[str]) -> None:
        pinned = self.file()
        if pinned is not None:
            gitfiles.put_back(pinned.git, paths)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def shown(changed: Mapping[str, str], *roots: Path | str, most: int = 8) -> list[str]:
    """`path (what)` for each change, paths relative to the first of `roots` they are
    inside (`.git/...` for git's folder); past `most`, grouped by folder."""
    tops = [os.path.realpath(r) for r in roots]

    def rel(path: str) -> str:
        for top in tops:
            if path.startswith(top + os.sep):
                return path[len(top) + 1 :]
        return path

    items = sorted((rel(p), what) for p, what in changed.items())
    if len(items) <= most:
        return [f"{p} ({what})" for p, what in items]
    groups: dict[tuple[str, str], int] = {}
    for p, what in items:
        groups[(os.path.dirname(p), what)] = groups.get((os.path.dirname(p), what), 0) + 1
    out = [f"{folder}/ ({n} files {what})" for (folder, what), n in sorted(groups.items())]
    return out[:most] + ([f"... {len(out) - most} more folders"] if len(out) > most else [])


def tested_with(found: Interpreter, probe: Probe, environ: Mapping[str, str]) -> TestEnvironment:
    """The environment record of an interpreter as found and probed: test runs load the
    pytest plugins there at this moment, by name (unless the person's shell turned
    pytest's autoload off: then as it chose)."""
    autoload = not environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") and probe.entry_points is not None
    return TestEnvironment(
        python=found.python, source=found.source, prefix=found.prefix,
        identity=probe.executable or os.path.realpath(found.python),
        plugins=dict(probe.entry_points or {}), autoload=autoload, site=list(probe.site),
        coverage=probe.has_pytest_cov,
    )  # fmt: skip


def interpreter(env: TestEnvironment) -> Interpreter:
    """What runs a test run of the pinned environment `env`."""
    plugins = tuple(env.plugins) if env.autoload else None
    return Interpreter(env.python, env.source, env.prefix, plugins=plugins)
