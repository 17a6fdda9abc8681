"""`executor replay-agent`: the deterministic replay agent (registered by executor.cli)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from executor.cli import common

_HELP = (
    "Deterministic replay agent for demos and tests. It is NOT an AI: it copies prepared "
    "files for (session, step) into the repository.\n\n"
    "Use it as the engine's --agent-command (it reads EXECUTOR_SESSION, EXECUTOR_TDD_STEP "
    "and EXECUTOR_ATTEMPT), or give --request FILE to read them from a bridge request's "
    "context. Files come from SOLUTIONS/session-<N>/<step>@<attempt>/ if that folder "
    "exists, else SOLUTIONS/session-<N>/<step>/. A file named <name>.__delete__ deletes "
    "<name>. Nothing prepared for the step: no changes, exit 0."
)


def register(app: typer.Typer) -> None:
    """Add this concern's commands to the root app."""

    @app.command("replay-agent", help=_HELP, short_help="Replay prepared files (not an AI).")
    def _replay_agent(
        solutions: Annotated[
            Path | None,
            typer.Option(
                "--solutions",
                help="Prepared files folder (default: the shipped ledger demo replay).",
            ),
        ] = None,
        request: Annotated[
            Path | None,
            typer.Option(
                "--request",
                help="Bridge request JSON: read session, tdd_step and attempt from its context.",
            ),
        ] = None,
        repo: Annotated[
            Path | None,
            typer.Option("--repo", help="Repository root to write into (default: current folder)."),
        ] = None,
    ) -> None:
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
