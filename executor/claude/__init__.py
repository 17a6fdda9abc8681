"""Claude Code integration: slash commands, subagents and hooks for a project.

`install_claude` writes `.claude/commands/*.md` (short prose that tells Claude to run the
executor and relay its exit-42 requests), `.claude/agents/*.md` (the shipped subagents)
and our hooks into `.claude/settings.json`; `executor.claude.hooks` is what those hooks
run. The names below are loaded on first use (PEP 562), so a hook process, which
imports `executor.claude.hooks`, does not load the installer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from executor.claude.frontmatter import parse_frontmatter
    from executor.claude.install import (
        AGENT_NAMES,
        GENERIC_COMMANDS,
        InstallResult,
        find_target,
        install_claude,
        render_all,
        render_command,
    )
    from executor.errors import FrontmatterError

#: exported name -> the module it comes from
_FROM = {
    "AGENT_NAMES": "executor.claude.install",
    "GENERIC_COMMANDS": "executor.claude.install",
    "InstallResult": "executor.claude.install",
    "find_target": "executor.claude.install",
    "install_claude": "executor.claude.install",
    "render_all": "executor.claude.install",
    "render_command": "executor.claude.install",
    "parse_frontmatter": "executor.claude.frontmatter",
    "FrontmatterError": "executor.errors",
}

__all__ = [
    "AGENT_NAMES",
    "GENERIC_COMMANDS",
    "FrontmatterError",
    "InstallResult",
    "find_target",
    "install_claude",
    "parse_frontmatter",
    "render_all",
    "render_command",
]


def __getattr__(name: str) -> Any:
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_FROM[name]), name)
