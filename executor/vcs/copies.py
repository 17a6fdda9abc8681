"""A tree's files written out to a folder of their own, and the lines two trees differ
in: what a mutation run needs (`executor.strength`) without the person's checkout.

`export_tree` writes each blob's bytes as stored (`cat-file --batch`): no checkout, no
index, no filter or attribute program runs, and the repository's worktree, index and
refs are not touched.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

from executor import errors
from executor.vcs.trees import GitTrees

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


class GitCopies(GitTrees):
    def export_tree(
        self,
        tree: str,
        dest: Path,
        *,
        files: dict[str, bytes] | None = None,
        repository: bool = False,
    ) -> int:
        """Write every file of `tree` under `dest` (links as links, executables as
        such; submodules are left out); the number of files written. `files`: paths
        whose content is written instead (or added: a test file as an older tree held
        it, run against this one). `repository`: the copy is a git repository of its own
        (empty, no hooks), as tests that look for the checkout's root expect."""
        extra = dict(files or {})
        entries = []
        for entry in self._out("ls-tree", "-r", "-z", "--full-tree", tree).split("\0"):
            if entry:
                meta, rel = entry.split("\t", 1)
                mode, kind, sha = meta.split()
                if kind == "blob":
                    entries.append((mode, sha, rel))
        batch = subprocess.run(
            ["git", "cat-file", "--batch"], cwd=self.root, check=False, capture_output=True,
            input="".join(f"{sha}\n" for _, sha, _ in entries).encode(),
        )  # fmt: skip
        if batch.returncode != 0:
            raise errors.GitCommandError(["cat-file", "--batch"], batch.returncode,
                                         batch.stderr.decode("utf-8", "replace"))  # fmt: skip
        out, at = batch.stdout, 0
        for mode, _, rel in entries:
            header_end = out.index(b"\n", at)
            size = int(out[at:header_end].split()[2])
            data = extra.pop(rel, out[header_end + 1 : header_end + 1 + size])
            at = header_end + 1 + size + 1
            path = dest / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if mode == "120000":
                os.symlink(os.fsdecode(data), path)
            else:
                path.write_bytes(data)
                os.chmod(path, 0o755 if mode == "100755" else 0o644)
        for rel, data in extra.items():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_bytes(data)
        if repository:  # tests that look for the checkout's root find this copy's
            self._run("init", "-q", "--template=", str(dest))
        return len(entries) + len(extra)

    def changed_lines(self, a: str, b: str, paths: Sequence[str]) -> dict[str, set[int]]:
        """For each of `paths` that differs between trees `a` and `b`: the line numbers
        in `b` that `b` added or changed."""
        if not paths:
            return {}
        text = self._out("-c", "core.quotePath=false", "diff", "-U0", "--no-color",
                         "--no-ext-diff", "--no-textconv", "--no-renames", a, b, "--",
                         *(f":(top,literal){p}" for p in paths))  # fmt: skip
        lines: dict[str, set[int]] = {}
        current: set[int] | None = None
        for line in text.splitlines():
            if line.startswith("+++ "):
                name = line[4:]
                current = None if name == "/dev/null" else lines.setdefault(name[2:], set())
            elif current is not None and (m := _HUNK.match(line)):
                start, count = int(m.group(1)), int(m.group(2) or 1)
                current.update(range(start, start + count))
        return {p: n for p, n in lines.items() if n}
