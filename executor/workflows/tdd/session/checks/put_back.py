"""Plan and settings files an agent changed, put back: both are read-only to agents (the
settings decide which command tests the work)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from executor.workflows.tdd.session.context import PutBack
from executor.workflows.tdd.trust import tampering

if TYPE_CHECKING:
    from executor.engine.layout import Layout
    from executor.vcs import GitRepo
    from executor.workflows.tdd.record.session import SessionRecord


def restore_plan(repo: GitRepo, layout: Layout, rec: SessionRecord, plan: Path) -> PutBack:
    """Plan files that differ from the session's last recorded tree are put back as that
    tree holds them, and the executor's settings files whose meaning differs from what
    they were before the agent step (`note_settings`) as they were (repo-relative), after
    a backup of the worktree. The plan and the executor's settings are read-only to
    agents: the settings decide which command tests the work (`test_command_map`)."""
    touched: list[str] = []
    backup = ""
    if rec.tree:
        now = repo.record_tree(exclude=layout.owned()).tree
        touched = tampering.plan_paths(plan, repo.root, repo.tree_diff(rec.tree, now))
        if touched:
            backup = repo.snapshot("plan-put-back", exclude=layout.owned())
            repo.put_back(rec.tree, touched)
    # the settings are noted as each agent call starts: no edit of a person's is among them
    return PutBack(touched + restore_settings(repo, rec.settings), backup)


def note_settings(repo: GitRepo) -> dict[str, str]:
    """The executor's settings files as they are (blob ids; "-": absent)."""
    from executor.project_config import FILES

    return repo.blobs_of(list(FILES))


def restore_settings(repo: GitRepo, before: dict[str, str]) -> list[str]:
    """Settings files (`note_settings`) whose meaning changed since `before`, put back;
    returns them. Git may ignore them, so they are compared by content, not by tree."""
    from executor.project_config import settings_meaning

    def meaning(path: str, blob: str) -> str:
        return settings_meaning(path, None if blob == "-" else repo.blob(blob))

    now = note_settings(repo) if before else {}
    touched = [
        path
        for path, blob in before.items()
        if now.get(path, blob) != blob and meaning(path, blob) != meaning(path, now[path])
    ]
    for path in touched:
        repo.put_blob(path, before[path])
    return touched
