"""`GitRepo`: one git working tree, the engine's only way to git.

A session's commit is `commit-tree` of the tree its tests ran against (`trees.py`), with
no hook, no signing program and no fsmonitor: the executor has already verified the
session, and a program run now could commit something nobody verified or approved.
"""

from __future__ import annotations

import re
from pathlib import Path

from executor import errors
from executor.vcs.copies import GitCopies
from executor.vcs.lanes import GitLanes
from executor.vcs.plumbing import _git_subprocess
from executor.vcs.rollback import GitRollback
from executor.vcs.shown import GitShown

_TRAILER_KEY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*$")


def with_trailers(message: str, trailers: dict[str, str]) -> str:
    """`message` as a commit carries it: trimmed lines, then the `Key: value` trailers
    in a final paragraph (what `commit_session` writes, and a preview shows)."""
    body = "\n".join(line.rstrip() for line in message.strip().splitlines())
    if trailers:
        body += "\n\n" + "\n".join(f"{k}: {v}" for k, v in trailers.items())
    return body + "\n"


class GitRepo(GitRollback, GitLanes, GitCopies, GitShown):
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
            raise errors.NotARepositoryError(
                f"{start.resolve()} is not inside a git repository "
                "(run `git init` there, or pass --repo)",
                path=start,
            )
        return cls(Path(proc.stdout.strip()))

    def commit_session(self, tree: str, message: str, *, trailers: dict[str, str],
                       flags: dict[str, str] | None = None) -> str:  # fmt: skip
        """Commit exactly `tree` on the current branch with `trailers` in a final
        paragraph (`Key: value` lines); return the new SHA. A tree equal to HEAD's raises
        VerificationFailedError: a session that changed nothing is not done."""
        for key, value in trailers.items():
            if not _TRAILER_KEY_RE.match(key) or "\n" in value or "\r" in value:
                raise ValueError(f"invalid commit trailer {key!r}: {value!r}")
        head = self.head()
        if self.tree_of(head) == tree:
            raise errors.VerificationFailedError(
                f"nothing to commit in {self.root}: the session's tree has no changes "
                "besides the executor's own files"
            )
        return self.commit_tree(tree, with_trailers(message, trailers), parent=head, flags=flags)
