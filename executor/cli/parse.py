"""The command line, read with argparse (the standard library) from the declarations.

Each call builds the parser of the one command it names (`executor.cli.spec`), so a
host's `bridge respond --resume` pays for two small parsers and `executor --help` for
none: the listing of commands and the root options are written from the tables. A bad
command line is a `UserError` (exit 64, one line, said by `executor.cli.common`); help
goes to stdout and exits 0, or to stderr with exit 64 when a group is named without a
command.

Why argparse: importing typer alone costs 6 bare interpreters on this machine and
click's 4, argparse's under 1 (docs/performance.md, "Starting the CLI").
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from executor.cli.spec import Command, Commands
from executor.params import Param

if TYPE_CHECKING:
    from executor.errors import UserError

#: what `--help` shows for a value without a metavar of its own
_METAVAR = {"text": "TEXT", "int": "INTEGER", "number": "FLOAT", "path": "PATH"}
HELP = ("-h", "--help")
_HELP_TEXT = "Show this message and exit."


class Done(BaseException):
    """Help was printed: the call is over (`code`: its exit code). Not an error: the
    error boundary lets it pass."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def usage_error(message: str, prog: str) -> UserError:
    """A bad command line: what is wrong, and where to see what it takes."""
    from executor.errors import UserError

    return UserError(f"{message} (`{prog} -h` shows what it takes)")


def parse(prog: str, command: Command, args: Sequence[str]) -> dict[str, Any]:
    """`args` (after the command's words) as one value per parameter, by name; Done
    after `-h`; UserError for a bad command line."""
    values = vars(_parser(prog, command).parse_args(list(args)))
    for param in command.params:
        word = os.environ.get(param.envvar) if param.envvar else None
        if word and values[param.name] is None:  # set and not empty
            try:
                values[param.name] = param.parse(word)
            except ValueError as e:
                raise usage_error(f"{param.envvar}={word!r}: {e}", prog) from None
    return values


def group_help(
    prog: str, group: Commands, options: Sequence[tuple[str, str, str]] = (), epilog: str = ""
) -> str:
    """The help of a group of commands (the root is one): usage, text, `options` (flags,
    value, help), the commands with their summaries, `epilog`."""
    formatter = _Formatter(prog)
    formatter.add_usage(f"{prog} [OPTIONS] COMMAND [ARGS]...", [], [])
    formatter.add_text(group.help)
    formatter.start_section("Options")
    parser = _Parser(prog=prog, add_help=False, formatter_class=_Formatter)
    for flags, value, text in [*options, (", ".join(HELP), "", _HELP_TEXT)]:
        flag_list = flags.split(", ")
        if value:
            action = parser.add_argument(*flag_list, metavar=value, help=text)
        else:
            action = parser.add_argument(*flag_list, action="store_true", help=text)
        formatter.add_argument(action)
    formatter.end_section()
    text = formatter.format_help()
    shown = [e for e in group.entries.values() if not e.hidden]
    width = max((len(e.name) for e in shown), default=0)
    rows = [_row(e.name.ljust(width), e.summary, formatter.width) for e in shown]
    text += "\nCommands:\n" + "\n".join(rows) + "\n"
    if epilog:
        text += "\n" + formatter._fill_text(epilog, formatter.width, "  ") + "\n"
    return text


def _row(name: str, summary: str, width: int) -> str:
    room = max(width - len(name) - 4, 20)
    if len(summary) > room:  # as click lists them: one line each, cut at a word
        summary = summary[: room - 3].rsplit(" ", 1)[0] + "..."
    return f"  {name}  {summary}"


class _Formatter(argparse.HelpFormatter):
    """click's look: `Usage:`, paragraphs kept, 80 columns at most."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=34, width=_width())

    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, "Usage: ")

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        return "\n\n".join(
            textwrap.fill(" ".join(p.split()), width, initial_indent=indent,
                          subsequent_indent=indent, break_on_hyphens=False)
            for p in text.split("\n\n") if p.strip()
        )  # fmt: skip

    def _split_lines(self, text: str, width: int) -> list[str]:
        # a flag or a topic cut at its hyphen (`--no-` / `verify`) cannot be copied
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    @property
    def width(self) -> int:
        return self._width


def _width() -> int:
    try:
        columns = int(os.environ.get("COLUMNS", "")) or os.get_terminal_size(1).columns
    except (ValueError, OSError):
        columns = 80
    return max(min(columns, 80) - 2, 50)


#: argparse's words for what is wrong -> ours
_WORDED = {
    "unrecognized arguments: ": "not an option or argument of this command: ",
    "the following arguments are required: ": "missing ",
}


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing and exiting."""

    def error(self, message: str) -> NoReturn:
        for theirs, ours in _WORDED.items():
            message = message.replace(theirs, ours)
        raise usage_error(message.removeprefix("argument "), self.prog)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise Done(status)

    def print_help(self, file: Any = None) -> None:
        sys.stdout.write(self.format_help())


class _Switch(argparse.Action):
    """A flag and its opposite (`--no-verify` / `--verify`): given both, a usage error."""

    pair = ""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        before = getattr(namespace, self.dest)
        if before is not None and before != self.const:
            parser.error(f"{self.pair} say opposite things; give one")
        setattr(namespace, self.dest, self.const)


def _parser(prog: str, command: Command) -> _Parser:
    positional = [p for p in command.params if p.positional]
    usage = f"{prog} [OPTIONS]" + "".join(
        f" {p.metavar}" if p.required else f" [{p.metavar}]" for p in positional
    )
    parser = _Parser(
        prog=prog,
        usage=usage,
        description=command.help,
        add_help=False,
        allow_abbrev=False,
        formatter_class=_Formatter,
    )
    arguments = parser.add_argument_group("Arguments") if positional else None
    options = parser.add_argument_group("Options")
    for param in command.params:
        if arguments is not None and param.positional:
            _add(arguments, param)
        else:
            _add(options, param)
    options.add_argument(*HELP, action="help", help=_HELP_TEXT)
    return parser


def _add(group: Any, param: Param) -> None:
    shown = " ".join(p for p in (param.help, param.hint()) if p)
    text = argparse.SUPPRESS if param.hidden else shown.replace("%", "%%")
    if param.positional:
        group.add_argument(
            param.name, metavar=param.metavar, type=_reader(param), default=param.unset(),
            nargs=None if param.required else "?", help=text,
        )  # fmt: skip
    elif param.kind == "flag" and param.off:
        opposite = f"The opposite of {param.flags[0]}."
        on = group.add_argument(*param.flags, dest=param.name, action=_Switch, nargs=0,
                                const=True, default=param.unset(), help=text)  # fmt: skip
        off = group.add_argument(*param.off, dest=param.name, action=_Switch, nargs=0,
                                 const=False, help=opposite)  # fmt: skip
        on.pair = off.pair = f"{param.flags[0]} and {param.off[0]}"
    elif param.kind == "flag":
        group.add_argument(*param.flags, dest=param.name, action="store_true", help=text)
    else:
        group.add_argument(
            *param.flags, dest=param.name, metavar=param.metavar or _METAVAR[param.kind],
            type=_reader(param), action="append" if param.repeat else "store",
            default=param.unset(), required=param.required, help=text,
        )  # fmt: skip


def _reader(param: Param) -> Any:
    def read(word: str) -> Any:
        if param.choices and word not in param.choices:  # worded as click words it
            listed = ", ".join(repr(c) for c in param.choices)
            raise argparse.ArgumentTypeError(f"{word!r} is not one of {listed}")
        try:
            return param.parse(word)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    read.__name__ = param.kind  # argparse names the kind in an error it words itself
    return read
