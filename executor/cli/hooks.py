"""`executor hook stop|post-tool|session-start|pre-tool`: the Claude Code hooks.

`install-claude` writes them into `.claude/settings.json`; Claude Code runs them with the
event's JSON on stdin. Thin: the commands come from `executor.claude.hooks.HOOKS` and
call its `run` (read stdin, print Claude Code's JSON, exit 0: a hook never fails its
host). `executor.cli.main` runs exactly `executor hook NAME` straight through the same
`run`, without reading a command line (docs/performance.md); help and anything else
come here.
"""

from __future__ import annotations

from collections.abc import Callable

from executor.cli.spec import Command, Commands


def _hook_commands(group: Commands) -> None:
    """The commands, from the hooks' table (imported only when they are looked at)."""
    from executor.claude.hooks import HOOKS

    for hook in HOOKS:
        events = " / ".join(hook.events)
        text = f"{events}: {hook.help}. Reads the hook's JSON on stdin; prints Claude Code's."
        group.add(Command(hook.name, _command(hook.name), (), text))


def _command(name: str) -> Callable[[], None]:
    def command() -> None:
        from executor.claude.hooks import run
        from executor.cli import common

        common.run(lambda: run(name))

    return command


commands = Commands()
hooks = commands.group(
    "hook",
    "Claude Code hooks (install-claude writes them into .claude/settings.json): each reads "
    "the hook's JSON on stdin and prints Claude Code's JSON; never fails.",
    load=_hook_commands,
)
