"""What a checkout of a recorded tree would write, by the tree's own `.gitattributes`.

A session's work is recorded byte for byte, but a `.gitattributes` it carries can make
every checkout write other bytes (re-encoded, other line ends, a filter's output): a
clone then fails the session's own tests. Such a file is refused with the attribute
that changes it. Only the tree's own `.gitattributes` count, read through a private
index, because those travel with the commit; what the repository's config adds is the
person's (docs/reliability.md, "A clone checks out the bytes that were tested").
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path

from executor.vcs.reads import GitReads

#: The attributes that change what a checkout writes.
_ASKED = ("filter", "working-tree-encoding", "eol", "text", "ident")
_IDENT_RE = re.compile(rb"\$Id(:[^$\n]*)?\$")
_LONE_LF_RE = re.compile(rb"(?<!\r)\n")
_UNSET = ("unspecified", "unset")


def checkout_change(
    data: bytes, attrs: Mapping[str, str], smudging: Collection[str] = ()
) -> str | None:
    """How a checkout by `attrs` would change `data` (the attribute that does it), or
    None when it writes `data` as it is. `smudging`: the filters configured to change
    what a checkout writes (a smudge or process command; or required: a checkout
    without it fails); any other filter leaves a checkout as it is."""
    driver = attrs.get("filter", "unspecified")
    if driver not in _UNSET and driver in smudging:
        return f"filter={driver}: a checkout runs that filter's program on it"
    encoding = attrs.get("working-tree-encoding", "unspecified")
    if encoding not in (*_UNSET, "set"):
        try:
            again = data.decode("utf-8").encode(codecs.lookup(encoding).name)
        except (LookupError, UnicodeError):
            again = None
        if again != data:
            return f"working-tree-encoding={encoding}: a checkout re-encodes it"
    if attrs.get("ident") == "set" and _IDENT_RE.search(data):
        return "ident: a checkout expands its $Id$"
    text = attrs.get("text", "unspecified")
    if attrs.get("eol") == "crlf" and text != "unset" and _LONE_LF_RE.search(data):
        auto = text == "auto"
        if not (auto and (b"\0" in data[:8000] or b"\r\n" in data)):
            return "eol=crlf: a checkout writes its line ends as CRLF"
    return None


class GitAttributes(GitReads):
    def checkout_changes(
        self, index_env: Mapping[str, str], files: Sequence[str]
    ) -> dict[str, str]:
        """The `files` of the tree held in the private index `index_env` that a checkout
        would write otherwise than they are in the worktree now, with why."""
        found: dict[str, str] = {}
        given = self._tree_attributes(index_env, files)
        smudging = self._smudging() if any("filter" in a for a in given.values()) else set()
        for rel, attrs in given.items():
            path = self.root / rel
            if path.is_symlink() or not path.is_file():
                continue
            with contextlib.suppress(OSError):
                why = checkout_change(path.read_bytes(), attrs, smudging)
                if why is not None:
                    found[rel] = why
        return found

    def _tree_attributes(
        self, index_env: Mapping[str, str], files: Sequence[str]
    ) -> dict[str, dict[str, str]]:
        """Each file's checkout attributes, as the index's `.gitattributes` set them."""
        if not files:
            return {}
        with self._bare_git_dir() as env:
            out = self._out(
                "-c", f"core.attributesFile={os.devnull}", "check-attr", "--cached", "-z",
                "--stdin", *_ASKED, env={**index_env, **env},
                input_text="".join(f + "\0" for f in files),
            )  # fmt: skip
        fields = out.split("\0")
        found: dict[str, dict[str, str]] = {}
        for i in range(0, len(fields) - 2, 3):
            path, attr, value = fields[i : i + 3]
            if value not in _UNSET:
                found.setdefault(path, {})[attr] = value
        return found

    def _smudging(self) -> set[str]:
        """The filters configured here that change what a checkout writes."""
        proc = self._run("config", "--get-regexp", r"^filter\..*\.(smudge|process|required)$",
                         check=False)  # fmt: skip
        found = set()
        for line in proc.stdout.splitlines():
            key, _, value = line.partition(" ")
            name, _, kind = key.removeprefix("filter.").rpartition(".")
            if value.strip() and (kind != "required" or value.strip().lower() == "true"):
                found.add(name)
        return found

    @contextlib.contextmanager
    def _bare_git_dir(self) -> Iterator[dict[str, str]]:
        """Env for a git folder of our own (no config, no `info/attributes`) that reads
        the repository's objects: where only a tree's own attributes apply."""
        objects = Path(self._out("rev-parse", "--git-path", "objects").strip())
        objects = objects if objects.is_absolute() else self.root / objects
        folder = Path(tempfile.mkdtemp(prefix="executor-attrs-", dir=self.git_dir))
        try:
            (folder / "refs").mkdir()
            (folder / "objects").mkdir()
            (folder / "HEAD").write_text("ref: refs/heads/none\n", encoding="utf-8")
            yield {
                "GIT_DIR": str(folder), "GIT_WORK_TREE": str(self.root),
                "GIT_OBJECT_DIRECTORY": str(objects.resolve()), "GIT_ATTR_NOSYSTEM": "1",
            }  # fmt: skip
        finally:
            shutil.rmtree(folder, ignore_errors=True)
