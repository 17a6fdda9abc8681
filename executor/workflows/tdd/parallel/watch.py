"""The person's checkout, watched while sessions work in worktrees inside it, where no
sandbox keeps them out of it.

A session's worktree has a `.git` file, so code that walks up to the first `.git`
folder finds the person's checkout and writes there. Where bubblewrap works the
checkout is read-only to a session (`child.lane_sandbox`); where it does not, the
checkout is recorded before sessions work and compared after each of their runs and
integrations: what changed is backed up under `refs/executor/backup/...`, then put
back (docs/parallel.md, "Isolation").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from executor.workflows.tdd.trust.verdicts import describe

if TYPE_CHECKING:
    from executor.vcs import GitRepo


class Watch:
    """The person's checkout as it was before sessions worked (and as each check left
    it)."""

    def __init__(self, repo: GitRepo, exclude: Sequence[Path], say: Callable[[str], None]):
        self.repo = repo
        self.exclude = list(exclude)
        self.say = say
        self.head = repo.head()
        self.tree = self._record()

    def _record(self) -> str:
        return self.repo.record_tree(exclude=self.exclude).tree

    def check(self) -> list[str]:
        """Put back what changed in the checkout since the last look that the branch's
        own moves (an integration: a fast-forward there) do not explain, after a backup;
        the files put back."""
        repo = self.repo
        head, now = repo.head(), self._record()
        moved = set(repo.tree_diff(self.head, head)) if head != self.head else set()
        changed = [p for p in repo.tree_diff(self.tree, now) if p not in moved]
        if changed:
            backup = repo.snapshot("checkout-during-sessions", exclude=self.exclude)
            repo.put_back(self.tree, changed)
            now = self._record()
            self.say(
                f"your checkout {repo.root} changed while sessions worked in their worktrees "
                f"({describe(changed)}): with no sandbox here, a session's test run or agent "
                f"may have written it (a worktree's .git is a file: code that looks for the "
                f"first .git folder above it finds your checkout). Put back as it was; what "
                f"was there is kept in {backup} (git checkout {backup} -- <file>)"
            )
        self.head, self.tree = head, now
        return changed
