"""`GitRepo`: one git working tree, the engine's only way to git.

Commits run no git hooks (see `GitBase._write`): the executor has already verified the
session by running its tests, and a hook that rewrote files or the message would commit
something nobody verified or approved.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from executor import errors
from executor.vcs.plumbing import _git_subprocess, _split_z, _under
from executor.vcs.rollback import GitRollback

_TRAILER_KEY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*$")


class GitRepo(GitRollback):
    """One git working tree, addressed by its top-level folder."""

    @classmethod
    def discover(cls, start: Path) -> GitRepo:
        """The repository containing `start` (a file or folder)."""
        start = Path(start)
        if not start.exists():
            raise errors.PathNotFoundError(f"{start} does not exist", path=start)
        folder = start if start.is_dir() else start.parent
        proc = _git_subprocess(["rev-parse", "--show-toplevel"], cwd=folder)
        if proc.returncode != 0 or not proc.stdout.strip():
            raise errors.PathNotFoundError(
                f"{start.resolve()} is not inside a git repository "
                "(run `git init` there, or pass --repo)",
                path=start,
            )
        return cls(Path(proc.stdout.strip()))

    def commit_all(
        self, message: str, *, trailers: dict[str, str], ignore: Sequence[Path] = ()
    ) -> str:
        """Stage every change except `ignore`d paths and commit; return the new SHA.

        Trailers go in a final paragraph as `Key: value` lines. Nothing to commit
        raises VerificationFailedError: a session that changed nothing is not done.
        """
        for key, value in trailers.items():
            if not _TRAILER_KEY_RE.match(key) or "\n" in value or "\r" in value:
                raise ValueError(f"invalid commit trailer {key!r}: {value!r}")
        self.ensure_not_busy()
        skip = self._rels(ignore)
        body = message.strip()
        if trailers:
            body += "\n\n" + "\n".join(f"{k}: {v}" for k, v in trailers.items())
        with self._repo() as repo:
            self._write(repo, "add", "-A", "--", *self._exclude_specs(self._visible(skip)))
            staged = _split_z(self._out("diff", "--cached", "--name-only", "-z", "--no-renames"))
            staged_ignored = [f for f in staged if _under(f, skip)]
            if staged_ignored:  # staged before we came: keep them out of the session commit
                if self.resolve("HEAD") is None:
                    self._write(repo, "rm", "-q", "--cached", "--", *staged_ignored)
                else:
                    self._write(repo, "reset", "-q", "HEAD", "--", *staged_ignored)
            if self._run("diff", "--cached", "--quiet", check=False).returncode == 0:
                raise errors.VerificationFailedError(
                    f"nothing to commit in {self.root}: the worktree has no changes "
                    "besides the executor's own files"
                )
            self._write(repo, "commit", "-q", "--no-verify", "--cleanup=whitespace", "-m", body)
        return self.head()
