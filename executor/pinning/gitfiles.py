"""git's own files that decide what git runs or shows, pinned by content.

They lie outside the worktree, so no diff shows them, and a hook's times can be set
back with `os.utime`: they are kept whole (their bytes and mode, a few kilobytes) and
compared by content, so what an agent step wrote is found and put back. `config` (a
hook folder, a filter, `core.fsmonitor`: programs the person's next git command runs),
the worktree's `config.worktree`, `info/attributes` (which files a filter runs on), every
hook but the shipped `.sample`s, the files of the folder `core.hooksPath` names, and the
person's own config (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`).

`info/exclude` is not among them: the executor adds its own patterns there, and what it
hides is judged where it matters, as code git newly ignores.
"""

from __future__ import annotations

import base64
import contextlib
import os
import stat
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

from executor import fsutil

#: One file kept: its mode and bytes (base64), or None when there was none.
Kept = dict[str, object] | None


def places(git_dir: Path, root: Path, environ: Mapping[str, str]) -> list[str]:
    """The files and folders to keep for the repository at `root` (its git folder
    `git_dir`; a linked worktree's config and hooks are the common folder's)."""
    common = git_dir / "commondir"
    shared = git_dir
    if common.is_file():
        shared = (git_dir / common.read_text("utf-8").strip()).resolve()
    out = [shared / "config", git_dir / "config.worktree", shared / "info" / "attributes",
           shared / "hooks"]  # fmt: skip
    hooks = _hooks_path(root)
    if hooks:
        folder = Path(os.path.expanduser(hooks))
        out.append(folder if folder.is_absolute() else root / folder)
    home = environ.get("HOME")
    named = environ.get("GIT_CONFIG_GLOBAL")
    if named:
        out.append(Path(named))
    elif home:
        out.append(Path(home) / ".gitconfig")
    xdg = environ.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else "")
    if xdg:
        out.append(Path(xdg) / "git" / "config")
    return list(dict.fromkeys(str(p) for p in out))


def _hooks_path(root: Path) -> str:
    try:
        proc = subprocess.run(["git", "config", "--get", "core.hooksPath"], cwd=root,
                              capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def keep(specs: Iterable[str]) -> dict[str, Kept]:
    """Each file of `specs` (a folder: the files in it, but `.sample`s) as it is now."""
    out: dict[str, Kept] = {}
    for spec in specs:
        if os.path.isdir(spec):
            for name in sorted(os.listdir(spec)):
                path = os.path.join(spec, name)
                if not name.endswith(".sample") and not os.path.isdir(path):
                    out[path] = _kept(path)
        else:
            out[spec] = _kept(spec)
    return out


def _kept(path: str) -> Kept:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return {"mode": st.st_mode, "link": os.readlink(path)}
    data = fsutil.read_regular(Path(path))
    if data is None:
        return {"mode": st.st_mode, "special": True}
    return {"mode": stat.S_IMODE(st.st_mode), "data": base64.b64encode(data).decode("ascii")}


def changed(pinned: Mapping[str, Kept], now: Mapping[str, Kept]) -> dict[str, str]:
    """Files that differ: path -> "added", "removed" or "changed"."""
    out: dict[str, str] = {}
    for path in pinned.keys() | now.keys():
        was, is_ = pinned.get(path), now.get(path)
        if was == is_:
            continue
        out[path] = "added" if was is None else "removed" if is_ is None else "changed"
    return out


def put_back(pinned: Mapping[str, Kept], paths: Iterable[str]) -> None:
    """Each of `paths` as it was pinned: written again (mode too), or removed."""
    for path in paths:
        was = pinned.get(path)
        target = Path(path)
        if was is None or "data" not in was:
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                target.unlink()
            if was is not None and "link" in was:
                os.symlink(str(was["link"]), target)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(target) and not target.is_file():
            with contextlib.suppress(OSError):
                target.unlink()
        fsutil.atomic_write_bytes(target, base64.b64decode(str(was["data"])), fault="put_back")
        os.chmod(target, int(str(was["mode"])))
