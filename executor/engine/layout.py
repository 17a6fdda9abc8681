"""Every file the executor keeps in one run folder, named in one place.

A plan run's folder is the plan folder (for a single-file plan, the file's folder);
template-create's is the analysed codebase. Every name starts with `.agent-` (or the
state's own name), so one git exclude pattern hides them all: they never make the
worktree dirty, never enter a commit and survive a rollback.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from executor.runfiles import BRIEFS_DIR, REQUEST_NAME, RESPONSE_NAME

#: The pattern (relative to the run folder) that hides every executor file from git.
HIDDEN_PATTERN = ".agent-*"
#: The agent process running now (`executor.engine.running`).
RUNNING_NAME = ".agent-running.json"


@dataclass(frozen=True)
class Layout:
    folder: Path
    state_name: str = ".agent-state.json"

    @property
    def state(self) -> Path:
        return self.folder / self.state_name

    @property
    def backup(self) -> Path:
        return self.folder / (self.state_name + ".bak")

    @property
    def lock(self) -> Path:
        return self.folder / (self.state_name.removesuffix(".json") + ".lock")

    @property
    def request(self) -> Path:
        return self.folder / REQUEST_NAME

    @property
    def response(self) -> Path:
        return self.folder / RESPONSE_NAME

    @property
    def briefs(self) -> Path:
        """Agent briefs: `<key>.md`, and the request JSON `--agent-command` gets."""
        return self.folder / BRIEFS_DIR

    @property
    def logs(self) -> Path:
        """Transcripts of agent calls and long checkpoint content (diffs, test files)."""
        return self.folder / ".agent-logs"

    @property
    def archive(self) -> Path:
        """Finished sessions' whole records (`session-<N>.json`), written once each."""
        return self.folder / ".agent-sessions"

    @property
    def plan_cache(self) -> Path:
        return self.folder / ".agent-plan-cache.json"

    @property
    def reports(self) -> Path:
        """The run's reports (`executor report`): HTML and markdown."""
        return self.folder / ".agent-reports"

    @property
    def pinned(self) -> Path:
        """What the run pinned before any agent step (`executor.pinning`)."""
        return self.folder / ".agent-pinned.json"

    @property
    def running(self) -> Path:
        """The agent process running now (`executor.engine.running`)."""
        return self.folder / RUNNING_NAME

    def owned(self) -> list[Path]:
        """Every path the executor writes here: kept out of commits, kept by rollbacks."""
        return [
            self.state,
            self.backup,
            self.lock,
            self.request,
            self.response,
            self.briefs,
            self.logs,
            self.archive,
            self.plan_cache,
            self.pinned,
            self.running,
            self.reports,
        ]
