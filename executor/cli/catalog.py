"""The catalog of the command line: which module of `executor.cli` declares each
command, the options before the command, and how a command is found by its name (what
`executor --help` and shell completion both read)."""

from __future__ import annotations

import importlib

from executor.cli.spec import Command, Commands

#: command -> the module of `executor.cli` that declares it, in the order `--help` lists
#: them (groups of commands last)
COMMANDS = {
    "exit-codes": "app",
    "execute-phase": "run",
    "execute-session": "run",
    "execute-plan": "run",
    "resume-session": "run",
    "status": "run",
    "demo": "run",
    "config": "config",
    "docs": "docs",
    "init": "init",
    "logs": "logs",
    "agents": "agents",
    "install-claude": "claude",
    "replay-agent": "replay",
    "template-create": "templates",
    "template-apply": "templates",
    "lane": "run",
    "bridge": "bridge",
    "plan": "plan",
    "hook": "hooks",
    "report": "review",
    "show": "review",
    "pr": "review",
}
HELP = (
    "Drive AI coding agents through a written plan: RED/GREEN/REFACTOR verified by real "
    "test runs, human checkpoints, one git commit per session, resumable."
)
#: the options before the command: (flags, value, help)
OPTIONS = (
    ("--version", "", "Show the version."),
    ("-v, --verbose", "", "Show tracebacks for internal errors."),
    ("--install-completion", "", "Install completion for the current shell."),
    (
        "--show-completion",
        "",
        "Show completion for the current shell, to copy it or customize the installation.",
    ),
)


def entry(name: str) -> Command | Commands | None:
    """The command or group `name` names, from the module that declares it."""
    module = COMMANDS.get(name)
    if module is None:
        return None
    table: Commands = importlib.import_module(f"executor.cli.{module}").commands
    return table.entries[name]


def root() -> Commands:
    """Every command, as `executor --help` lists them."""
    every = Commands("executor", HELP)
    for name in COMMANDS:
        found = entry(name)
        assert found is not None
        every.entries[name] = found
    return every
