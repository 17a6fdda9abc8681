"""Folders pinned by what the file system says of each file, as git's index pins a
worktree: size, modification and change times (nanoseconds), inode and mode.

A change time cannot be set back (`os.utime` sets the other two, and moves it to now),
so a file whose stat is unchanged holds what it held when it was pinned. A file changed
within a moment of its pinning may keep its times where the clock is coarse (a 4 ms
tick): like git's "racily clean" entries, such a file is pinned by its content too, and
compared by content every time. Anything else is read only when its stat moved, and a
file that moved is a change (what it held was never read, so no content can prove it
the same) unless it is bytecode its interpreter would have written itself
(`interpreter_wrote`).
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

#: Seconds around the pinning within which a file's times cannot tell two contents apart.
RACY_SECONDS = 2.0
#: Files no walk goes into: a folder tree this large is not an environment.
MAX_FILES = 400_000


def digest(path: Path) -> str:
    """sha256 of a regular file's content (first 32 hex digits); "-" when unreadable."""
    try:
        with open(path, "rb", buffering=0) as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return "-"
            h = hashlib.sha256()
            while chunk := f.read(1 << 20):
                h.update(chunk)
    except OSError:
        return "-"
    return h.hexdigest()[:32]


def _line(st: os.stat_result, path: str, racy_after: int) -> str:
    """One file's pin: `mode:size:mtime:ctime:ino`, and its content when racy; a link
    is pinned by its target."""
    head = f"{st.st_mode:o}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"
    if stat.S_ISLNK(st.st_mode):
        try:
            return f"{head}:>{os.readlink(path)}"
        except OSError:
            return head
    if stat.S_ISREG(st.st_mode) and max(st.st_mtime_ns, st.st_ctime_ns) >= racy_after:
        return f"{head}:#{digest(Path(path))}"
    return head


def walk(roots: Iterable[str], *, pinning: bool = True) -> dict[str, str]:
    """Every file, link and special file under `roots` (folders or single files), by
    absolute path -> its pin line. A root that does not exist is `root -> "-"`.
    `pinning`: the racy files are read too (not when the walk is only compared)."""
    racy_after = time.time_ns() - int(RACY_SECONDS * 1e9) if pinning else 1 << 62
    out: dict[str, str] = {}
    for root in roots:
        try:
            top = os.lstat(root)
        except OSError:
            out[root] = "-"
            continue
        if not stat.S_ISDIR(top.st_mode):
            out[root] = _line(top, root, racy_after)
            continue
        stack = [root]
        while stack and len(out) < MAX_FILES:
            folder = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                        continue
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                out[entry.path] = _line(st, entry.path, racy_after)
    return out


def changed(pinned: Mapping[str, str], now: Mapping[str, str]) -> dict[str, str]:
    """Paths that differ: path -> "added", "removed" or "changed". A file whose stat
    moved but whose content was pinned (racy) and is the same is unchanged."""
    out: dict[str, str] = {}
    moved = {path for path, _ in pinned.items() ^ now.items()}  # in C: most are equal
    for path in moved:
        was, is_ = pinned.get(path), now.get(path)
        if was is None or was == "-":
            if is_ is not None and is_ != "-":
                out[path] = "added"
            continue
        if is_ is None or is_ == "-":
            out[path] = "removed"
            continue
        content = was.split(":#", 1)[1] if ":#" in was else None
        if content is None and was == is_:
            continue
        same_mode = was.split(":", 1)[0] == is_.split(":", 1)[0]
        if content is not None and same_mode and content == digest(Path(path)):
            continue  # pinned by its content: compared by it
        out[path] = "changed"
    return out


def code_changed(
    pinned: Mapping[str, str], now: Mapping[str, str], python: str | None
) -> dict[str, str]:
    """`changed`, less what no interpreter runs: in a `__pycache__` folder Python loads
    only a `.pyc` named for its source, so a writer's temporary file (`x.pyc.<id>`,
    renamed into place as another process imports) is inert, and a removed `.pyc` is
    compiled again from its source; bytecode `python` would have written itself is
    the source's (`interpreter_wrote`)."""
    moved = {
        path: what for path, what in changed(pinned, now).items()
        if "/__pycache__/" not in path or (path.endswith(".pyc") and what != "removed")
    }  # fmt: skip
    pycs = [p for p in moved if p.endswith(".pyc")]
    for ok in interpreter_wrote(python, pycs) if python else ():
        moved.pop(ok, None)
    return moved


#: Run in the interpreter whose bytecode it is: each named `.pyc` is what that
#: interpreter writes for the source beside its `__pycache__` (the same code object:
#: `==` on code compares everything but the file name), or what pytest writes for a
#: module whose asserts it rewrites (a plugin, a test file), else it is printed.
_SAME_CODE = """\
import importlib.util, marshal, sys
for pyc in sys.argv[1:]:
    try:
        data = open(pyc, 'rb').read()
        if data[:4] != importlib.util.MAGIC_NUMBER:
            continue  # another interpreter's: this one never loads it
        name = pyc.rsplit('/', 1)[1]
        source = pyc.rsplit('/__pycache__/', 1)[0] + '/' + name.split('.', 1)[0] + '.py'
        text = open(source, 'rb').read()
        flags = int.from_bytes(data[4:8], 'little')
        if flags & 1 and data[8:16] != importlib.util.source_hash(text):
            raise ValueError
        if '-pytest-' in name:  # pytest's own: the source with its asserts rewritten
            import ast, pytest
            from _pytest.assertion.rewrite import rewrite_asserts
            if not name.endswith('-pytest-' + pytest.__version__ + '.pyc'):
                continue  # another pytest's: this one never loads it
            tree = ast.parse(text, filename=source)
            rewrite_asserts(tree, text, source, None)
            made = compile(tree, source, 'exec', dont_inherit=True)
        else:
            level = 2 if '.opt-2.' in name else 1 if '.opt-1.' in name else 0
            made = compile(text, source, 'exec', dont_inherit=True, optimize=level)
        if marshal.loads(data[16:]) != made:
            raise ValueError
    except Exception:
        print(pyc)
"""


def interpreter_wrote(python: str, pycs: list[str]) -> set[str]:
    """Those of `pycs` (bytecode files that appeared or changed) that `python` would
    have written itself from the source beside them: an import by the agent's own runs
    of the tests writes them, and they run nothing the source does not say."""
    if not pycs:
        return set()
    try:
        proc = subprocess.run([python, "-I", "-c", _SAME_CODE, *pycs], capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return set()
    if proc.returncode != 0:
        return set()
    return set(pycs) - set(proc.stdout.splitlines())
