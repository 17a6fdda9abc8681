"""`executor plan validate|show`: lint a plan, or draw its phases and schedule.

Thin: parse flags, call the core functions below through `common.run`. The parser and
lint live in `executor.plan`; the JSON contract and the view in `executor.plan.report`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from executor import console
from executor.cli import common
from executor.exitcodes import ExitCode


def validate(plan_path: Path, *, json_output: bool, test_command: str | None) -> int:
    """Print diagnostics (or the JSON contract); PLAN_INVALID when there are errors."""
    from executor.plan import lint, load_plan
    from executor.plan.report import contract, format_diagnostic, summary

    plan = load_plan(plan_path)
    diagnostics = lint(plan, project_test_command=test_command)
    if json_output:
        console.out_json(contract(plan, diagnostics, project_test_command=test_command))
    else:
        for d in diagnostics:
            console.out(format_diagnostic(d))
        console.out(summary(plan, diagnostics))
    has_errors = any(d.severity == "error" for d in diagnostics)
    return int(ExitCode.PLAN_INVALID if has_errors else ExitCode.SUCCESS)


def show(plan_path: Path, *, phase: int | None) -> int:
    """Draw the plan; errors are listed after the view and make the exit PLAN_INVALID."""
    from executor.errors import UserError
    from executor.plan import lint, load_plan
    from executor.plan.report import format_diagnostic, overview

    plan = load_plan(plan_path)
    if phase is not None and plan.phase(phase) is None:
        known = ", ".join(str(p.number) for p in plan.phases) or "none"
        raise UserError(f"plan {plan.folder} has no phase {phase} (phases: {known})")
    console.show(overview(plan, phase=phase))
    errors = [d for d in lint(plan) if d.severity == "error"]
    for d in errors:
        console.err(format_diagnostic(d))
    return int(ExitCode.PLAN_INVALID if errors else ExitCode.SUCCESS)


def register(app: typer.Typer) -> None:
    """Add this concern's commands to the root app."""
    plan_app = typer.Typer(name="plan", help="Check and view markdown plans.", no_args_is_help=True)

    @plan_app.command("validate")
    def _validate(
        plan: Annotated[Path, typer.Argument(help="Plan folder or markdown file.")],
        json_output: Annotated[
            bool, typer.Option("--json", help="Print the parsed plan and diagnostics as JSON.")
        ] = False,
        test_command: Annotated[
            str | None,
            typer.Option("--test-command", help="Project-level test command (fallback)."),
        ] = None,
    ) -> None:
        """Lint a plan: `FILE:LINE: error|warning: message`; exit 15 on errors."""
        common.run(
            lambda: validate(plan, json_output=json_output, test_command=test_command),
            json_output=json_output,
        )

    @plan_app.command("show")
    def _show(
        plan: Annotated[Path, typer.Argument(help="Plan folder or markdown file.")],
        phase: Annotated[int | None, typer.Option("--phase", help="Only this phase.")] = None,
    ) -> None:
        """Phases, sessions, dependencies, estimates, critical path, parallel sessions."""
        common.run(lambda: show(plan, phase=phase))

    app.add_typer(plan_app)
