"""`executor template-create` (a codebase into a template) and `template-apply` (a
template into a project).

Thin: read flags, call `executor.workflows.template_create.run` / `executor.templates.apply`
through `common.run`. Every Q&A question is also an option (the names come from
`executor.templates.questions`; a test keeps them in step).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from executor.cli.spec import Commands
from executor.params import Param

if TYPE_CHECKING:
    from pathlib import Path

    from executor.workflows.template_create.context import TemplateResult
    from executor.workflows.template_create.run import TemplateOptions


def parse_sets(pairs: list[str]) -> dict[str, str]:
    """`["Name=Value", ...]` -> {"Name": "Value"}; UserError for anything else."""
    from executor.errors import UserError

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

    from executor import console
    from executor.errors import UserError
    from executor.templates.apply import locate_template, render_template, write_rendered
    from executor.words import plural

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
    from executor import console
    from executor.workflows.template_create.run import create_template

    if opts.agent_command is not None or opts.agent is not None:
        from executor.engine.process import AgentProcess

        AgentProcess.from_options(opts.agent_command, opts.agent)  # a usage error now
    show(create_template(opts, report=console.out), dry_run=opts.dry_run, verbose=verbose)
    return 0


def show(result: TemplateResult, *, dry_run: bool, verbose: bool) -> None:
    from executor import console
    from executor.fsutil import quote

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


commands = Commands()


@commands(
    "template-create",
    Param("path", "--path", kind="path", required=True, help="The codebase to make a template of."),
    Param("name", "--name", help="Template name (Q&A; default: detected)."),
    Param("output_location", "--output-location", choices=("global", "repo"),
          metavar="[global|repo]",
          help="global: the per-user templates folder (default); repo: ./templates/NAME."),
    Param("output", "--output", kind="path", help="Write the template to this folder."),
    Param("skip_qa", "--skip-qa", kind="flag", help="Ask nothing: take the detected defaults."),
    Param("dry_run", "--dry-run", kind="flag",
          help="Analyse and list what would be written; write nothing."),
    Param("validate", "--validate", kind="flag", help="Also write validation-report.md."),
    Param("no_agents", "--no-agents", kind="flag", help="No agent requests: heuristics only."),
    Param("max_templates", "--max-templates", kind="int", minimum=1,
          help="At most N templates (examples first)."),
    Param("resume", "--resume", kind="flag",
          help="Continue the saved run (after exit 42, a failure or an interruption)."),
    Param("agent_command", "--agent-command",
          help="Answer the agent requests with this command instead of the exit-42 bridge "
          "(`executor docs agent-command`). Saved with the run."),
    Param("agent", "--agent", metavar="NAME",
          help="Answer the agent requests with a ready-made command line for this CLI: "
          "claude, codex, gemini, aider (`executor agents`); bridge: the exit-42 bridge "
          "(drops a saved agent). Saved with the run."),
    Param("force", "--force", kind="flag", help="Replace a template that exists already."),
    Param("verbose", "--verbose", kind="flag",
          help="Warnings, and tracebacks for internal errors."),
    Param("language", "--language", help="Primary language (Q&A)."),
    Param("purpose", "--purpose", help="What the template is for (Q&A)."),
    Param("architecture", "--architecture", help="Architecture (Q&A)."),
    Param("example_files", "--example-files",
          help="Comma-separated globs of the files to make templates from (Q&A; default: "
          "all)."),
    Param("agents", "--agents", choices=("ai", "builtin", "none"), metavar="[ai|builtin|none]",
          help="Specialist agents (Q&A): ai (the architectural-reviewer recommends), "
          "builtin, none."),
    Param("yes", "--yes", kind="flag", help="Create the template without asking (Q&A)."),
)  # fmt: skip
def template_create_command(
    path: Path, name: str | None, output_location: str | None, output: Path | None,
    skip_qa: bool, dry_run: bool, validate: bool, no_agents: bool, max_templates: int | None,
    resume: bool, agent_command: str | None, agent: str | None, force: bool, verbose: bool,
    language: str | None, purpose: str | None, architecture: str | None,
    example_files: str | None, agents: str | None, yes: bool,
) -> None:  # fmt: skip
    """Make a reusable template from a codebase: Q&A, analysis and agent
    recommendations by the architectural-reviewer (exit-42 bridge or --agent-command,
    heuristics when it cannot answer), templates, agents, CLAUDE.md, verified round
    trip."""
    from executor.cli import common
    from executor.fsutil import quote
    from executor.workflows.template_create.run import TemplateOptions

    if verbose:
        common.state["verbose"] = True
    opts = TemplateOptions(
        path=path,
        resume=resume,
        dry_run=dry_run,
        output_location=output_location,  # type: ignore[arg-type]  # one of the choices
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


@commands(
    "template-apply",
    Param("template", required=True,
          help="Template folder, or a template name (./templates/, then the per-user "
          "templates folder)."),
    Param("dest", kind="path", required=True, help="Folder to create the project in."),
    Param("sets", "--set", repeat=True, metavar="NAME=VALUE",
          help="Placeholder value, NAME=VALUE (repeatable)."),
    Param("force", "--force", kind="flag", help="Overwrite files that already exist."),
    Param("yes", "-y", "--yes", kind="flag",
          help="Write without asking (CI). Without it the files are listed and written only "
          "once you confirm at a terminal."),
)  # fmt: skip
def template_apply_command(
    template: str, dest: Path, sets: list[str] | None, force: bool, yes: bool
) -> None:
    """Render a template into a new project (placeholders: --set, else defaults):
    lists every file it will write, then writes once you confirm (or --yes)."""
    from executor.cli import common

    common.run(lambda: template_apply(template, dest, sets=sets or [], force=force, yes=yes))
