"""The run options, declared once: each one's flag, kind, default, check and help.

One `Opt` per option on `RunOptions` is the whole declaration: the run commands'
parameters (`executor.cli.run`), the keys `[tool.executor]` / `.executor.toml` may set
(`executor.project_config`), the options a run saves and `--resume` reuses (the state's
`run.options`), and `executor config`'s rows all come from it (copier's `Worker` is the
model: one validated options object).

Precedence (`resolve`): a flag given now > the run's saved options > the project's
config > the default. What a run resolves is saved with it, so `--resume` and
`resume-session` continue the way the run started.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, overload

from executor.params import Param

if TYPE_CHECKING:
    from pathlib import Path

    from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
    from pydantic_core import CoreSchema

T = TypeVar("T")


class Settings(Protocol):
    """What a project's settings give the options (`executor.project_config.ProjectConfig`,
    which reads and checks them with this module's rules)."""

    @property
    def test_command(self) -> str | None: ...
    @property
    def defaults(self) -> Mapping[str, Any]: ...
    @property
    def source(self) -> Path | None: ...


#: `--checkpoints` -> the checkpoints that stop for a person.
CHECKPOINT_SETS = {
    "all": frozenset(
        {"before_start", "after_red", "after_green", "after_refactor", "session_complete"}
    ),
    "session": frozenset({"session_complete"}),
    "none": frozenset(),
}
_NOTIFY = re.compile(r"on|off|https?://[^\s/?#]+\S*")


def _notify(value: str) -> str | None:
    ok = _NOTIFY.fullmatch(value)
    return None if ok else "expected on, off or an http:// or https:// URL"


