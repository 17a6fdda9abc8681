"""Claude Code integration: slash commands and subagents for a project.

`install_claude` writes `.claude/commands/*.md` (short prose that tells Claude to run the
executor and relay its exit-42 requests) and `.claude/agents/*.md` (the shipped subagents).
"""

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
