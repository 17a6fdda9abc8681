"""`executor` command line: read flags, call the core, map errors to exit codes.

`main` is the console script. The commands are declared as data in the modules of this
package (`executor.cli.spec`), read with argparse (`executor.cli.parse`) and run by
`executor.cli.app`, which imports only the module of the command a call names. Two
calls never read a command line, measured (docs/performance.md): exactly `executor
hook NAME`, a Claude Code hook that runs at every end of a turn, goes straight to
`executor.claude.hooks.run`, found in the same table (`HOOKS`) the `hook` commands are
made from; and a shell asking for completions (`_EXECUTOR_COMPLETE` set by the script
`--install-completion` wrote) is answered by `executor.cli.completion`.
"""

from __future__ import annotations

import os
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
            if os.environ.get("_EXECUTOR_COMPLETE"):
                from executor.cli.completion import complete

                interrupts.started()
                return complete(os.environ)
            from executor.cli.app import run_app

            return run_app(args)
        finally:
            interrupts.started()  # a command that never reached its boundary: now
    except KeyboardInterrupt:  # outside a command's error boundary: nothing is saved
        from executor.exitcodes import ExitCode

        print("Interrupted.", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
