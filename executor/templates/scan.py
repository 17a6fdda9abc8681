"""The codebase as a sorted list of files, read on demand (bytes exactly as on disk).

What is skipped and why: version control and tool caches, dependency folders, build
output and virtualenvs (not the project's own code); folders that hold a template of
ours (an earlier run's output, `--output-location repo`: a manifest.json our manifest
record reads); `.env` files (secrets must never end up in a template); the executor's
own bridge and state files; files over `MAX_FILE_BYTES`.
Files whose bytes are not UTF-8, or hold a NUL, are binary: listed, never templated.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from executor.errors import AnalysisFailedError, PathNotFoundError
from executor.templates.loading import is_template

MAX_FILE_BYTES = 512 * 1024
MAX_FILES = 5000
HEAD_CHARS = 32 * 1024

IGNORED_DIRS = frozenset(
    {
        "node_modules", "__pycache__", "dist", "build", "obj", "target", "coverage",
        "htmlcov", "site-packages", "bower_components", "vendor",
    }
)  # fmt: skip
#: Hidden folders that are part of a project (others, like .git and caches, are not).
KEPT_HIDDEN_DIRS = frozenset({".github", ".devcontainer"})
IGNORED_FILES = frozenset({".DS_Store", "Thumbs.db"})
#: The executor's own files in the analysed folder: bridge request/response/ledger, the
#: template-create state and its backup, rejected responses.
BRIDGE_PREFIXES = (".agent-", ".template-create-state")
KEPT_ENV_FILES = frozenset({".env.example", ".env.sample", ".env.template"})
_DOTNET_PROJECTS = (".csproj", ".fsproj", ".vbproj", ".sln")


@dataclass(frozen=True)
class SourceFile:
    path: str  # posix, relative to the root
    size: int
    executable: bool

    @property
    def name(self) -> str:
        return PurePosixPath(self.path).name

    @property
    def suffix(self) -> str:
        return PurePosixPath(self.path).suffix.lower()

    @property
    def parts(self) -> tuple[str, ...]:
        return PurePosixPath(self.path).parts


@dataclass
class Codebase:
    """A scanned project: `files` (sorted) and a cache of their contents."""

    root: Path
    files: list[SourceFile]
    truncated: bool = False
    _bytes: dict[str, bytes] = field(default_factory=dict, repr=False)
    _texts: dict[str, str | None] = field(default_factory=dict, repr=False)

    def data(self, path: str) -> bytes:
        found = self._bytes.get(path)
        if found is None:
            found = (self.root / path).read_bytes()
            self._bytes[path] = found
        return found

    def text(self, path: str) -> str | None:
        """The file decoded as UTF-8 (line endings untouched), or None when binary."""
        if path not in self._texts:
            data = self.data(path)
            try:
                self._texts[path] = None if b"\0" in data else data.decode("utf-8")
            except UnicodeDecodeError:
                self._texts[path] = None
        return self._texts[path]

    def head(self, path: str) -> str:
        """The first `HEAD_CHARS` of a text file ('' when binary): what heuristics read,
        so one huge file cannot make the analysis slow."""
        return (self.text(path) or "")[:HEAD_CHARS]

    def directories(self) -> list[str]:
        """Every folder holding a file, as relative posix paths, sorted."""
        dirs: set[str] = set()
        for f in self.files:
            parts = f.parts[:-1]
            dirs.update("/".join(parts[: i + 1]) for i in range(len(parts)))
        return sorted(dirs)

    def by_name(self, *names: str) -> list[SourceFile]:
        wanted = {n.lower() for n in names}
        return [f for f in self.files if f.name.lower() in wanted]

    def by_suffix(self, *suffixes: str) -> list[SourceFile]:
        return [f for f in self.files if f.suffix in suffixes]


def _skip_dir(name: str, siblings: Iterable[str], folder: Path) -> bool:
    if name.startswith(".") and name not in KEPT_HIDDEN_DIRS:
        return True
    if name in IGNORED_DIRS or name.endswith(".egg-info"):
        return True
    if (folder / name / "pyvenv.cfg").exists():  # a virtualenv, whatever its name
        return True
    if (folder / name / "manifest.json").is_file() and is_template(folder / name):
        return True  # a template made by an earlier run is not the project's code
    # .NET puts build output in bin/ next to obj/ and the project file
    return name == "bin" and any(s == "obj" or s.endswith(_DOTNET_PROJECTS) for s in siblings)


def _skip_file(name: str) -> bool:
    if name in IGNORED_FILES or name.startswith(BRIDGE_PREFIXES):
        return True
    if name.endswith((".pyc", ".pyo", ".tmp")):
        return True
    return (name == ".env" or name.startswith(".env.")) and name not in KEPT_ENV_FILES


def scan_codebase(root: Path, *, exclude: Sequence[Path] = ()) -> Codebase:
    """List the project's files under `root` (sorted), skipping `exclude`d paths.

    Raises PathNotFoundError when `root` is not a folder and AnalysisFailedError when it
    holds no file to analyse.
    """
    root = Path(root).resolve()
    if not root.is_dir():
        raise PathNotFoundError(f"codebase not found (not a folder): {root}", path=root)
    excluded = {Path(p).resolve() for p in exclude}
    files: list[SourceFile] = []
    truncated = False
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        siblings = [*dirs, *names]
        dirs[:] = sorted(
            d for d in dirs if not _skip_dir(d, siblings, here) and here / d not in excluded
        )
        for name in sorted(names):
            path = here / name
            if _skip_file(name) or path in excluded:
                continue
            try:
                info = path.stat()
            except OSError:
                continue  # a dangling link or a file removed while we walk
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
                continue
            rel = path.relative_to(root).as_posix()
            files.append(SourceFile(rel, info.st_size, bool(info.st_mode & stat.S_IXUSR)))
            if len(files) >= MAX_FILES:
                truncated = True
                break
        if truncated:
            break
    if not files:
        raise AnalysisFailedError(f"no files to analyse in {root}", path=root)
    files.sort(key=lambda f: f.path)
    return Codebase(root=root, files=files, truncated=truncated)
