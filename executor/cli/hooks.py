"""`executor hook stop|post-tool|session-start|pre-tool`: the Claude Code hooks.

`install-claude` writes them into `.claude/settings.json`; Claude Code runs them with the
event's JSON on stdin. Thin: the commands come from `executor.claude.hooks.HOOKS` and
call its `run` (read stdin, print Claude Code's JSON, exit 0: a hook never fails its
host). `executor.cli.main` runs exactly `executor hook NAME` straight through the same
`run`, without building this app (docs/performance.md); help and anything else come here.
"""

from __future__ import annotations

from collections.abc import Callable

import typer

from executor.claude.hooks import HOOKS, Hook
from executor.cli import common


def _command(hook: Hook) -> Callable[[], None]:
    def command() -> None:
        from executor.claude.hooks import run

        common.run(lambda: run(hook.name))

    events = " / ".join(hook.events)
    command.__doc__ = (
        f"{events}: {hook.help}. Reads the hook's JSON on stdin; prints Claude Code's."
    )
    return command


def register(app: typer.Typer) -> None:
    """Add `executor hook ...` to the root app."""
    sub = typer.Typer(
        name="hook",
        help="Claude Code hooks (install-claude writes them into .claude/settings.json): "
        "each reads the hook's JSON on stdin and prints Claude Code's JSON; never fails.",
        no_args_is_help=True,
        **common.APP_STYLE,
    )
    for hook in HOOKS:
        sub.command(hook.name)(_command(hook))
    app.add_typer(sub)
