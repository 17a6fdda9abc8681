"""`executor` command line: parse flags, call the core, map errors to exit codes.

`main` is the console script. One parser: the typer application (`executor.cli.app`),
which registers only the command group a call names (all of them for `--help`), so a
host's `executor bridge respond ... --resume` does not import what template-create or
`install-claude` need. One exception, measured (docs/performance.md): exactly
`executor hook NAME`, a Claude Code hook that runs at every end of a turn, goes straight
to `executor.claude.hooks.run`, found in the same table (`HOOKS`) the typer commands are
built from; `executor hook NAME --help` and anything else go through typer.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Console-script entry point. Returns the exit code (never raises SystemExit)."""
    from executor import faults, interrupts

    interrupts.install()  # a Ctrl+C is held until the command's error boundary takes it
    try:
        try:
            faults.hit("cli.started")
            args = list(argv) if argv is not None else sys.argv[1:]
            if len(args) == 2 and args[0] == "hook":
                from executor.claude.hooks import EVENTS, run

                if args[1] in EVENTS:
                    interrupts.started()
                    return run(args[1])
            from executor.cli.app import run_app

            code: int = run_app(args)
            return code
        finally:
            interrupts.started()  # a command that never reached its boundary: now
    except KeyboardInterrupt:  # outside a command's error boundary: nothing is saved
        from executor.exitcodes import ExitCode

        print("Interrupted.", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
