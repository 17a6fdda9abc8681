"""The files the Claude Code hooks read and write, as models.

Tolerant (other programs write them): `HookInput`, the JSON Claude Code puts on a hook's
stdin; `ClaudeSettings`, the shape of `.claude/settings.json` that install-claude edits
(only what it touches is checked; every other key is kept as it is); `SeedView`, the
seed-004 top of a plan run's `.agent-state.json`, as any reader sees it. Strict (we
write it): `HookRecord`, `.agent-hook.json` beside a pending request.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from executor.datamodel import Strict, Tolerant


class HookInput(Tolerant):
    """What Claude Code sends a command hook on stdin (the fields our hooks use)."""

    hook_event_name: str = ""
    cwd: str = ""
    session_id: str = Field(default="", description="the conversation")
    source: str = Field(default="", description="SessionStart: startup, resume, clear, ...")
    stop_hook_active: bool = Field(
        default=False, description="Stop: Claude is already continuing because a Stop hook blocked"
    )
    last_assistant_message: str | None = None
    tool_name: str = ""
    tool_input: dict[str, Any] = Field(default_factory=dict)
    tool_response: Any = Field(default=None, description="PostToolUse (Bash: stdout, stderr, ...)")
    error: str | None = Field(default=None, description="PostToolUseFailure: 'Exit code N\\n...'")
    agent_type: str | None = Field(
        default=None, description="the subagent's name inside one (or `claude --agent`'s)"
    )
    agent_id: str | None = Field(default=None, description="set only inside a subagent")


class HookRecord(Strict):
    """`.agent-hook.json`, beside a pending request: which conversation runs this run
    folder's loop (its last `executor` call left the request), and how many times in a
    row the Stop hook blocked a stop for that request (our cap:
    `executor.claude.hooks.MAX_BLOCKS`)."""

    schema_version: int = 1
    session_id: str = Field(description="Claude Code's session_id of that conversation")
    request_id: str
    blocks: int = Field(default=0, ge=0)


class HookGroup(Tolerant):
    """One matcher group of a hook event in Claude Code's settings."""

    matcher: str | None = None
    hooks: list[dict[str, Any]]


class ClaudeSettings(Tolerant):
    """The part of `.claude/settings.json` install-claude edits."""

    hooks: dict[str, list[HookGroup]] = Field(default_factory=dict)


class RunScopeView(Tolerant):
    """What continues a run, as `.agent-state.json`'s `run.scope` holds it."""

    scope: list[str] = Field(default_factory=list)


class SeedView(Tolerant):
    """The top of a plan run's `.agent-state.json` (seed 004's fields), and what
    continues the run."""

    status: str = ""
    current_session: int | None = None
    notes: str = ""
    run: RunScopeView = Field(default_factory=RunScopeView)
