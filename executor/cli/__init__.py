"""`executor` command line: parse flags, call the core, map errors to exit codes.

`main` is the console script. One parser: the typer application (`executor.cli.app`),
which registers only the command group a call names (all of them for `--help`), so a
host's `executor bridge respond ... --resume` does not import what template-create or
`install-claude` need.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from typing import Any


def _sigterm(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Console-script entry point. Returns the exit code (never raises SystemExit)."""
    signal.signal(signal.SIGTERM, _sigterm)
    args = list(argv) if argv is not None else sys.argv[1:]
    from executor.cli.app import run_app

    code: int = run_app(args)
    return code
