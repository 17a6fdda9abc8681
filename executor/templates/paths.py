"""Where template files may go: paths inside a template, and where templates live."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Literal

Location = Literal["global", "repo"]


def safe_relative(path: str) -> bool:
    p = PurePosixPath(path)
    return bool(path) and not p.is_absolute() and ".." not in p.parts and "\\" not in path


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
