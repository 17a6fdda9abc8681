"""The exception tree. Exceptions carry data and never print; only the CLI talks.

ExecutorError                      internal error unless a subclass says otherwise
├── TransitionNotAllowed           a workflow table has no edge for (step, outcome): a bug
├── GitCommandError                a git command failed unexpectedly
├── DataError (also ValueError)    data did not fit a model; lists `location: problem`
├── AgentInvocationError           error/timeout/cancelled response (seed 000 API)
├── RunStopped                     a controlled stop: NeedAgent (exit 42), Paused, ...
└── UserError                      expected, actionable; str() is the message shown

The whole tree, with each error's exit code, is in docs/exit-codes.md, "The error tree".
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from executor.exitcodes import ExitCode


class ExecutorError(Exception):
    exit_code: ExitCode = ExitCode.INTERNAL_ERROR


class TransitionNotAllowed(ExecutorError):
    def __init__(self, workflow: str, step: str, outcome: str) -> None:
        super().__init__(
            f"workflow {workflow!r} has no transition from step {step!r} on outcome {outcome!r}"
        )
        self.workflow = workflow
        self.step = step
        self.outcome = outcome


class GitCommandError(ExecutorError):
    """A git command failed in a way we did not expect (an internal error)."""

    def __init__(self, args: Sequence[str], returncode: int, stderr: str) -> None:
        detail = stderr.strip() or "(no output)"
        super().__init__(f"`git {' '.join(args)}` failed with exit code {returncode}: {detail}")
        self.git_args = list(args)
        self.returncode = returncode
        self.stderr = stderr


class DataError(ExecutorError, ValueError):
    """What was wrong with the data, one `location: problem` line per fault.

    Internal until a boundary turns it into the error of the file it came from
    (corrupt state, invalid response, invalid request...).
    """

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


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
        emission: int = 1,
        prompt_file: Path | None = None,
        context: dict[str, Any] | None = None,
    ) -> None:
        SystemExit.__init__(self, int(ExitCode.NEED_AGENT))
        self.request_file = request_file
        self.response_file = response_file
        self.request_id = request_id
        self.agent_name = agent_name
        self.attempt = attempt
        self.emission = emission
        self.prompt_file = prompt_file
        #: The request's context (a human request's question, options, checkpoint and
        #: session: what a notification says).
        self.context = dict(context or {})

    def as_dict(self) -> dict[str, Any]:
        return {
            "exit_code": int(ExitCode.NEED_AGENT),
            "status": "need_agent",
            "agent_name": self.agent_name,
            "request_id": self.request_id,
            "attempt": self.attempt,
            "emission": self.emission,
            "request_file": str(self.request_file),
            "response_file": str(self.response_file),
            "prompt_file": str(self.prompt_file) if self.prompt_file else None,
        }


class NeedAgents(NeedAgent):
    """Several sessions of a parallel run wait, each for the answer to its own request:
    this one is the first (plan order), `others` the rest. One run of the command with
    `--resume` applies every answer written by then. `folder`: the run's folder, where
    `executor bridge show --all` lists them."""

    def __init__(self, first: NeedAgent, others: Sequence[NeedAgent], *, folder: Path) -> None:
        super().__init__(
            request_file=first.request_file,
            response_file=first.response_file,
            request_id=first.request_id,
            agent_name=first.agent_name,
            attempt=first.attempt,
            emission=first.emission,
            prompt_file=first.prompt_file,
            context=first.context,
        )
        self.others = list(others)
        self.folder = folder

    def all(self) -> list[NeedAgent]:
        return [self, *self.others]

    def as_dict(self) -> dict[str, Any]:
        pending = [
            {k: v for k, v in e.as_dict().items() if k not in ("exit_code", "status")}
            for e in self.all()
        ]
        return {**super().as_dict(), "pending": pending}


class Resumable(RunStopped):
    """A run stopped with its state saved, that a printed command continues: the
    subcommand words `continue_with` (`execute-plan` for a plan run, `resume-session N`
    when empty), `--plan plan`, and `resume_flags` (what this run had that its saved
    options do not carry). `session` None: nothing of it to continue."""

    def __init__(
        self,
        message: str,
        *,
        session: int | None = None,
        plan: Path | None = None,
        resume_flags: Sequence[str] = (),
        continue_with: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.session = session
        self.plan = plan
        self.resume_flags = list(resume_flags)
        self.continue_with = list(continue_with)


class Paused(Resumable):
    """Stopped at a checkpoint on purpose."""

    exit_code = ExitCode.PAUSED


class BudgetSpent(Resumable):
    """A budget is spent; the run stopped before the next agent call. `spent`: what."""

    exit_code = ExitCode.BUDGET_SPENT

    def __init__(self, message: str, *, spent: str, **where: Any) -> None:
        super().__init__(message, **where)
        self.spent = spent


class UserCancelled(Resumable):
    """The person aborted; `backup_ref` holds what the rolled-back session had."""

    exit_code = ExitCode.USER_CANCELLED

    def __init__(self, message: str, *, backup_ref: str | None = None, **where: Any) -> None:
        super().__init__(message, **where)
        self.backup_ref = backup_ref


class Interrupted(RunStopped):
    """Ctrl+C or SIGTERM stopped a workflow. `state`: the file that holds the run so far
    (the CLI prints the command that continues it), or None when this run saved nothing
    (there is nothing of it to resume)."""

    exit_code = ExitCode.INTERRUPTED

    def __init__(self, *, state: Path | None) -> None:
        super().__init__(f"interrupted; the run is saved in {state}" if state else "interrupted")
        self.state = state


class UserError(ExecutorError):
    """Expected and actionable. `str()` is the whole message the user sees."""

    exit_code: ExitCode = ExitCode.USAGE_ERROR


class PathError(UserError):
    """About one file or folder (`path`); `problems`: every fault found, when several."""

    def __init__(self, message: str, *, path: Path, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.path = path
        self.problems = list(problems)


class PathNotFoundError(PathError):
    exit_code = ExitCode.PATH_NOT_FOUND


class NotARepositoryError(PathError):
    """Something to set up first (`git init`), not a missing path."""


class PlanInvalidError(UserError):
    exit_code = ExitCode.PLAN_INVALID

    def __init__(self, message: str, *, path: Path | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.line = line


class InvalidResponseError(PathError):
    exit_code = ExitCode.INVALID_RESPONSE


class BridgeFileInvalid(PathError):
    """A request/response file failed validation (`executor bridge validate`, `show`)."""

    exit_code = ExitCode.VALIDATION_FAILED


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


class RollbackRefused(StaleWorkspaceError):
    """A rollback would drop commits that are not safe to drop (`commits` says why)."""

    def __init__(self, message: str, *, commits: Sequence[str]) -> None:
        super().__init__(message)
        self.commits = list(commits)


class StorageError(PathError):
    exit_code = ExitCode.STORAGE_ERROR


class VerificationFailedError(UserError):
    exit_code = ExitCode.VERIFICATION_FAILED


class QuestionsWaiting(VerificationFailedError):
    """A run with nobody to ask ran what it could; `sessions` wait, parked, for a person's
    answer (and others wait on them): the run is incomplete."""

    def __init__(self, message: str, *, sessions: Sequence[int]) -> None:
        super().__init__(message)
        self.sessions = list(sessions)


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


class LaneStopped(UserError):
    """A session's own run, in its worktree, stopped with `code` (a parallel run says
    why, and exits with the same code)."""

    def __init__(self, message: str, *, session: int, code: ExitCode) -> None:
        super().__init__(message)
        self.session = session
        self.exit_code = code


class ConfigError(UserError):
    """A settings file that cannot be read; `str()` names the file, line and key."""


class ProjectEnvError(UserError):
    """The project's environment (`executor.projectenv`) cannot run its tests: not made
    yet, no pytest in it, or its interpreter does not start. Something to set up first."""


class PullRequestError(UserError):
    """A phase's pull request cannot be made: `gh` is missing or not logged in, there is
    no remote, or the push was refused. Nothing was changed."""


class PresetError(UserError):
    """An agent preset cannot be built (unknown name, prompt too long for an argument)."""


class ReplayError(UserError):
    """The replay agent cannot do what it was asked (bad input, unsafe prepared files)."""


class FrontmatterError(UserError):
    """Claude Code frontmatter is missing or malformed; `str()` names the source and line."""

    exit_code = ExitCode.VALIDATION_FAILED

    def __init__(self, message: str, *, source: str, line: int) -> None:
        super().__init__(f"{source}:{line}: {message}")
        self.source = source
        self.line = line


class AnalysisFailedError(PathError):
    exit_code = ExitCode.ANALYSIS_FAILED


class TemplateGenerationError(PathError):
    exit_code = ExitCode.GENERATION_FAILED


class TemplateValidationError(PathError):
    """`problems` lists every failed check; the message shows the first few."""

    exit_code = ExitCode.VALIDATION_FAILED


class TemplateSaveError(PathError):
    exit_code = ExitCode.SAVE_FAILED


class OverwriteRefusedError(TemplateSaveError):
    """`conflicts`: the existing files (or the folder itself) that would be overwritten."""

    def __init__(self, message: str, *, path: Path, conflicts: Sequence[str] = ()) -> None:
        super().__init__(message, path=path)
        self.conflicts = list(conflicts)


class DestinationOverlapError(UserError):
    """template-create was asked to write the template onto the codebase it analyses,
    or onto a folder that holds it: replacing it would delete the codebase."""

    def __init__(self, message: str, *, path: Path, codebase: Path) -> None:
        super().__init__(message)
        self.path = path
        self.codebase = codebase


class TemplateValueError(UserError):
    """A `--set NAME=VALUE` names no placeholder, or its value does not fit the pattern."""

    def __init__(self, message: str, *, name: str) -> None:
        super().__init__(message)
        self.name = name


class InitRefused(UserError):
    """`executor init` found a plan or a config where it would write one: nothing was
    written. `paths`: what is already there."""

    def __init__(self, message: str, *, paths: Sequence[Path]) -> None:
        super().__init__(message)
        self.paths = list(paths)
