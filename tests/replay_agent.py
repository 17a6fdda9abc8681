"""The replay agent as the end-to-end tests run it: `executor.replay.run_agent` (what
`executor replay-agent` runs), in a process of its own, without the CLI around it.

Usage: `python tests/replay_agent.py [--solutions DIR] [--request FILE] [--repo DIR]`, the
command's options; output and exit codes as the command's (its report on stdout; `error:
...` on stderr and the error's exit code).

Why: the end-to-end tests make well over a thousand agent calls. Through the CLI each
costs ~150 ms of CPU (pydantic and the workflow imported; typer then), the agent
itself ~30 ms: measured, the CLI around it was a fifth of the whole suite's CPU. The
command itself is tested through the CLI in `tests/replay`, and the demo, the Claude Code
host simulations and the stand-in CLIs' own tests still call it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from executor.errors import UserError
from executor.replay import run_agent
from executor.resources import data_path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--solutions", type=Path)
    parser.add_argument("--request", type=Path)
    parser.add_argument("--repo", type=Path)
    args = parser.parse_args()
    try:
        result = run_agent(
            solutions=args.solutions or data_path("plans", "replay", "ledger"),
            repo=args.repo or Path.cwd(),
            request=args.request,
            env=os.environ,
        )
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return int(e.exit_code)
    print(result.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
