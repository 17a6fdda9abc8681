"""The `--resume` path: a run command continued after exit 42, parsed without typer.

A host repeats this for every agent call and every checkpoint, so it must cost what the
interpreter costs (docs/performance.md). It reads the same option table as the typer
commands (`options.RUN_OPTIONS`); anything it does not recognise (help, a typo, a bad
value) returns None and the typer application handles the command, with its messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from executor.cli.options import RUN_OPTIONS, RunOpt

if TYPE_CHECKING:
    from executor.workflows.tdd.scope import Scope

#: command -> the positional argument it takes ("" for none)
COMMANDS = {
    "execute-phase": "phase",
    "execute-session": "session",
    "resume-session": "session",
    "execute-plan": "",
}
_FLAGS: dict[str, RunOpt] = {flag: opt for opt in RUN_OPTIONS for flag in opt.flags}


def parse(args: Sequence[str]) -> tuple[Scope, dict[str, Any]] | None:
    """(scope, option values) for `<run command> ... --resume`; None: not for this path."""
    if not args or args[0] not in COMMANDS or "--resume" not in args:
        return None
    values: dict[str, Any] = {o.name: (False if o.kind is bool else None) for o in RUN_OPTIONS}
    number: int | None = None
    phase: int | None = None
    rest = list(args[1:])
    while rest:
        arg = rest.pop(0)
        flag, eq, inline = arg.partition("=")
        if arg.isdigit() and number is None and COMMANDS[args[0]]:
            number = int(arg)
            continue
        if flag == "--phase" and args[0] == "execute-session":
            text = inline if eq else (rest.pop(0) if rest else "")
            if not text.isdigit():
                return None
            phase = int(text)
            continue
        opt = _FLAGS.get(flag)
        if opt is None:
            return None
        if opt.kind is bool:
            if eq:
                return None
            values[opt.name] = True
            continue
        value = _value(opt, inline if eq else (rest.pop(0) if rest else None))
        if value is None:
            return None
        values[opt.name] = value
    if COMMANDS[args[0]] and number is None:
        return None
    return _scope(args[0], number, phase), values


def _value(opt: RunOpt, text: str | None) -> Any:
    if text is None:
        return None
    if opt.choices and text not in opt.choices:
        return None
    try:
        value: Any = opt.kind(text)
    except ValueError:
        return None
    if opt.minimum is not None and value < opt.minimum:
        return None
    return Path(text) if opt.kind is Path else value


def _scope(command: str, number: int | None, phase: int | None) -> Scope:
    from executor.workflows.tdd.scope import PhaseScope, PlanScope, SessionScope

    if command == "execute-plan":
        return PlanScope()
    if command == "execute-phase":
        assert number is not None
        return PhaseScope(number)
    assert number is not None
    return SessionScope(number, phase)


def run(scope: Scope, values: dict[str, Any]) -> int:
    """Run the command as the typer one would; its exit code."""
    from executor.cli import common
    from executor.cli.execute import run_scope

    try:
        run_scope(scope, values)
    except common.Exit as e:
        return e.code
    return 0
