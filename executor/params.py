"""A parameter declared as data: its name, flags, kind, default, check and help.

Every command line is built from these (`executor.cli.parse` makes the parser and the
help, `executor.cli.completion` completes them), and a run option is one of them with a
setting of its own (`executor.runoptions`): the flag, the `[tool.executor]` key, the
saved value and `executor config`'s row come from one declaration. A value is checked
the same way wherever it comes from (a command-line word, TOML, the saved run), and a
problem reads `expected ..., got ...` as the file models' problems do
(`executor.datamodel`).

Loading this costs nothing a `--help` would notice: no pydantic, no pathlib.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

#: kind -> what a value of it is, in a problem
KINDS = {
    "text": "a string",
    "int": "an integer",
    "number": "a finite number",
    "path": "a path",
    "flag": "true or false",
}


class Param:
    """One argument (no flags) or option of a command."""

    __slots__ = (
        "check",
        "choices",
        "default",
        "envvar",
        "flags",
        "help",
        "hidden",
        "kind",
        "maximum",
        "metavar",
        "minimum",
        "name",
        "off",
        "repeat",
        "required",
    )

    def __init__(
        self,
        name: str,
        *flags: str,
        kind: str = "text",
        default: Any = None,
        help: str = "",
        metavar: str = "",
        choices: tuple[str, ...] = (),
        minimum: float | None = None,
        maximum: float | None = None,
        envvar: str | None = None,
        check: Callable[[Any], str | None] | None = None,
        off: tuple[str, ...] = (),
        required: bool = False,
        repeat: bool = False,
        hidden: bool = False,
    ) -> None:
        assert kind in KINDS, kind
        self.name = name
        self.flags = flags
        self.kind = kind
        self.default = False if kind == "flag" and default is None else default
        self.help = help
        self.metavar = metavar or (name.upper() if not flags else "")
        self.choices = choices
        self.minimum = minimum
        self.maximum = maximum
        self.envvar = envvar
        #: a further check of a value of the right kind: the problem, or None
        self.check = check
        #: flags that set a flag's value to False (`--verify` beside `--no-verify`)
        self.off = off
        self.required = required
        #: the option may be given several times; its value is the list
        self.repeat = repeat
        self.hidden = hidden

    @property
    def positional(self) -> bool:
        return not self.flags

    def unset(self) -> Any:
        """The value when the command line does not give it."""
        return self.default

    def parse(self, word: str) -> Any:
        """A command-line word as this parameter's value; ValueError(problem)."""
        value: Any = word
        if self.kind in ("int", "number"):
            try:
                value = int(word) if self.kind == "int" else float(word)
            except ValueError:
                raise ValueError(f"expected {KINDS[self.kind]}, got {word!r}") from None
        elif self.kind == "path":
            from pathlib import Path

            value = Path(word)
        return self.accept(value)

    def accept(self, value: Any) -> Any:
        """`value` (parsed, or read from a file) checked; ValueError(problem). A whole
        number given for a number is that number (`budget_usd = 5` is 5.0)."""
        problem = self.problem(value)
        if problem is not None:
            raise ValueError(problem)
        return float(value) if self.kind == "number" and value is not None else value

    def problem(self, value: Any) -> str | None:
        """What is wrong with `value` (from a file or parsed), None when nothing."""
        if value is None:
            return None if self.default is None else f"expected {KINDS[self.kind]}, got null"
        kind = self.kind
        if kind == "flag" and not isinstance(value, bool):
            return f"expected true or false, got {_kind(value)}"
        if kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
            return f"expected an integer, got {_kind(value)}"
        if kind == "number":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return f"expected a number, got {_kind(value)}"
            if not math.isfinite(value):
                return f"expected a finite number, got {value!r}"
        if kind == "text" and not isinstance(value, str):
            return f"expected a string, got {_kind(value)}"
        if self.choices and value not in self.choices:
            return f"expected one of {', '.join(self.choices)}, got {value!r}"
        if self.minimum is not None and value < self.minimum:
            return f"must be at least {_number(self.minimum)}, got {value!r}"
        if self.maximum is not None and value > self.maximum:
            return f"must be at most {_number(self.maximum)}, got {value!r}"
        return self.check(value) if self.check is not None else None

    def hint(self) -> str:
        """What `--help` adds after the text: the env var, the bounds, required."""
        parts = [f"env var: {self.envvar}"] if self.envvar else []
        if self.minimum is not None and self.maximum is not None:
            parts.append(f"{_number(self.minimum)}<=x<={_number(self.maximum)}")
        elif self.minimum is not None:
            parts.append(f"x>={_number(self.minimum)}")
        if self.required:
            parts.append("required")
        return f"[{'; '.join(parts)}]" if parts else ""


def _number(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__
