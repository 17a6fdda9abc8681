"""Rollback that never loses work (RELIABILITY P18): snapshot everything under a backup
ref first, refuse to drop a commit that is not safe to drop, keep the executor's files.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

from executor import errors, fsutil
from executor.vcs.reads import GitReads

#: Backup refs made before any destructive operation (RELIABILITY P18).
BACKUP_REF_PREFIX = "refs/executor/backup/"

_LABEL_UNSAFE_RE = re.compile(r"[^A-Za-z0-9._-]+")


class GitRollback(GitReads):
    def snapshot(self, label: str) -> str:
        """Back up the whole worktree (tracked + untracked) under a ref; return the ref.

        Built through a temporary index (GIT_INDEX_FILE) whose parent is HEAD, so the
        worktree and the real index are untouched (P18). Files .gitignore excludes are
        not included.
        """
        self.ensure_not_busy()
        head = self.resolve("HEAD")
        parents = ["-p", head] if head else []
        msg = f"executor backup: {label}\n\nWorktree snapshot taken before a destructive step."
        safe = _LABEL_UNSAFE_RE.sub("-", label).strip(".-") or "snapshot"
        from datetime import datetime, timezone  # only here: not on the resume path

        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        ref = f"{BACKUP_REF_PREFIX}{safe}-{stamp}"
        n = 1
        while self.resolve(ref) is not None:
            n += 1
            ref = f"{BACKUP_REF_PREFIX}{safe}-{stamp}-{n}"
        with self._repo() as repo, self._temp_index() as env:
            self._write(repo, "add", "-A", "--", ":/", env=env)
            tree = self._write(repo, "write-tree", env=env).strip()
            sha = self._write(repo, "commit-tree", tree, *parents, "-m", msg).strip()
            # zero old value: create only, never move an existing backup
            self._write(repo, "update-ref", "-m", msg.splitlines()[0], ref, sha, "0" * 40)
        return ref

    def reset_hard(self, commit: str, *, keep: Sequence[Path] = ()) -> str:
        """Return the worktree to `commit`, after a snapshot; return the backup ref.

        Tracked files are reset and untracked (not ignored) files removed, except the
        `keep` paths, which end exactly as they were before. Refuses with
        StaleWorkspaceError when `commit` is not an ancestor of HEAD.
        """
        self.ensure_not_busy()
        target = self.resolve(commit)
        if target is None or not self.is_ancestor(target, "HEAD"):
            raise errors.StaleWorkspaceError(
                f"refusing to roll back to {commit}: it is not a commit on the current "
                f"history of {self.root} (HEAD moved, or the commit is unknown)"
            )
        kept = self._read_keep(keep)
        ref = self.snapshot(f"reset-to-{target[:12]}")
        with self._repo() as repo:
            self._write(repo, "reset", "-q", "--hard", target)
        for rel in self.untracked_files(ignore=keep):
            path = self.root / rel
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            self._prune_empty_parents(path.parent)
        self._restore_keep(keep, kept)
        return ref

    def droppable(self, base: str, ours: dict[str, str]) -> list[str]:
        """Why a reset to `base` would be unsafe: one line per commit in `base..HEAD` that
        is a merge, is on a remote-tracking branch, or lacks our trailers `ours`.
        Empty: every commit it would drop is our own, local and linear."""
        problems = []
        wanted = {k.lower(): v for k, v in ours.items()}
        for c in self.commits_since(base):
            if len(c.parents) > 1:
                problems.append(f"{c.sha[:12]} is a merge commit")
            elif any(c.trailers.get(k) != v for k, v in wanted.items()):
                problems.append(f"{c.sha[:12]} is not this session's commit")
            elif self.is_pushed(c.sha):
                problems.append(f"{c.sha[:12]} is already on a remote branch (pushed)")
        return problems

    def fold_commits(self, base: str) -> list[str]:
        """Undo commits made since `base` but keep their changes in the worktree (a soft
        reset, after a backup); return the folded SHAs. `base` must be an ancestor."""
        folded = [c.sha for c in self.commits_since(base)]
        if folded:
            self.snapshot(f"fold-{folded[0][:12]}")
            with self._repo() as repo:
                self._write(repo, "reset", "-q", "--soft", base)
        return folded

    def restore_paths(self, commit: str, paths: Sequence[Path]) -> None:
        """Put `paths` back as they are in `commit` (removed when `commit` lacks them);
        the index is left as it was."""
        rels = self._rels(paths)
        present = [r for r in rels if self.tracked_at(commit, self.root / r)]
        with self._repo() as repo:
            if present:
                self._write(repo, "restore", f"--source={commit}", "--worktree", "--", *present)
        for rel in set(rels) - set(present):
            with contextlib.suppress(FileNotFoundError):
                (self.root / rel).unlink()

    # ------------------------------------------------------------------ keep helpers

    def _keep_files(self, keep: Sequence[Path]) -> list[str]:
        files: list[str] = []
        for rel in self._rels(keep):
            path = self.root / rel
            if path.is_file() and not path.is_symlink():
                files.append(rel)
            elif path.is_dir():
                files += [
                    p.relative_to(self.root).as_posix()
                    for p in sorted(path.rglob("*"))
                    if p.is_file() and not p.is_symlink()
                ]
        return files

    def _read_keep(self, keep: Sequence[Path]) -> dict[str, tuple[bytes, int]]:
        saved: dict[str, tuple[bytes, int]] = {}
        for rel in self._keep_files(keep):
            path = self.root / rel
            saved[rel] = (path.read_bytes(), path.stat().st_mode & 0o7777)
        return saved

    def _restore_keep(self, keep: Sequence[Path], saved: dict[str, tuple[bytes, int]]) -> None:
        for rel in self._keep_files(keep):
            if rel not in saved:  # the reset brought back a file that was not there
                (self.root / rel).unlink()
        for rel, (data, mode) in saved.items():
            path = self.root / rel
            if path.is_file() and path.read_bytes() == data:
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            fsutil.atomic_write_bytes(path, data, fault="vcs.keep")
            os.chmod(path, mode)

    def _prune_empty_parents(self, folder: Path) -> None:
        while folder != self.root and self.root in folder.parents:
            try:
                folder.rmdir()
            except OSError:
                return
            folder = folder.parent
