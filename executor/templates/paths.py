"""Where template files may go: paths inside a template, and where templates live."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Literal

Location = Literal["global", "repo"]
#: Characters HFS+ ignores in a name (git's own list, `is_hfs_dotgit`): `.g\u200cit` is `.git`
_IGNORED = re.compile("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")


def safe_relative(path: str) -> bool:
    p = PurePosixPath(path)
    return bool(path) and not p.is_absolute() and ".." not in p.parts and "\\" not in path


def is_git_folder_name(name: str) -> bool:
    """Whether a file system may take `name` for `.git`: any case (macOS, Windows),
    trailing dots and spaces and an NTFS stream (`.git::$INDEX_ALLOCATION`) dropped
    (Windows), characters HFS+ ignores dropped, NTFS's short name `git~1` (as git's own
    `verify_path` judges a path in a tree)."""
    plain = _IGNORED.sub("", name).split(":", 1)[0].rstrip(" .").casefold()
    return plain in (".git", "git~1")


def git_folder_in(parts: Iterable[str]) -> bool:
    return any(is_git_folder_name(part) for part in parts)


def output_problem(path: str) -> str:
    """Why a template may not render a file to `path` (relative to the new project's
    folder); "" when it may."""
    if not safe_relative(path):
        return "not a new relative path"
    if any(unicodedata.category(c) == "Cc" for c in path):
        return "a path holding a control character"
    if git_folder_in(PurePosixPath(path).parts):
        return "a path through .git"
    return ""


def default_destination(
    name: str,
    *,
    location: Location = "global",
    output: Path | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Path:
    """`output` if given; `repo`: ./templates/<name>; `global`: the per-user data
    folder, `$XDG_DATA_HOME/plan-executor/templates/<name>` (XDG_DATA_HOME defaults
    to ~/.local/share)."""
    cwd = Path(cwd) if cwd is not None else Path.cwd()
    if output is not None:
        return cwd / Path(output).expanduser()
    if location == "repo":
        return cwd / "templates" / name
    env = os.environ if env is None else env
    xdg = env.get("XDG_DATA_HOME", "")
    base = (
        Path(xdg)
        if xdg and Path(xdg).is_absolute()
        else Path(env.get("HOME") or Path.home()) / ".local" / "share"
    )
    return base / "plan-executor" / "templates" / name