class Opt(Param, Generic[T]):
    """A run option: a parameter of the run commands (`--name-with-dashes`), a key of
    the project's config and a field of the saved options, all named by its attribute."""

    __slots__ = ("compact",)

    def __init__(self, default: T, *, kind: str, compact: bool = False, **param: Any) -> None:
        super().__init__("", kind=kind, default=default, **param)
        #: left out of the saved options while unset: a run that never asked for it
        #: saves the same options as before it existed
        self.compact = compact

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.flags = ("--" + name.replace("_", "-"),)

    def unset(self) -> Any:
        return None  # not given now: the saved run, the config or the default decides

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Opt[T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...
    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return obj.__dict__[self.name]


class RunOptions:
    """The options a run was started with; `--resume` and `resume-session` reuse them
    unless the command line overrides one. Immutable: `replace` makes another."""

    agent_command: Opt[str | None] = Opt(
        None,
        kind="text",
        metavar="CMD",
        help="Run each agent request with this command instead of the exit-42 bridge "
        "(`executor docs agent-command`). Saved with the run (--agent bridge drops it).",
    )
    agent: Opt[str | None] = Opt(
        None,
        kind="text",
        metavar="NAME",
        help="Run each agent request with a ready-made command line for this CLI: claude, "
        "codex, gemini, aider (`executor agents` shows each), or replay with --solutions; "
        "bridge: no agent process, the exit-42 bridge (the default; use it to drop a saved "
        "--agent or --agent-command). Saved with the run.",
    )
    agent_timeout: Opt[int | None] = Opt(
        None,
        kind="int",
        minimum=1,
        metavar="SECONDS",
        help="Seconds one agent call may take before it is killed (default 1200). Saved.",
    )
    test_timeout: Opt[int | None] = Opt(
        None,
        kind="int",
        minimum=1,
        metavar="SECONDS",
        help="Seconds one test run may take before it is killed (default 3600); a run killed "
        "in RED is not a RED. Saved with the run.",
    )
    checkpoints: Opt[str] = Opt(
        "all",
        kind="text",
        choices=tuple(CHECKPOINT_SETS),
        metavar="[all|session|none]",
        help="Where to stop for a person: all (the default), session (only between "
        "sessions) or none. Saved with the run.",
    )
    sandbox: Opt[str] = Opt(
        "auto",
        kind="text",
        choices=("auto", "off"),
        metavar="[auto|off]",
        help="auto (the default): run tests in a bubblewrap sandbox when bwrap works here "
        "(git, the plan and the executor's files read-only; nothing outlives the run); "
        "off: without. Saved with the run.",
    )
    no_verify: Opt[bool] = Opt(
        False,
        kind="flag",
        off=("--verify",),
        help="Do not run the repository's own commit hooks (pre-commit) before a session's "
        "commit. Saved with the run; --verify runs them again (the default).",
    )
    max_retries: Opt[int] = Opt(
        2,
        kind="int",
        minimum=0,
        metavar="N",
        help="Automatic GREEN/REFACTOR retries before asking a person (default 2). Saved "
        "with the run.",
    )
    test_command: Opt[str | None] = Opt(
        None,
        kind="text",
        metavar="CMD",
        help="Project test command: the fallback for sessions without one, and the "
        "whole-suite check. Saved with the run.",
    )
    budget_usd: Opt[float | None] = Opt(
        None,
        kind="number",
        minimum=0,
        metavar="USD",
        help="Stop before the next agent call once agents have cost this much (as their "
        "CLIs report it). Saved with the run.",
    )
    budget_tokens: Opt[int | None] = Opt(
        None,
        kind="int",
        minimum=0,
        metavar="N",
        help="Stop before the next agent call once agents have used this many tokens. Saved.",
    )
    budget_minutes: Opt[float | None] = Opt(
        None,
        kind="number",
        minimum=0,
        metavar="MINUTES",
        help="Stop before the next agent call once agents have run this many minutes "
        "(their wall time). Saved.",
    )
    tag: Opt[str | None] = Opt(
        None,
        kind="text",
        metavar="TAG",
        help="A Task Master plan: the tag whose tasks to run (default: master). Saved with "
        "the run.",
    )
    notify: Opt[str] = Opt(
        "on",
        kind="text",
        check=_notify,
        metavar="on|off|URL",
        help="When the run waits for a person, stops on a budget or ends: on (the default: a "
        "terminal bell, and a desktop notification where there is a display), off, or a "
        "URL to POST JSON to as well (Slack-compatible `text`). Saved with the run.",
    )
    min_mutation_score: Opt[int | None] = Opt(
        None,
        kind="int",
        minimum=0,
        maximum=100,
        compact=True,
        metavar="PERCENT",
        help="Stop for a person (exit 16 with --yes) when fewer than this percent of the "
        "mutants of a session's changed lines are killed by its tests; with an agent, first "
        "retry GREEN/REFACTOR with the survivors (`executor docs test-strength`). Off by default. "
        "Saved.",
    )
    mutation_budget: Opt[int | None] = Opt(
        None,
        kind="int",
        minimum=0,
        compact=True,
        metavar="SECONDS",
        envvar="EXECUTOR_MUTATION_BUDGET",
        help="Seconds one mutation step may take (default: twice the session's verification, "
        "30 to 300); past it the score is partial. 0: no mutation step. Saved with the run.",
    )
    pr: Opt[bool] = Opt(
        False,
        kind="flag",
        off=("--no-pr",),
        help="At the end of each phase, push its commits to a branch of their own (never "
        "forced) and open a pull request with gh, the phase's report as its body "
        "(`executor docs report`). Saved with the run; --no-pr turns it off.",
    )
    parallel: Opt[int | None] = Opt(
        None,
        kind="int",
        minimum=0,
        compact=True,
        metavar="N",
        help="Run sessions whose dependencies are complete side by side, each in a git "
        "worktree of its own, at most N at once (their test runs take turns on the "
        "machine's cores unless --force-parallel); 0: one at a time in this checkout. "
        "Saved with the run "
        "(`executor docs parallel`).",
    )

    OPTIONS: ClassVar[tuple[Opt[Any], ...]]

    def __init__(self, **values: Any) -> None:
        problems = [f"{k}: unknown field" for k in values if k not in _BY_NAME]
        for opt in self.OPTIONS:
            value = values.get(opt.name, opt.default)
            try:
                self.__dict__[opt.name] = opt.accept(value)
            except ValueError as e:
                problems.append(f"{opt.name}: {e}")
        if problems:
            from executor.errors import DataError

            raise DataError(problems)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"RunOptions are immutable: replace({name}=...) makes new ones")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunOptions) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        given = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"RunOptions({given})"

    def values(self) -> dict[str, Any]:
        """Every option's value, in declared order."""
        return dict(self.__dict__)

    def replace(self, **changes: Any) -> RunOptions:
        return RunOptions(**{**self.__dict__, **changes})

    def saved(self) -> dict[str, Any]:
        """What the state keeps: every option, but an unset `compact` one."""
        return {o.name: v for o, v in zip(self.OPTIONS, self.__dict__.values(), strict=True)
                if not (o.compact and v is None)}  # fmt: skip

    # -- the state file (a pydantic model) holds these as one field ----------------------
    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        from pydantic_core import core_schema

        return core_schema.no_info_plain_validator_function(
            _from_saved,
            serialization=core_schema.plain_serializer_function_ser_schema(RunOptions.saved),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return json_schema()


RunOptions.OPTIONS = tuple(v for v in vars(RunOptions).values() if isinstance(v, Opt))
_BY_NAME = {o.name: o for o in RunOptions.OPTIONS}


def _from_saved(value: Any) -> RunOptions:
    """The saved options; a saved null is the option's default (a run saved before the
    option had a default of its own saved null for it)."""
    if isinstance(value, RunOptions):
        return value
    if not isinstance(value, Mapping):
        raise ValueError(f"expected an object, got {type(value).__name__}")
    return RunOptions(**{k: _default(k) if v is None else v for k, v in value.items()})


def _default(name: str) -> Any:
    opt = _BY_NAME.get(name)
    return opt.default if opt is not None else None


def json_schema() -> dict[str, Any]:
    """The saved options' JSON Schema (docs/schemas/agent-state.schema.json)."""
    types = {"text": "string", "int": "integer", "number": "number", "flag": "boolean"}
    properties: dict[str, Any] = {}
    for opt in RunOptions.OPTIONS:
        one: dict[str, Any] = {"type": types[opt.kind]}
        if opt.choices:
            one["enum"] = list(opt.choices)
        if opt.minimum is not None:
            one["minimum"] = opt.minimum
        if opt.maximum is not None:
            one["maximum"] = opt.maximum
        properties[opt.name] = {
            "anyOf": [one, {"type": "null"}],  # null: the default (`_from_saved`)
            "default": opt.default,
            "description": opt.help,
        }
    return {
        "type": "object",
        "description": " ".join((RunOptions.__doc__ or "").split()),
        "properties": properties,
        "additionalProperties": False,
    }


def settings_problems(table: Mapping[str, Any]) -> list[str]:
    """What is wrong with run options set in a config file (`key: problem` each)."""
    problems = []
    for key, value in table.items():
        opt = _BY_NAME.get(key)
        if opt is None:
            known = ", ".join(["test_command", "test_command_map", *_BY_NAME])
            problems.append(f"unknown setting {key!r}; known: {known}")
            continue
        try:
            opt.accept(value)
        except ValueError as e:
            problems.append(f"{key}: {e}")
    return problems


class Overrides:
    """Run options given on this command line (absent or None: not given)."""

    def __init__(self, **given: Any) -> None:
        unknown = [k for k in given if k not in _BY_NAME]
        if unknown:
            raise TypeError(f"not run options: {', '.join(unknown)}")
        self._given = {k: v for k, v in given.items() if v is not None}

    def given(self) -> dict[str, Any]:
        return dict(self._given)

    def get(self, name: str) -> Any:
        return self._given.get(name)


def resolve(given: Overrides, saved: RunOptions | None, config: Settings) -> RunOptions:
    """The options of this run: `given` over `saved` over `config` over the defaults.
    Naming an agent (a command, a preset, or `bridge`: no agent process) at one level
    replaces the agent of either kind below it (the config's were checked when it was
    read)."""
    from executor.errors import DataError, UserError

    values = {k: v for k, (v, _) in explain(given, saved, config).items()}
    try:
        return RunOptions(**values)
    except DataError as e:  # a value given through the API: the CLI's were checked
        raise UserError("run options: " + "; ".join(e.problems)) from None


def explain(
    given: Overrides, saved: RunOptions | None, config: Settings
) -> dict[str, tuple[Any, str]]:
    """Each option's value and where it comes from: "flag", "saved run", the config
    file's name, or "default"."""
    where = config.source.name if config.source else "config"
    layers = [
        ({o.name: o.default for o in RunOptions.OPTIONS}, "default"),
        ({"test_command": config.test_command, **config.defaults}, where),
        (saved.values() if saved is not None else {}, "saved run"),
        (given.given(), "flag"),
    ]
    out: dict[str, tuple[Any, str]] = {}
    for layer, source in layers:
        values = {k: v for k, v in layer.items() if v is not None}
        if source != "default" and ("agent_command" in values or "agent" in values):
            out.pop("agent_command", None)
            out.pop("agent", None)
        out.update({k: (v, source) for k, v in values.items()})
    return {o.name: out.get(o.name, (None, "default")) for o in RunOptions.OPTIONS}
