"""`executor replay-agent`: the deterministic replay agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from executor.cli.spec import Commands
from executor.params import Param

if TYPE_CHECKING:
    from pathlib import Path

_HELP = (
    "Deterministic replay agent for demos and tests. It is NOT an AI: it copies prepared "
    "files for (session, step) into the repository.\n\n"
    "Use it as the engine's --agent-command (it reads EXECUTOR_SESSION, EXECUTOR_TDD_STEP "
    "and EXECUTOR_ATTEMPT), or give --request FILE to read them from a bridge request's "
    "context. Files come from SOLUTIONS/session-<N>/<step>@<attempt>/ if that folder "
    "exists, else SOLUTIONS/session-<N>/<step>/. A file named <name>.__delete__ deletes "
    "<name>. Nothing prepared for the step: no changes, exit 0."
)


commands = Commands()


@commands(
    "replay-agent",
    Param("solutions", "--solutions", kind="path",
          help="Prepared files folder (default: the shipped ledger demo replay)."),
    Param("request", "--request", kind="path",
          help="Bridge request JSON: read session, tdd_step and attempt from its context."),
    Param("repo", "--repo", kind="path",
          help="Repository root to write into (default: current folder)."),
    help=_HELP,
    summary="Replay prepared files (not an AI).",
)  # fmt: skip
def replay_agent(solutions: Path | None, request: Path | None, repo: Path | None) -> None:
    import os
    from pathlib import Path

    from executor.cli import common

    def core() -> int:
        from executor import console, replay
        from executor.resources import data_path

        result = replay.run_agent(
            solutions=solutions or data_path("plans", "replay", "ledger"),
            repo=repo or Path.cwd(),
            request=request,
            env=os.environ,
        )
        console.out(result.report())
        return 0

    common.run(core)
