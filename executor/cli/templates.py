"""`executor template-create` (a codebase into a template) and `template-apply` (a
template into a project).

Thin: parse flags, call `executor.workflows.template_create.run` / `executor.templates.apply`
through `common.run`. Every Q&A question is also an option (the names come from
`executor.templates.questions`; a test keeps them in step).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from executor import console
from executor.cli import common
from executor.errors import UserError
from executor.fsutil import quote
from executor.words import plural

if TYPE_CHECKING:
    from executor.workflows.template_create.context import TemplateResult
    from executor.workflows.template_create.run import TemplateOptions


def parse_sets(pairs: list[str]) -> dict[str, str]:
    """`["Name=Value", ...]` -> {"Name": "Value"}; UserError for anything else."""
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UserError(f"--set expects NAME=VALUE, got {pair!r}")
        values[name.strip()] = value
    return values


def template_apply(template: str, dest: Path, *, sets: list[str], force: bool, yes: bool) -> int:
    """Render, show every file it will write (and which are executable), then write on
    `yes` or the person's word at a terminal; without either nothing is written."""
    import sys

    from executor.templates.apply import locate_template, render_template, write_rendered

    folder = locate_template(template)
    rendered = render_template(folder, dest, parse_sets(sets), force=force)
    ask = not yes and sys.stdin.isatty() and console.is_tty()
    count = plural(len(rendered.files), "file")
    console.out(
        f"template-apply {'writes' if yes else 'would write'} {count} into {rendered.dest} "
        f"({len(rendered.executable)} executable):"
    )
    for rel, (_, executable) in rendered.files.items():
        console.out(f"  {rel}{'  (executable)' if executable else ''}")
    if not yes:
        if not ask:
            raise UserError(
                f"nothing was written: template-apply writes a template's files only once "
                f"you have seen them and confirmed at a terminal, or with --yes (CI); re-run "
                f"with --yes to write the {count} above."
            )
        from executor.prompts import TerminalPrompter

        try:
            confirmed = TerminalPrompter().confirm(f"Write these {count}?", default=False)
        except EOFError:  # the terminal closed: no answer is no
            confirmed = False
        if not confirmed:
            console.out("Nothing was written.")
            return 1
    written = write_rendered(rendered)
    console.out(f"Rendered {folder} into {written.path}: {plural(len(written.files), 'file')}")
    return 0


def template_create(opts: TemplateOptions, *, verbose: bool) -> int:
    from executor.workflows.template_create.run import create_template

    if opts.agent_command is not None or opts.agent is not None:
        from executor.engine.process import AgentProcess

        AgentProcess.from_options(opts.agent_command, opts.agent)  # a usage error now
    show(create_template(opts, report=console.out), dry_run=opts.dry_run, verbose=verbose)
    return 0


def show(result: TemplateResult, *, dry_run: bool, verbose: bool) -> None:
    files = result.written.files if result.written is not None else result.files
    templates = sum(f.startswith("templates/") for f in files)
    agents = sum(f.startswith("agents/") for f in files)
    what = f"{len(files)} files ({templates} templates, {agents} agent(s))"
    if dry_run:
        exists = " (it exists: --force replaces it)" if result.destination.exists() else ""
        console.out(
            f"Dry run, nothing was written: template {result.name!r} would be {what} in "
            f"{result.destination}{exists}:"
        )
        for name in files:
            console.out(f"  {name}")
        return
    assert result.written is not None
    console.out(f"Template {result.name!r} written to {result.written.path}: {what}")
    report = result.written.report
    if report is not None and (verbose or "validation-report.md" in files):
        console.out(f"Validation: {report.score}/10, {len(report.warnings)} warning(s)")
        for warning in report.warnings if verbose else []:
            console.out(f"  warning: {warning}")
    console.out(f"Use it: executor template-apply {quote(result.written.path)} NEW_PROJECT")


def _answers(**given: Any) -> dict[str, Any]:
    """The Q&A options given, by question id."""
    return {k: v for k, v in given.items() if v is not None and v is not False}


