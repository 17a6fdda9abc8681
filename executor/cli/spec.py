"""The commands, declared as data: each one's name, parameters, help and function.

A module of `executor.cli` keeps its commands in a table (`commands = Commands()`, then
`@commands("status", PLAN, JSON)` on the function that runs the command, called with
one keyword argument per parameter); `executor.cli.app` maps each command name to its
module, so a call imports the module of the command it names and nothing else. The
parser, the help and the shell completion are made from these tables
(`executor.cli.parse`, `executor.cli.completion`). A module keeps what a command needs
inside its function: `executor --help` imports every module of `executor.cli` and pays
only for the tables.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from executor.params import Param

F = TypeVar("F", bound=Callable[..., Any])


class Command:
    """One command: `run(**values)` with a value per parameter, by name."""

    __slots__ = ("help", "hidden", "name", "params", "run", "summary")

    def __init__(
        self,
        name: str,
        run: Callable[..., Any],
        params: tuple[Param, ...],
        help: str,
        *,
        summary: str = "",
        hidden: bool = False,
    ) -> None:
        self.name = name
        self.run = run
        self.params = params
        self.help = help
        #: what a listing of commands shows: the first paragraph of the help, or this
        self.summary = summary or " ".join(help.split("\n\n")[0].split())
        self.hidden = hidden


class Commands:
    """An ordered table of commands; a group of commands is one too (`executor bridge`).
    `load(table)`, when given, adds the commands the first time they are looked at (a
    listing of groups needs none of them)."""

    def __init__(
        self, name: str = "", help: str = "", load: Callable[[Commands], None] | None = None
    ) -> None:
        self.name = name
        self.help = help
        self.summary = " ".join(help.split("\n\n")[0].split())
        self.hidden = False
        self._entries: dict[str, Command | Commands] = {}
        self._load = load

    @property
    def entries(self) -> dict[str, Command | Commands]:
        if self._load is not None:
            load, self._load = self._load, None
            load(self)
        return self._entries

    def __call__(
        self, name: str, *params: Param, help: str = "", summary: str = "", hidden: bool = False
    ) -> Callable[[F], F]:
        """Declare `name`, run by the function this decorates (its docstring: the help)."""

        def add(fn: F) -> F:
            text = help or _doc(fn)
            self.entries[name] = Command(name, fn, params, text, summary=summary, hidden=hidden)
            return fn

        return add

    def group(
        self, name: str, help: str, load: Callable[[Commands], None] | None = None
    ) -> Commands:
        """A group of commands under `name` (`executor NAME COMMAND ...`)."""
        group = self.entries[name] = Commands(name, help, load)
        return group

    def add(self, command: Command) -> None:
        self.entries[command.name] = command


def _doc(fn: Callable[..., Any]) -> str:
    """A docstring without its indentation (`inspect.cleandoc`, which costs its import)."""
    lines = (fn.__doc__ or "").strip().splitlines()
    return "\n".join(line.strip() for line in lines)
