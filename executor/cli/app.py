"""The typer application: every command and its help.

No logic lives here. Each concern registers its commands from its own module:
`bridge` (host helpers), `plan` (validate/show), `run` (execute-*, resume-session,
status, demo), `config`, `init` (a starter plan and config), `logs`, `agents`, `claude`
(install-claude), `hooks` (`executor hook ...`, the Claude Code hooks), `replay`
(replay-agent), `templates` (template-create/apply).
`build_app(first)` registers only the module of the command `first` names (every one
when it names none, or for help), so a call imports what its command needs. Heavy
libraries are imported inside the command bodies that need them, never at import time.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from executor import __version__, console
from executor.cli import common
from executor.exitcodes import DESCRIPTIONS, ExitCode

_EPILOG = (
    "Exit codes: "
    + "; ".join(f"{c.value} {c.name}" for c in ExitCode)
    + ". `executor exit-codes` prints what each means."
)


def _version(value: bool) -> None:
    if value:
        print(f"executor {__version__}")
        raise typer.Exit(0)


#: command -> the module of `executor.cli` that registers it
COMMANDS = {
    "bridge": "bridge",
    "plan": "plan",
    "execute-phase": "run",
    "execute-session": "run",
    "execute-plan": "run",
    "resume-session": "run",
    "status": "run",
    "config": "config",
    "init": "init",
    "logs": "logs",
    "demo": "run",
    "agents": "agents",
    "install-claude": "claude",
    "hook": "hooks",
    "replay-agent": "replay",
    "template-create": "templates",
    "template-apply": "templates",
    "report": "review",
    "show": "review",
    "pr": "review",
}


def build_app(first: str | None = None) -> typer.Typer:
    """The application; with `first` (the command a call names), only its module."""
    app = typer.Typer(
        name="executor",
        help="Drive AI coding agents through a written plan: RED/GREEN/REFACTOR verified by "
        "real test runs, human checkpoints, one git commit per session, resumable.",
        epilog=_EPILOG,
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        **common.APP_STYLE,
    )

    @app.callback()
    def _root(
        version: Annotated[
            bool,
            typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
        ] = False,
        verbose: Annotated[
            bool, typer.Option("--verbose", "-v", help="Show tracebacks for internal errors.")
        ] = False,
    ) -> None:
        common.state["verbose"] = verbose

    @app.command("exit-codes")
    def _exit_codes(
        json_output: Annotated[bool, typer.Option("--json", help="The table as JSON.")] = False,
    ) -> None:
        """Print the exit-code table."""
        if json_output:
            console.out_json(
                [{"code": c.value, "name": c.name, "meaning": DESCRIPTIONS[c]} for c in ExitCode]
            )
            return
        for code in ExitCode:
            print(f"{code.value:>4}  {code.name:<20} {DESCRIPTIONS[code]}")

    import importlib

    wanted = COMMANDS.get(first or "")
    for module in dict.fromkeys(COMMANDS.values()):
        if wanted is None or module == wanted:
            importlib.import_module(f"executor.cli.{module}").register(app)
    return app


def run_app(args: Sequence[str]) -> int:
    """Run the typer application on `args`; the exit code (never raises SystemExit)."""
    common.state["ran"] = False
    app = build_app(next((a for a in args if not a.startswith("-")), None))
    try:
        with common.running(args):
            app(args=list(args), prog_name="executor")
    except common.Exit as e:
        return e.code
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if code == 2 and not common.state["ran"]:
            return int(ExitCode.USAGE_ERROR)  # click's usage errors; 2 means PATH_NOT_FOUND
        return code
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    return 0
