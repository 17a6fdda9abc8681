"""Git for sessions that run side by side (docs/parallel.md): a worktree per session on a
branch of its own, a session's commit replayed onto the main branch's tip, and the
fast-forward that brings it there.

A session's commit is replayed with `git merge-tree --write-tree` (a three-way merge of
the tip and the commit over their merge base, written as a tree, touching no worktree
and no index) and committed with `commit-tree` under the session commit's own message
and author: the result is the commit a rebase would make, made with no hook, no signing
program and no fsmonitor, like every commit of ours (`trees.NO_PROGRAMS`). The main
branch only ever moves by a fast-forward in its own checkout (`git merge --ff-only`),
which refuses to overwrite a person's changes there.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from executor import errors
from executor.vcs.plumbing import _git_subprocess
from executor.vcs.trees import GITLINK, NO_PROGRAMS, GitTrees

#: Lines git writes around a conflict in a file it could not merge.
_MARKERS = ("<<<<<<< ", ">>>>>>> ")


@dataclass(frozen=True)
class Worktree:
    """One entry of `git worktree list`: its folder, HEAD and branch (None: detached)."""

    path: Path
    head: str | None
    branch: str | None


@dataclass
class Replayed:
    """A commit replayed onto a tip: the merged tree (conflicted files hold git's
    markers, or one side's version where git writes none: a binary file, a file one
    side deleted), the files that conflict (empty: a clean replay), and git's own word
    on each conflict (`content: Merge conflict in a.bin`, `modify/delete: ...`)."""

    tree: str
    conflicts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


#: git's conflict message lines (`CONFLICT (modify/delete): old.py deleted in ...`).
_CONFLICT_RE = re.compile(r"^CONFLICT \((?P<kind>[^)]*)\): (?P<what>.*)$")
_SHA_RE = re.compile(r"\b([0-9a-f]{12})[0-9a-f]{28}\b")


class GitLanes(GitTrees):
    # -- worktrees --------------------------------------------------------------------------
    def worktrees(self) -> list[Worktree]:
        """Every worktree of the repository (the main one first), as git lists them."""
        out = self._out("worktree", "list", "--porcelain")
        found: list[Worktree] = []
        for block in out.strip().split("\n\n"):
            fields = dict(line.partition(" ")[::2] for line in block.splitlines() if line)
            if "worktree" in fields:
                branch = fields.get("branch", "").removeprefix("refs/heads/") or None
                found.append(Worktree(Path(fields["worktree"]), fields.get("HEAD"), branch))
        return found

    def add_worktree(self, path: Path, branch: str, base: str) -> None:
        """A new worktree at `path` on `branch`: made at `base` when the branch does not
        exist, else checked out as it is (a lane whose folder was lost)."""
        self.ensure_not_busy()
        path.parent.mkdir(parents=True, exist_ok=True)
        if self.resolve(f"refs/heads/{branch}") is None:
            args = ["worktree", "add", "-q", "--no-track", "-b", branch, str(path), base]
        else:
            args = ["worktree", "add", "-q", str(path), branch]
        self._run(*NO_PROGRAMS, *args)

    def remove_worktree(self, path: Path, *, force: bool = False) -> None:
        """Remove a worktree: git refuses one with changes or untracked files unless
        `force` (the caller found nothing in it but caches)."""
        self._run(*NO_PROGRAMS, "worktree", "remove", *(["--force"] if force else []), str(path))

    def attach(self, branch: str) -> None:
        """Put this worktree's HEAD on `branch` again (after it was detached to show a
        conflict on the main tip); the files and the index stay as they are."""
        self._run("symbolic-ref", "HEAD", f"refs/heads/{branch}")

    def add_detached(self, path: Path, commit: str) -> None:
        """A new worktree at `path`, its HEAD detached at `commit` (no branch)."""
        self.ensure_not_busy()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._run(*NO_PROGRAMS, "worktree", "add", "-q", "--detach", str(path), commit)

    def detach(self, commit: str, *, force: bool = False) -> None:
        """Move HEAD, the index and the files to `commit`, detached. `force`: whatever
        the worktree holds is thrown away, untracked files too (the executor's own
        integration worktree, where nobody works)."""
        self.ensure_not_busy()
        self._run(*NO_PROGRAMS, "checkout", "-q", *(["--force"] if force else []), "--detach",
                  commit)  # fmt: skip
        if force:
            self._run("clean", "-q", "-f", "-d")

    def check_out_submodules(self, source: Path) -> list[str]:
        """Each submodule HEAD holds, checked out here at the commit HEAD names, cloned
        from the same submodule in the checkout at `source` (a local clone that shares
        its objects: no network) when it is not here yet. Returns those it could not
        (not checked out in `source`, or without that commit there)."""
        listing = self._out("ls-tree", "-r", "-z", "--full-tree", "HEAD").split("\0")
        links = [
            (e.split("\t", 1)[1], e.split()[2]) for e in listing if e.startswith(f"{GITLINK} ")
        ]
        missed = []
        for rel, sha in links:
            here, there = self.root / rel, Path(source) / rel
            if not (here / ".git").exists():
                if not (there / ".git").exists():
                    missed.append(rel)
                    continue
                here.mkdir(parents=True, exist_ok=True)
                _git_subprocess(["clone", "-q", "--shared", str(there), str(here)], cwd=self.root)
            sub = GitLanes(here)
            if sub.resolve("HEAD") == sha:
                continue
            if sub.resolve(sha) is None:
                missed.append(rel)
                continue
            sub._run(*NO_PROGRAMS, "checkout", "-q", "--detach", sha)
        return missed

    def prune_worktrees(self) -> None:
        """Forget worktrees whose folder is gone (git's own bookkeeping only)."""
        self._run("worktree", "prune")

    # -- replaying a session's commit onto a tip --------------------------------------------
    def replay(self, commit: str, onto: str) -> Replayed:
        """`commit` merged onto `onto` over their merge base, as a tree (nothing on disk
        changes); the conflicting files as git lists them, and its messages about them."""
        proc = self._run("merge-tree", "--write-tree", "--name-only", onto, commit, check=False)
        tree, _, rest = proc.stdout.partition("\n")
        if proc.returncode not in (0, 1) or not tree.strip():
            raise errors.GitCommandError(["merge-tree", onto, commit], proc.returncode, proc.stderr)
        listed, _, messages = rest.partition("\n\n")
        found = [m for line in messages.splitlines() if (m := _CONFLICT_RE.match(line))]
        notes = [f"{m['kind']}: " + _SHA_RE.sub(r"\1", m["what"]).strip() for m in found]
        conflicts = sorted({p for p in listed.splitlines() if p.strip()})
        return Replayed(tree.strip(), conflicts, notes if conflicts else [])

    def commit_as(self, tree: str, *, parent: str, like: str) -> str:
        """Commit `tree` on `parent` with the message and author of commit `like` (the
        session's commit, replayed: its trailers find it again after a crash)."""
        fmt = self._out("log", "-1", "--format=%an%x00%ae%x00%aI%x00%B", like)
        name, email, date, message = fmt.split("\0", 3)
        env = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_AUTHOR_DATE": date}
        return self._out(*NO_PROGRAMS, "commit-tree", "--no-gpg-sign", tree, "-p", parent,
                         "-F", "-", env=env, input_text=message).strip()  # fmt: skip

    def commits_between(self, old: str, new: str) -> list[str]:
        """The commits `new` has that `old` has not (`old..new`), newest first."""
        return self._out("rev-list", f"{old}..{new}").split()

    def parent_of(self, commit: str) -> str | None:
        """A commit's first parent (None for a root commit)."""
        return self.resolve(f"{commit}^")

    def move_branch(self, branch: str, new: str, old: str) -> None:
        """Point `branch` at `new`, only if it still points at `old` (compare-and-swap)."""
        self._run(*NO_PROGRAMS, "update-ref", "-m", "executor: lane", f"refs/heads/{branch}",
                  new, old)  # fmt: skip

    def delete_branch(self, branch: str, expected: str) -> None:
        """Delete `branch` if it still points at `expected`."""
        self._run(*NO_PROGRAMS, "update-ref", "-d", f"refs/heads/{branch}", expected)

    def check_out(self, commit: str) -> None:
        """Move this worktree's branch and files from HEAD to `commit`, keeping nothing
        else (`git reset --keep`: refused when it would overwrite a change)."""
        self.ensure_not_busy()
        # our commits' index is read from the tree, with no file times: refresh them first
        self._run("update-index", "-q", "--refresh", check=False)
        self._run(*NO_PROGRAMS, "reset", "-q", "--keep", commit)

    def fast_forward(self, commit: str, *, tip: str) -> None:
        """Bring this checkout's branch from `tip` to `commit`, its files too. Refused
        (StaleWorkspaceError) when HEAD is not `tip` any more, or a change of the
        person's would be overwritten (DirtyWorktreeError, nothing changed)."""
        self.ensure_not_busy()
        head = self.head()
        if head != tip:
            raise errors.StaleWorkspaceError(
                f"the branch in {self.root} moved from {tip[:12]} to {head[:12]} meanwhile"
            )
        in_the_way = self._in_the_way(head, commit)
        if in_the_way:
            raise errors.DirtyWorktreeError(
                f"the fast-forward to {commit[:12]} would overwrite "
                f"{', '.join(in_the_way[:10])} in {self.root}: the commit holds "
                f"{'it' if len(in_the_way) == 1 else 'them'}, and git ignores or does not "
                f"track {'it' if len(in_the_way) == 1 else 'them'} there (a file of yours, "
                f"such as a .env); move {'it' if len(in_the_way) == 1 else 'them'} away "
                f"(or commit it), then run the same command again (nothing was changed)",
                files=in_the_way,
            )
        proc = self._run(*NO_PROGRAMS, "merge", "--ff-only", "-q", commit, check=False)
        if proc.returncode != 0:
            if "would be overwritten" in proc.stderr:
                files = [ln.strip() for ln in proc.stderr.splitlines() if ln.startswith("\t")]
                raise errors.DirtyWorktreeError(
                    f"{self.root} has changes the fast-forward to {commit[:12]} would "
                    f"overwrite: {', '.join(files) or proc.stderr.strip()}; commit or stash "
                    f"them, then run the same command again (nothing was changed)",
                    files=files,
                )
            raise errors.GitCommandError(["merge", "--ff-only", commit], proc.returncode,
                                         proc.stderr)  # fmt: skip

    def _in_the_way(self, head: str, commit: str) -> list[str]:
        """The files `commit` adds over `head` that are in the worktree already, not as
        the commit holds them: git overwrites such a file without a word when it ignores
        it (refusing only the ones it does not)."""
        added = self._out("diff-tree", "-r", "-z", "--no-renames", "--diff-filter=A",
                          "--name-only", head, commit).split("\0")  # fmt: skip
        there = [p for p in added if p and os.path.lexists(self.root / p)]
        if not there:
            return []
        held = dict(zip(there, self._out("rev-parse", *(f"{commit}:{p}" for p in there)).split(),
                        strict=True))  # fmt: skip
        now = self.blobs_of(there)
        return [p for p in there if now.get(p) != held[p]]

    # -- conflicts --------------------------------------------------------------------------
    def conflict_markers(self, paths: Sequence[str]) -> list[str]:
        """The files among `paths` that still hold a conflict marker line."""
        left = []
        for rel in paths:
            with contextlib.suppress(OSError):
                text = (self.root / rel).read_text("utf-8", "replace")
                if any(line.startswith(_MARKERS) for line in text.splitlines()):
                    left.append(rel)
        return left
