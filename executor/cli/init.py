"""`executor init`: a starter plan and the config for a project (`executor.starter`).

On a terminal it asks (the format, the plan's name, the test command, then whether to
write), each question starting on the default; `--yes`, `--json` or no terminal take
the defaults and the flags as they are. It refuses to overwrite a plan or a config
(exit 64, nothing written) and ends with the commands to run next.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from executor.cli.spec import Commands
from executor.params import Param

if TYPE_CHECKING:
    from pathlib import Path

    from executor.prompts import FormPrompter
    from executor.starter.detect import Project
    from executor.starter.write import Choices, Written

_FORMAT_HELP = (
    "The plan's format: phase (PHASE files, the default), superpowers, speckit, kiro or "
    "taskmaster (`--format` names as `plan validate` takes them)."
)


commands = Commands()


@commands(
    "init",
    Param("format", "--format", metavar="FORMAT", help=_FORMAT_HELP),
    Param("name", "--name", metavar="NAME", help="The plan's name (default: the folder's)."),
    Param("test_command", "--test-command", metavar="CMD",
          help="The project's test command (default: detected: pytest, npm test, go test, "
          "cargo test)."),
    Param("folder", "--dir", kind="path", metavar="DIR",
          help="The project's folder (default: this one)."),
    Param("yes", "-y", "--yes", kind="flag", help="Take the defaults; ask nothing."),
    Param("json_output", "--json", kind="flag", help="One JSON object."),
)  # fmt: skip
def init(
    format: str | None, name: str | None, test_command: str | None, folder: Path | None,
    yes: bool, json_output: bool,
) -> None:  # fmt: skip
    """Write a starter plan and the config ([tool.executor]) for this project."""
    from pathlib import Path

    from executor import console
    from executor.cli import common

    def body() -> int:
        from executor.errors import PathNotFoundError

        root = (folder or Path.cwd()).absolute()
        if not root.is_dir():
            raise PathNotFoundError(f"--dir {root} is not a folder", path=root)
        prompter = None if yes or json_output else _terminal()
        choices = _choose(root, format, name, test_command, prompter)
        if prompter is not None and not _confirm(prompter, choices):
            console.out("Nothing was written.")
            return 1
        from executor.starter.write import write

        written = write(choices)
        _report(choices, written, json_output)
        return 0

    common.run(body, json_output=json_output)


def _terminal() -> FormPrompter | None:
    import sys

    from executor import console

    if not (sys.stdin.isatty() and console.is_tty()):
        return None
    from executor.prompts import TerminalPrompter

    return TerminalPrompter()


def _choose(
    root: Path,
    fmt: str | None,
    name: str | None,
    command: str | None,
    prompter: FormPrompter | None,
) -> Choices:
    """The flags, then the person's answers (on a terminal), then the defaults."""
    from executor import console
    from executor.choices import Option
    from executor.errors import UserError
    from executor.plan.formats import format_named
    from executor.starter.detect import detect
    from executor.starter.plans import INIT_FORMATS, LABELS, InitFormat
    from executor.starter.write import Choices, plan_name, prepare

    project = detect(root)
    chosen: str = "phase"
    if fmt is not None:
        chosen = format_named(fmt)
        if chosen not in INIT_FORMATS:
            raise UserError(
                f"init writes no {chosen} plan; choose one of {', '.join(INIT_FORMATS)}"
            )
    elif prompter is not None:
        options = [Option(f, LABELS[f]) for f in INIT_FORMATS]
        chosen = prompter.select("Plan format:", options, default="phase")
    default_name = plan_name(name) if name else project.name.replace("_", "-")
    if name is None and prompter is not None:
        name = prompter.text("Plan name:", default=default_name, validate=_name_ok)
    if command is None and prompter is not None:
        package = f", its package {project.package}/" if project.package else ""
        console.out(f"Detected a {project.kind} project ({project.why}{package}).")
        command = prompter.text(
            "Test command:", default=project.test_command, validate=lambda t: bool(t.strip())
        )
    fmt_chosen: InitFormat = chosen  # type: ignore[assignment]  # one of INIT_FORMATS
    choices = Choices(
        root=root,
        fmt=fmt_chosen,
        name=plan_name(name) if name else default_name,
        test_command=(command or project.test_command).strip(),
        project=project,
    )
    prepare(choices)  # refused now, before the person confirms: nothing is written
    return choices


def _name_ok(text: str) -> bool | str:
    from executor.errors import UserError
    from executor.starter.write import plan_name

    try:
        plan_name(text)
    except UserError as e:
        return str(e)
    return True


def _confirm(prompter: FormPrompter, choices: Choices) -> bool:
    from executor.starter.write import prepare

    plan, config = prepare(choices)
    files = ", ".join([*plan.files, config.where])
    return prompter.confirm(f"Write {files}?", default=True)


def _report(choices: Choices, written: Written, json_output: bool) -> None:
    from pathlib import Path

    from executor import console, fsutil

    root = choices.root
    here = Path.cwd().absolute()
    base = "" if root == here else f"{fsutil.quote(root)}/"
    plan = f"{base}{written.plan}"
    config_rel = written.config.path.relative_to(root)
    commit = ["git", "add", written.plan, str(config_rel)]
    git_first = "" if _in_git(root) else "git init && "
    steps = [
        f"executor plan validate {plan}",
        f"{'cd ' + fsutil.quote(root) + ' && ' if base else ''}{git_first}"
        f"{' '.join(fsutil.quote(c) for c in commit)} && git commit -m 'Add a plan'",
        f"executor execute-plan --plan {plan} --agent claude",
    ]
    from executor.starter.detect import counted

    measured = counted(choices.test_command)
    if json_output:
        console.out_json({
            "format": choices.fmt,
            "project": _project_json(choices.project),
            "test_command": choices.test_command,
            "tests_counted": measured,
            "plan": str(root / written.plan),
            "written": [str(root / f) for f in written.files] + [str(written.config.path)],
            "config": written.config.where,
            "next": steps,
        })  # fmt: skip
        return
    detected = choices.project
    package = f", its package {detected.package}/" if detected.package else ""
    console.out(f"A {detected.kind} project ({detected.why}{package}); tests run with: "
                f"{choices.test_command}")  # fmt: skip
    if not measured:
        console.out(
            f"Its tests will not be counted: `{choices.test_command}` writes no report the "
            f"executor reads (pytest, node --test, vitest and jest do), so each step is "
            f"judged by its exit code alone and shown as not measured"
            + (". To have them counted, make test_command run one of those runners "
               "directly." if detected.kind in ("node", "python") else ".")
        )  # fmt: skip
    for rel in written.files:
        console.out(f"Wrote {base}{rel}")
    verb = "Wrote" if written.config.created else "Added"
    console.out(f"{verb} {written.config.where} (test_command = {choices.test_command!r})")
    console.out(
        "Next: replace the plan's placeholder feature with your first one, then\n"
        f"  check it:  {steps[0]}\n"
        f"  commit it: {steps[1]}\n"
        f"  run it:    {steps[2]}\n"
        "(`executor agents` lists the agents; with no --agent, a host answers through the "
        "exit-42 bridge.)"
    )


def _project_json(project: Project) -> dict[str, str | None]:
    return {"kind": project.kind, "why": project.why, "name": project.name,
            "package": project.package}  # fmt: skip


def _in_git(root: Path) -> bool:
    return any((d / ".git").exists() for d in (root, *root.parents))
