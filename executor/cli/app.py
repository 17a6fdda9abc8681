"""The typer application: every command and its help (the `--resume` path never loads it).

No logic lives here. Each concern registers its commands from its own module:
`bridge` (host helpers), `plan` (validate/show), `run` (execute-*, resume-session,
status, demo), `replay` (replay-agent), `claude` (install-claude). Heavy libraries
are imported inside the command bodies that need them, never at import time.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from executor import __version__, console
from executor.cli import agents, bridge, claude, common, plan, replay, run, templates
from executor.exitcodes import DESCRIPTIONS, ExitCode

_EPILOG = (
    "Exit codes: "
    + "; ".join(f"{c.value} {c.name}" for c in ExitCode)
    + ". See docs/exit-codes.md."
)


def _version(value: bool) -> None:
    if value:
        print(f"executor {__version__}")
        raise typer.Exit(0)


def build_app() -> typer.Typer:
    app = typer.Typer(
        name="executor",
        help="Drive AI coding agents through a written plan: RED/GREEN/REFACTOR verified by "
        "real test runs, human checkpoints, one git commit per session, resumable.",
        epilog=_EPILOG,
        no_args_is_help=True,
        add_completion=False,
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

    bridge.register(app)
    plan.register(app)
    run.register(app)
    agents.register(app)
    claude.register(app)
    replay.register(app)
    templates.register(app)
    return app


def run_app(args: Sequence[str]) -> int:
    """Run the typer application on `args`; the exit code (never raises SystemExit)."""
    common.state["ran"] = False
    app = build_app()
    try:
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
