"""The root of the command line: the run of one call (the catalog of commands is
`executor.cli.catalog`).

No logic lives here. Each concern declares its commands in its own module: `bridge`
(host helpers), `plan` (validate/show), `run` (execute-*, resume-session, status,
demo), `config`, `init` (a starter plan and config), `logs`, `agents`, `claude`
(install-claude), `hooks` (`executor hook ...`, the Claude Code hooks), `replay`
(replay-agent), `templates` (template-create/apply), `docs` (the documentation
pages). A call imports the module of the command it names (every one for `executor
--help`), and each command imports what it needs when it runs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from executor.cli.catalog import OPTIONS, entry, root
from executor.cli.spec import Command, Commands
from executor.params import Param

commands = Commands()


@commands("exit-codes", Param("json_output", "--json", kind="flag", help="The table as JSON."))
def exit_codes(json_output: bool) -> None:
    """Print the exit-code table."""
    from executor import console
    from executor.cli import common
    from executor.exitcodes import DESCRIPTIONS, ExitCode

    def body() -> int:
        if json_output:
            console.out_json(
                [{"code": c.value, "name": c.name, "meaning": DESCRIPTIONS[c]} for c in ExitCode]
            )
            return 0
        for code in ExitCode:
            console.out(f"{code.value:>4}  {code.name:<20} {DESCRIPTIONS[code]}")
        return 0

    common.run(body, json_output=json_output)


def epilog() -> str:
    from executor.exitcodes import ExitCode

    codes = "; ".join(f"{c.value} {c.name}" for c in ExitCode)
    return (
        f"Exit codes: {codes}. `executor exit-codes` prints what each means; "
        "`executor docs` lists the documentation pages, `executor docs TOPIC` prints one."
    )


def run_app(args: Sequence[str]) -> int:
    """Run one command line (without `executor`); the exit code (never raises
    SystemExit). Calls nest: `bridge respond --resume` runs the run command."""
    first = next((a for a in args if a in ("--version", "-h", "--help") or a[:1] != "-"), "")
    if first == "--version":  # what a shell or a script asks most: no more than this
        from executor import __version__

        print(f"executor {__version__}")
        return 0
    if first in ("-h", "--help"):
        from executor.cli.parse import group_help

        sys.stdout.write(group_help("executor", root(), OPTIONS, epilog()))
        return 0
    from executor.cli import common

    try:
        with common.running(args):
            return _run(list(args))
    except common.Exit as e:
        return e.code
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        from executor.exitcodes import ExitCode

        return int(ExitCode.INTERRUPTED)


def _run(args: list[str]) -> int:
    from executor.cli import common

    call: list[tuple[Command, dict[str, Any]]] = []
    code = common.outcome(lambda: _read(args, call), json_output=False, rerun=None)
    if call and not code:
        command, values = call[0]
        command.run(**values)
    return code


def _read(args: list[str], call: list[tuple[Command, dict[str, Any]]]) -> int:
    """Read the command line: the command to run and its values into `call`, or what
    the root options ask for, done; the exit code."""
    from executor.cli import common, parse
    from executor.exitcodes import ExitCode

    words: list[str] = []
    while args and args[0].startswith("-"):
        option = args.pop(0)
        if option in ("-v", "--verbose"):
            common.state["verbose"] = True
        elif option in ("--install-completion", "--show-completion"):
            from executor.cli.completion import install_or_show

            shell = args.pop(0) if args and not args[0].startswith("-") else None
            return install_or_show(option, shell)
        else:
            raise parse.usage_error(f"no such option: {option}", "executor")
    found: Command | Commands | None = None
    while args:
        name = args.pop(0)
        table = found if isinstance(found, Commands) else None
        found = table.entries.get(name) if table is not None else entry(name)
        if found is None:
            raise parse.usage_error(f"no such command: {name}", " ".join(["executor", *words]))
        words.append(name)
        if isinstance(found, Command):
            break
        if args and args[0] in parse.HELP:
            sys.stdout.write(parse.group_help(" ".join(["executor", *words]), found))
            return 0
    prog = " ".join(["executor", *words])
    if not isinstance(found, Command):  # no command, or a group without one
        group = found if isinstance(found, Commands) else root()
        shown = (
            parse.group_help(prog, group, OPTIONS, epilog())
            if found is None
            else (parse.group_help(prog, group))
        )
        sys.stderr.write(shown)
        return int(ExitCode.USAGE_ERROR)
    try:
        call.append((found, parse.parse(prog, found, args)))
    except parse.Done as done:
        return done.code
    return 0
