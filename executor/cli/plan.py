"""`executor plan validate|show`: lint a plan, or draw its phases and schedule.

Thin: read flags, call the core functions below through `common.run`. The parser and
lint live in `executor.plan`; the JSON contract and the view in `executor.plan.linting.report`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from executor.cli.spec import Commands
from executor.params import Param

if TYPE_CHECKING:
    from pathlib import Path

    from executor.project_config import ProjectConfig


def _config(plan_path: Path, test_command: str | None) -> ProjectConfig:
    """The project's settings (repository root above the plan); `--test-command` wins."""
    from executor.project_config import ProjectConfig, find_root, load_project_config

    config = load_project_config(find_root(plan_path))
    if test_command:
        return ProjectConfig(
            test_command=test_command,
            test_command_map=config.test_command_map,
            source=config.source,
        )
    return config


def which_plan(argument: Path | None, option: Path | None) -> Path:
    """The PLAN argument or `--plan` (the same path if both), else the one plan found from
    the current folder (`executor.plan.discover_plan`, as the run commands find it)."""
    from pathlib import Path

    from executor.errors import UserError

    if argument is not None and option is not None and argument.absolute() != option.absolute():
        raise UserError(
            f"two plans given: the PLAN argument {argument} and --plan {option}; give one"
        )
    given = argument if argument is not None else option
    if given is not None:
        return given
    from executor.plan import discover_plan

    return discover_plan(Path.cwd())


def validate(
    plan_path: Path,
    *,
    json_output: bool,
    test_command: str | None,
    format: str | None = None,
    tag: str | None = None,
) -> int:
    """Print diagnostics (or the JSON contract); PLAN_INVALID when there are errors."""
    from executor import console
    from executor.cli.common import no_cycle_collection
    from executor.exitcodes import ExitCode
    from executor.plan import lint, load_plan
    from executor.plan.linting.report import contract, format_diagnostic, summary

    no_cycle_collection()
    plan = load_plan(plan_path, format, tag)
    config = _config(plan_path, test_command)
    diagnostics = lint(plan, project_test_command=config.test_command)
    if json_output:
        console.out_json(contract(plan, diagnostics, config=config))
    else:
        for d in diagnostics:
            console.out(format_diagnostic(d))
        console.out(summary(plan, diagnostics))
    has_errors = any(d.severity == "error" for d in diagnostics)
    return int(ExitCode.PLAN_INVALID if has_errors else ExitCode.SUCCESS)


def show(
    plan_path: Path,
    *,
    phase: int | None,
    format: str | None = None,
    json_output: bool = False,
    tag: str | None = None,
) -> int:
    """Draw the plan; errors are listed after the view and make the exit PLAN_INVALID."""
    from executor import console
    from executor.errors import UserError
    from executor.exitcodes import ExitCode
    from executor.plan import lint, load_plan
    from executor.plan.linting.report import contract, format_diagnostic, overview, schedule

    plan = load_plan(plan_path, format, tag)
    if phase is not None and plan.phase(phase) is None:
        known = ", ".join(str(p.number) for p in plan.phases) or "none"
        raise UserError(f"plan {plan.folder} has no phase {phase} (phases: {known})")
    config = _config(plan_path, None)
    diagnostics = lint(plan, project_test_command=config.test_command)
    errors = [d for d in diagnostics if d.severity == "error"]
    if json_output:
        path, groups, weighed = schedule(plan)
        console.out_json(
            {
                **contract(plan, diagnostics, config=config),
                "critical_path": path,
                "critical_path_weighed_in_hours": weighed,
                "parallel_groups": groups,
            }
        )
        return int(ExitCode.PLAN_INVALID if errors else ExitCode.SUCCESS)
    console.show(overview(plan, phase=phase, project_command=config.test_command))
    for d in errors:
        console.err(format_diagnostic(d))
    return int(ExitCode.PLAN_INVALID if errors else ExitCode.SUCCESS)


_PLAN_HELP = (
    "Plan folder or markdown file (the argument or --plan). Default: the one plan found "
    "in the current folder, project-plans/, docs/plans/ or specs/*/, as the run commands "
    "find it."
)
_FORMAT_HELP = (
    "Read the plan as this format instead of detecting it: a|phase, b|overview, "
    "c|superpowers, d|speckit, e|kiro, f|taskmaster."
)
_TAG_HELP = "Task Master: the tag to read (default: master, or the file's only tag)."


commands = Commands()
plans = commands.group("plan", "Check and view markdown plans.")
PLAN = Param("plan", kind="path", metavar="PLAN", help=_PLAN_HELP)
PLAN_OPTION = Param("plan_option", "--plan", kind="path", metavar="PLAN", help=_PLAN_HELP)
FORMAT = Param("format", "--format", help=_FORMAT_HELP)
TAG = Param("tag", "--tag", help=_TAG_HELP)


@plans(
    "validate",
    PLAN,
    PLAN_OPTION,
    Param("json_output", "--json", kind="flag",
          help="Print the parsed plan and diagnostics as JSON."),
    Param("test_command", "--test-command",
          help="Project-level test command (overrides test_command in [tool.executor])."),
    FORMAT,
    TAG,
)  # fmt: skip
def validate_command(
    plan: Path | None,
    plan_option: Path | None,
    json_output: bool,
    test_command: str | None,
    format: str | None,
    tag: str | None,
) -> None:
    """Lint a plan: `FILE:LINE: error|warning: message`; exit 15 on errors."""
    from executor.cli import common

    common.run(
        lambda: validate(
            which_plan(plan, plan_option),
            json_output=json_output,
            test_command=test_command,
            format=format,
            tag=tag,
        ),
        json_output=json_output,
    )


@plans(
    "show",
    PLAN,
    PLAN_OPTION,
    Param("phase", "--phase", kind="int", help="Only this phase."),
    FORMAT,
    Param("json_output", "--json", kind="flag",
          help="The plan, its schedule and diagnostics as JSON."),
    TAG,
)  # fmt: skip
def show_command(
    plan: Path | None,
    plan_option: Path | None,
    phase: int | None,
    format: str | None,
    json_output: bool,
    tag: str | None,
) -> None:
    """Phases, sessions, dependencies, estimates, critical path, parallel sessions."""
    from executor.cli import common

    common.run(
        lambda: show(
            which_plan(plan, plan_option),
            phase=phase,
            format=format,
            json_output=json_output,
            tag=tag,
        ),
        json_output=json_output,
    )
