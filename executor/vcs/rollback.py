"""Rollback that never loses work (RELIABILITY P18): snapshot everything under a backup
ref first, refuse to drop a commit that is not safe to drop, keep the executor's files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from executor import errors
from executor.vcs.trees import NO_PROGRAMS, GitTrees

#: Backup refs made before any destructive operation (RELIABILITY P18).
BACKUP_REF_PREFIX = "refs/executor/backup/"

_LABEL_UNSAFE_RE = re.compile(r"[^A-Za-z0-9._-]+")


class GitRollback(GitTrees):
    def snapshot(self, label: str, *, exclude: Sequence[Path] = ()) -> str:
        """Back up the whole worktree (tracked + untracked, not ignored, not `exclude`d)
        under a ref whose parent is HEAD; return the ref. Recorded as `record_tree` does:
        the person's index and its flags play no part, so a file marked assume-unchanged
        is backed up as it is on disk (P18)."""
        self.ensure_not_busy()
        head = self.resolve("HEAD")
        parents = ["-p", head] if head else []
        msg = f"executor backup: {label}\n\nWorktree snapshot taken before a destructive step."
        tree = self.record_tree(exclude=exclude).tree
        sha = self._out(*NO_PROGRAMS, "commit-tree", "--no-gpg-sign", tree, *parents, "-m", msg)
        return self.keep(label, sha.strip(), msg.splitlines()[0])

    def keep(self, label: str, commit: str, why: str = "") -> str:
        """A new backup ref (`refs/executor/backup/<label>-<time>`) holding `commit`;
        return it. Created only, never moved: an existing backup is never replaced."""
        safe = _LABEL_UNSAFE_RE.sub("-", label).strip(".-") or "snapshot"
        from datetime import datetime, timezone  # only here: not on the host's step

        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        ref = f"{BACKUP_REF_PREFIX}{safe}-{stamp}"
        n = 1
        while self.resolve(ref) is not None:
            n += 1
            ref = f"{BACKUP_REF_PREFIX}{safe}-{stamp}-{n}"
        # zero old value: create only, never move an existing backup
        self._run("update-ref", "-m", why or f"executor backup: {label}", ref, commit, "0" * 40)
        return ref

    def commit_of(self, tree: str, parents: Sequence[str], message: str) -> str:
        """A commit object holding `tree` on `parents`, on no branch (no hook, no signing
        program): what a ref keeps, or what a replay starts from."""
        flags = [arg for parent in parents for arg in ("-p", parent)]
        return self._out(*NO_PROGRAMS, "commit-tree", "--no-gpg-sign", tree, *flags, "-F", "-",
                         input_text=message).strip()  # fmt: skip

    def set_ref(self, ref: str, commit: str) -> None:
        """Point `ref` (one of ours, under refs/executor/) at `commit`, only if it still
        holds what it held when read here (compare-and-swap; created when absent)."""
        old = self.resolve(ref) or "0" * 40
        self._run("update-ref", "-m", f"executor: {ref}", ref, commit, old)

    def drop_ref(self, ref: str) -> None:
        """Delete `ref` (one of ours) if it exists."""
        old = self.resolve(ref)
        if old is not None:
            self._run("update-ref", "-d", ref, old)

    def roll_back(self, base: str, paths: Sequence[str], *, flags: dict[str, str]) -> str:
        """Return the session's `paths` to what `base` holds (removing the ones it lacks)
        and the branch to `base`, after a backup of everything; return the backup ref.
        Nothing else is touched: a person's own files stay as they are. `flags`: the
        person's index flags, kept on the paths the rollback did not change. Refuses with
        StaleWorkspaceError when `base` is not an ancestor of HEAD."""
        self.ensure_not_busy()
        target = self.resolve(base)
        head = self.head()
        if target is None or not self.is_ancestor(target, head):
            raise errors.StaleWorkspaceError(
                f"refusing to roll back to {base}: it is not a commit on the current "
                f"history of {self.root} (HEAD moved, or the commit is unknown)"
            )
        ref = self.snapshot(f"reset-to-{target[:12]}")
        touched = sorted({*paths, *self.tree_diff(target, head)})
        if head != target:
            self._run(*NO_PROGRAMS, "update-ref", "-m", "executor: roll back", "HEAD", target, head)
        self.put_back(self.tree_of(target), touched)
        for rel in touched:
            self._prune_empty_parents((self.root / rel).parent)
        self.reindex(target, flags=flags, changed=set(touched))
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
        """Undo commits made since `base` but keep their changes in the worktree (the
        branch goes back, after a backup); return the folded SHAs. `base` must be an
        ancestor."""
        folded = [c.sha for c in self.commits_since(base)]
        if folded:
            self.snapshot(f"fold-{folded[0][:12]}")
            self._run(*NO_PROGRAMS, "update-ref", "-m", "executor: fold", "HEAD", base,
                      folded[0])  # fmt: skip
            self.reindex(base, flags=self.index_flags(), changed=set())
        return folded

    def restore_paths(self, commit: str, paths: Sequence[Path]) -> None:
        """Put `paths` back as they are in `commit` (removed when `commit` lacks them);
        the index is left as it was."""
        self.put_back(self.tree_of(commit), self._rels(paths))

    def _prune_empty_parents(self, folder: Path) -> None:
        while folder != self.root and self.root in folder.parents:
            try:
                folder.rmdir()
            except OSError:
                return
            folder = folder.parent