def register(app: typer.Typer) -> None:
    """Add this concern's commands to the root app."""

    @app.command("template-create")
    def _template_create(
        path: Annotated[Path, typer.Option("--path", help="The codebase to make a template of.")],
        name: Annotated[
            str | None, typer.Option("--name", help="Template name (Q&A; default: detected).")
        ] = None,
        output_location: Annotated[
            Literal["global", "repo"] | None,
            typer.Option(
                "--output-location",
                help="global: the per-user templates folder (default); repo: ./templates/NAME.",
            ),
        ] = None,
        output: Annotated[
            Path | None, typer.Option("--output", help="Write the template to this folder.")
        ] = None,
        skip_qa: Annotated[
            bool, typer.Option("--skip-qa", help="Ask nothing: take the detected defaults.")
        ] = False,
        dry_run: Annotated[
            bool,
            typer.Option(
                "--dry-run", help="Analyse and list what would be written; write nothing."
            ),
        ] = False,
        validate: Annotated[
            bool, typer.Option("--validate", help="Also write validation-report.md.")
        ] = False,
        no_agents: Annotated[
            bool,
            typer.Option("--no-agents", help="No agent requests: heuristics only."),
        ] = False,
        max_templates: Annotated[
            int | None,
            typer.Option("--max-templates", min=1, help="At most N templates (examples first)."),
        ] = None,
        resume: Annotated[
            bool,
            typer.Option(
                "--resume",
                help="Continue the saved run (after exit 42, a failure or an interruption).",
            ),
        ] = False,
        agent_command: Annotated[
            str | None,
            typer.Option(
                "--agent-command",
                help="Answer the agent requests with this command instead of the exit-42 "
                "bridge (docs/agent-command.md). Saved with the run.",
            ),
        ] = None,
        agent: Annotated[
            str | None,
            typer.Option(
                "--agent",
                metavar="NAME",
                help="Answer the agent requests with a ready-made command line for this "
                "CLI: claude, codex, gemini, aider (`executor agents`); bridge: the exit-42 "
                "bridge (drops a saved agent). Saved with the run.",
            ),
        ] = None,
        force: Annotated[
            bool, typer.Option("--force", help="Replace a template that exists already.")
        ] = False,
        verbose: Annotated[
            bool, typer.Option("--verbose", help="Warnings, and tracebacks for internal errors.")
        ] = False,
        language: Annotated[
            str | None, typer.Option("--language", help="Primary language (Q&A).")
        ] = None,
        purpose: Annotated[
            str | None, typer.Option("--purpose", help="What the template is for (Q&A).")
        ] = None,
        architecture: Annotated[
            str | None, typer.Option("--architecture", help="Architecture (Q&A).")
        ] = None,
        example_files: Annotated[
            str | None,
            typer.Option(
                "--example-files",
                help="Comma-separated globs of the files to make templates from (Q&A; "
                "default: all).",
            ),
        ] = None,
        agents: Annotated[
            Literal["ai", "builtin", "none"] | None,
            typer.Option(
                "--agents",
                help="Specialist agents (Q&A): ai (the architectural-reviewer recommends), "
                "builtin, none.",
            ),
        ] = None,
        yes: Annotated[
            bool, typer.Option("--yes", help="Create the template without asking (Q&A).")
        ] = False,
    ) -> None:
        """Make a reusable template from a codebase: Q&A, analysis and agent
        recommendations by the architectural-reviewer (exit-42 bridge or --agent-command,
        heuristics when it cannot answer), templates, agents, CLAUDE.md, verified round
        trip."""
        from executor.workflows.template_create.run import TemplateOptions

        if verbose:
            common.state["verbose"] = True
        opts = TemplateOptions(
            path=path,
            resume=resume,
            dry_run=dry_run,
            output_location=output_location,
            output=output,
            skip_qa=skip_qa,
            max_templates=max_templates,
            no_agents=no_agents,
            validate=validate,
            force=force,
            agent_command=agent_command,
            agent=agent,
            answers=_answers(
                template_name=name,
                language=language,
                purpose=purpose,
                architecture=architecture,
                example_files=example_files,
                agents=agents,
                confirmed=yes,
            ),
        )
        rerun = f"executor template-create --path {quote(path.absolute())} --resume"
        common.run(lambda: template_create(opts, verbose=verbose), rerun=rerun)

    @app.command("template-apply")
    def _template_apply(
        template: Annotated[
            str,
            typer.Argument(
                help="Template folder, or a template name (./templates/, "
                "then the per-user templates folder)."
            ),
        ],
        dest: Annotated[Path, typer.Argument(help="Folder to create the project in.")],
        sets: Annotated[
            list[str] | None,
            typer.Option(
                "--set", help="Placeholder value, NAME=VALUE (repeatable).", metavar="NAME=VALUE"
            ),
        ] = None,
        force: Annotated[
            bool, typer.Option("--force", help="Overwrite files that already exist.")
        ] = False,
        yes: Annotated[
            bool,
            typer.Option(
                "--yes",
                "-y",
                help="Write without asking (CI). Without it the files are listed and "
                "written only once you confirm at a terminal.",
            ),
        ] = False,
    ) -> None:
        """Render a template into a new project (placeholders: --set, else defaults):
        lists every file it will write, then writes once you confirm (or --yes)."""
        common.run(lambda: template_apply(template, dest, sets=sets or [], force=force, yes=yes))
