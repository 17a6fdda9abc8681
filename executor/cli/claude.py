"""`executor install-claude`: slash commands and subagents for Claude Code."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from executor import console
from executor.cli import common
from executor.fsutil import quote


def _install(target: Path | None, plan: Path | None, force: bool, json_output: bool) -> int:
    from executor.claude.install import display_path, install_claude

    result = install_claude(target, plan=plan, force=force)
    if json_output:
        console.out_json(result.as_dict())
        return 0
    for path in result.written:
        console.out(f"wrote      {display_path(path)}")
    for path in result.unchanged:
        console.out(f"unchanged  {display_path(path)}")
    for path in result.skipped:
        console.out(f"skipped    {display_path(path)} (exists and differs; --force overwrites)")
    for note in result.notes:
        console.out(f"note: {note}")
    console.out(
        f"{len(result.written)} written, {len(result.unchanged)} unchanged, "
        f"{len(result.skipped)} skipped in {result.target / '.claude'}"
    )
    if result.written:  # a session starts only from a clean worktree
        folder = quote(result.target / ".claude")
        console.out(
            f"next: commit them before running a session, which starts only from a clean "
            f"worktree: git -C {quote(result.target)} add {folder} && git -C "
            f"{quote(result.target)} commit -m 'Claude Code commands for the plan'"
        )
    return 0


def register(app: typer.Typer) -> None:
    """Add this concern's commands to the root app."""

    @app.command("install-claude")
    def install_claude_cmd(
        target: Annotated[
            Path | None,
            typer.Option(
                "--target",
                help="Project folder to write .claude/ into (default: the root of the git "
                "repository containing the current folder, else the current folder).",
            ),
        ] = None,
        plan: Annotated[
            Path | None,
            typer.Option(
                "--plan",
                help="Plan folder or file: writes /execute-phase-N for each phase and names "
                "the plan in every command.",
            ),
        ] = None,
        force: Annotated[
            bool, typer.Option("--force", help="Overwrite existing files that differ.")
        ] = False,
        json_output: Annotated[
            bool, typer.Option("--json", help="Print what was written as JSON.")
        ] = False,
    ) -> None:
        """Install Claude Code slash commands (.claude/commands) and subagents (.claude/agents).

        Existing files are left alone unless --force; the output lists them.
        """
        common.run(lambda: _install(target, plan, force, json_output), json_output=json_output)
