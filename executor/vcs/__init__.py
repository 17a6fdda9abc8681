"""Git access for the engine: the ONLY package that imports git (GitPython), lazily.

Cheap reads (HEAD, branch, status, ancestry, log) run the `git` CLI through
`subprocess` (`reads.py`): the exit-42 resume path must not pay GitPython's import.
Operations that write history or the worktree (commit, snapshot, reset) go through
GitPython, imported inside those methods (`repo.py`, `rollback.py`).

Paths the executor owns (its state, request/response and brief files beside the plan)
are passed as `ignore` / `keep`: they never make the worktree dirty, are never swept
into a commit and survive a rollback.
"""

from executor.vcs.repo import GitRepo
from executor.vcs.rollback import BACKUP_REF_PREFIX

__all__ = ["BACKUP_REF_PREFIX", "GitRepo"]
