"""The exception tree. Exceptions carry data and never print; only the CLI talks.

ExecutorError                      internal error unless a subclass says otherwise
├── TransitionNotAllowed           illegal session state transition (a bug)
├── AgentInvocationError           error/timeout/cancelled response (seed 000 API)
├── RunStopped                     a controlled stop that is not a failure of ours
│   ├── NeedAgent  (also SystemExit(42): scripts that don't catch it exit 42)
│   ├── Paused
│   └── UserCancelled
└── UserError                      expected, actionable; str() is the message shown
    ├── PathNotFoundError
    ├── PlanInvalidError
    ├── InvalidResponseError
    ├── CorruptStateError
    ├── LockedError
    ├── StaleWorkspaceError
    │   └── DefinitionDriftError
    ├── StorageError
    ├── VerificationFailedError
    ├── AgentUnavailableError
    ├── GitBusyError
    ├── DirtyWorktreeError
    ├── NothingToResumeError
    ├── BlockedError
    ├── AnalysisFailedError        template-create: nothing to analyse (exit 3)
    ├── TemplateGenerationError    template-create: a component could not be made (exit 4)
    ├── TemplateValidationError    a template fails its checks, e.g. the round trip (exit 5)
    ├── TemplateSaveError          writing a template or a rendered project failed (exit 6)
    │   └── OverwriteRefusedError  the destination exists and overwriting was not asked for
    └── TemplateValueError         a placeholder value given by the user is not valid
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from executor.exitcodes import ExitCode


class ExecutorError(Exception):
    exit_code: ExitCode = ExitCode.INTERNAL_ERROR


class TransitionNotAllowed(ExecutorError):
    def __init__(self, event: str, state: str) -> None:
        super().__init__(f"transition {event!r} is not allowed from state {state!r}")
        self.event = event
        self.state = state


class AgentInvocationError(ExecutorError):
    """An agent answered with status error/timeout/cancelled/invalid_request."""

    exit_code = ExitCode.AGENT_UNAVAILABLE

    def __init__(
        self,
        message: str,
        *,
        status: str = "error",
        error_type: str | None = None,
        error_message: str | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        self.error_message = error_message
        self.request_id = request_id

    @property
    def retryable(self) -> bool:
        """Transient failures are retried; parse/validation/not-found ones are not."""
        if self.status in {"cancelled", "invalid_request"}:
            return False
        return self.error_type not in {"PARSE_ERROR", "VALIDATION_ERROR", "AGENT_NOT_FOUND"}


class RunStopped(ExecutorError):
    """A run ended on purpose (waiting for an agent, paused, cancelled)."""


class NeedAgent(RunStopped, SystemExit):
    """A request file was written; the host must answer it and re-run with --resume.

    Subclasses SystemExit(42) so a plain script calling the bridge exits 42 even if it
    never catches this; the CLI catches it and prints one line for the host.
    """

    exit_code = ExitCode.NEED_AGENT

    def __init__(
        self,
        *,
        request_file: Path,
        response_file: Path,
        request_id: str,
        agent_name: str,
        attempt: int = 1,
        prompt_file: Path | None = None,
        resume_hint: str | None = None,
    ) -> None:
        SystemExit.__init__(self, int(ExitCode.NEED_AGENT))
        self.request_file = request_file
        self.response_file = response_file
        self.request_id = request_id
        self.agent_name = agent_name
        self.attempt = attempt
        self.prompt_file = prompt_file
        self.resume_hint = resume_hint

    def as_dict(self) -> dict[str, Any]:
        return {
            "exit_code": int(ExitCode.NEED_AGENT),
            "status": "need_agent",
            "agent_name": self.agent_name,
            "request_id": self.request_id,
            "attempt": self.attempt,
            "request_file": str(self.request_file),
            "response_file": str(self.response_file),
            "prompt_file": str(self.prompt_file) if self.prompt_file else None,
            "resume": self.resume_hint,
        }

    def __str__(self) -> str:
        who = "ask the person" if self.agent_name == "human" else f"run agent {self.agent_name!r}"
        brief = f" (brief: {self.prompt_file})" if self.prompt_file else ""
        then = (
            f", then re-run: {self.resume_hint}"
            if self.resume_hint
            else ", then re-run with --resume"
        )
        return (
            f"NEED_AGENT: {who} for request {self.request_id} in {self.request_file}{brief}; "
            f"write the answer with `executor bridge respond --dir {self.request_file.parent}`"
            f"{then}"
        )


class Paused(RunStopped):
    exit_code = ExitCode.PAUSED


class UserCancelled(RunStopped):
    exit_code = ExitCode.USER_CANCELLED


class UserError(ExecutorError):
    """Expected and actionable. `str()` is the whole message the user sees."""

    exit_code: ExitCode = ExitCode.USAGE_ERROR


class PathNotFoundError(UserError):
    exit_code = ExitCode.PATH_NOT_FOUND

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(message)
        self.path = path


class PlanInvalidError(UserError):
    exit_code = ExitCode.PLAN_INVALID

    def __init__(self, message: str, *, path: Path | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.line = line


class InvalidResponseError(UserError):
    exit_code = ExitCode.INVALID_RESPONSE

    def __init__(self, message: str, *, path: Path, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.path = path
        self.problems = list(problems)


class CorruptStateError(UserError):
    exit_code = ExitCode.CORRUPT_STATE

    def __init__(
        self,
        message: str,
        *,
        path: Path,
        quarantined: Path | None = None,
        backup: Path | None = None,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.quarantined = quarantined
        self.backup = backup


class LockedError(UserError):
    exit_code = ExitCode.LOCKED

    def __init__(self, message: str, *, pid: int | None, host: str | None) -> None:
        super().__init__(message)
        self.pid = pid
        self.host = host


class StaleWorkspaceError(UserError):
    exit_code = ExitCode.STALE_WORKSPACE


class DefinitionDriftError(StaleWorkspaceError):
    pass


class StorageError(UserError):
    exit_code = ExitCode.STORAGE_ERROR

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(message)
        self.path = path


class VerificationFailedError(UserError):
    exit_code = ExitCode.VERIFICATION_FAILED


class AgentUnavailableError(UserError):
    exit_code = ExitCode.AGENT_UNAVAILABLE


class GitBusyError(UserError):
    exit_code = ExitCode.GIT_BUSY


class DirtyWorktreeError(UserError):
    exit_code = ExitCode.DIRTY_WORKTREE

    def __init__(self, message: str, *, files: Sequence[str]) -> None:
        super().__init__(message)
        self.files = list(files)


class NothingToResumeError(UserError):
    exit_code = ExitCode.NOTHING_TO_RESUME


class BlockedError(UserError):
    exit_code = ExitCode.BLOCKED


class AnalysisFailedError(UserError):
    exit_code = ExitCode.ANALYSIS_FAILED

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(message)
        self.path = path


class TemplateGenerationError(UserError):
    exit_code = ExitCode.GENERATION_FAILED

    def __init__(self, message: str, *, path: Path, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.path = path
        self.problems = list(problems)


class TemplateValidationError(UserError):
    """`problems` lists every failed check; the message shows the first few."""

    exit_code = ExitCode.VALIDATION_FAILED

    def __init__(self, message: str, *, path: Path, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.path = path
        self.problems = list(problems)


class TemplateSaveError(UserError):
    exit_code = ExitCode.SAVE_FAILED

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(message)
        self.path = path


class OverwriteRefusedError(TemplateSaveError):
    """`conflicts`: the existing files (or the folder itself) that would be overwritten."""

    def __init__(self, message: str, *, path: Path, conflicts: Sequence[str] = ()) -> None:
        super().__init__(message, path=path)
        self.conflicts = list(conflicts)


class TemplateValueError(UserError):
    """A `--set NAME=VALUE` names no placeholder, or its value does not fit the pattern."""

    def __init__(self, message: str, *, name: str) -> None:
        super().__init__(message)
        self.name = name
