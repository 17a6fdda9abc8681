"""The one exit-code table.

Other programs (Claude Code command files, our host driver, CI scripts) branch on
these numbers, so they are a public contract: never renumber, only add.
A failure never exits 0 and never exits 42.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    SUCCESS = 0
    USER_CANCELLED = 1
    PATH_NOT_FOUND = 2
    ANALYSIS_FAILED = 3
    GENERATION_FAILED = 4
    VALIDATION_FAILED = 5
    SAVE_FAILED = 6
    INVALID_RESPONSE = 10
    CORRUPT_STATE = 11
    LOCKED = 12
    STALE_WORKSPACE = 13
    STORAGE_ERROR = 14
    PLAN_INVALID = 15
    VERIFICATION_FAILED = 16
    AGENT_UNAVAILABLE = 17
    GIT_BUSY = 18
    DIRTY_WORKTREE = 19
    PAUSED = 20
    NOTHING_TO_RESUME = 21
    BLOCKED = 22
    BUDGET_SPENT = 23
    NEED_AGENT = 42
    USAGE_ERROR = 64
    INTERNAL_ERROR = 70
    INTERRUPTED = 130
    OUTPUT_CLOSED = 141


#: One line per code: what it means and what the caller should do.
DESCRIPTIONS: dict[ExitCode, str] = {
    ExitCode.SUCCESS: "Success: the requested work is complete.",
    ExitCode.USER_CANCELLED: "The user cancelled (or aborted a session).",
    ExitCode.PATH_NOT_FOUND: "A path given (plan, codebase, folder, file) does not exist.",
    ExitCode.ANALYSIS_FAILED: "template-create: codebase analysis failed.",
    ExitCode.GENERATION_FAILED: "template-create: generating a component failed.",
    ExitCode.VALIDATION_FAILED: "A file checked by `executor bridge validate` is invalid, "
    "or template-create output failed validation.",
    ExitCode.SAVE_FAILED: "template-create: writing the output failed.",
    ExitCode.INVALID_RESPONSE: "The agent response was rejected (malformed, wrong field, "
    "or bound to another request). State unchanged; the request is still pending.",
    ExitCode.CORRUPT_STATE: "The state file is corrupt; it was quarantined and nothing "
    "else was touched. The message names the .bak to restore.",
    ExitCode.LOCKED: "Another executor process holds the lock (pid and host named).",
    ExitCode.STALE_WORKSPACE: "The workspace moved since the state was saved (HEAD, branch, "
    "or the plan section changed). Nothing was overwritten.",
    ExitCode.STORAGE_ERROR: "Reading or writing a file failed (disk full, I/O error). "
    "The previous state is intact.",
    ExitCode.PLAN_INVALID: "The plan has errors (printed as file:line: error: message).",
    ExitCode.VERIFICATION_FAILED: "A session could not be verified: tests did not go red or "
    "green, or the evidence check failed, and no human was available to decide; or sessions "
    "wait, parked, for a person's answer while the run did the rest (each question and the "
    "command that answers it are printed).",
    ExitCode.AGENT_UNAVAILABLE: "No usable agent response after the retry/attempt budget.",
    ExitCode.GIT_BUSY: "git is busy (.git/index.lock exists). Retry when git is done.",
    ExitCode.DIRTY_WORKTREE: "The worktree has changes that are not the executor's. "
    "Commit or stash them (files listed).",
    ExitCode.PAUSED: "Paused at a checkpoint; state saved. Resume with the printed command.",
    ExitCode.NOTHING_TO_RESUME: "`--resume` was given but no request is pending.",
    ExitCode.BLOCKED: "A session's dependencies are not complete, or (parallel sessions) its "
    "integration conflicts or fails the suite and waits for a person (the reason is printed).",
    ExitCode.BUDGET_SPENT: "A budget (--budget-usd, --budget-tokens, --budget-minutes) is spent; "
    "the run stopped before the next agent call, state saved. Re-run with a larger budget.",
    ExitCode.NEED_AGENT: "NEED_AGENT: a request file was written; fulfil it with "
    "`executor bridge respond` and re-run the same command with --resume.",
    ExitCode.USAGE_ERROR: "Bad command-line usage, or something to set up first that the "
    "message names (git identity, a test command, a folder of its own for a second plan, "
    "an environment where the project's tests can import what they need). Nothing was "
    "touched.",
    ExitCode.INTERNAL_ERROR: "A bug in the executor (please report it with the traceback "
    "shown by --verbose).",
    ExitCode.INTERRUPTED: "Interrupted (Ctrl+C / SIGTERM). The message says what the run "
    "saved and the command that continues it, or that it saved nothing.",
    ExitCode.OUTPUT_CLOSED: "The reader closed our output (e.g. `| head -1`); nothing failed "
    "and nothing was left half-done.",
}


def table_markdown() -> str:
    """The table as markdown; docs/exit-codes.md embeds it and a test keeps them equal."""
    rows = ["| Code | Name | Meaning |", "|---:|---|---|"]
    rows += [f"| {c.value} | `{c.name}` | {DESCRIPTIONS[c]} |" for c in ExitCode]
    return "\n".join(rows)
