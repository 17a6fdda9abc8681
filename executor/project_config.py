"""Project settings: `[tool.executor]` in pyproject.toml, or `.executor.toml`, at the root.

```toml
[tool.executor]                      # in .executor.toml: the same keys at the top level
test_command = "python -m pytest -q"  # the project's test command (plans that name none)
[tool.executor.test_command_map]     # a plan's command -> the one to run here
"docker compose run --rm django pytest" = "pytest"
```

`.executor.toml` wins when both files have settings. A map key matches a command
exactly, or as a prefix followed by a space (the rest of the command is kept): the
longest matching key wins (`map_test_command`).

TOML is read with the standard library's `tomllib` (Python 3.11+), or `tomli` (the same
reader, a dependency on Python 3.10).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, SerializerFunctionWrapHandler, model_serializer

from executor.datamodel import DataError, Strict, validate
from executor.errors import ConfigError

FILES = (".executor.toml", "pyproject.toml")


Checkpoints = Literal["all", "session", "none"]
Sandboxing = Literal["auto", "off"]
_NOTIFY = re.compile(r"on|off|https?://[^\s/?#]+\S*")


def _notify_setting(value: str | None) -> str | None:
    if value is not None and not _NOTIFY.fullmatch(value):
        raise ValueError("expected on, off or an http:// or https:// URL")
    return value


#: `--notify`: on (bell and desktop), off, or a webhook URL (executor.notify).
NotifySetting = Annotated[str | None, AfterValidator(_notify_setting)]


class RunOptions(Strict):
    """The options a run was started with; `--resume` and `resume-session` reuse them
    unless the command line overrides one."""

    agent_command: str | None = Field(
        default=None, description="run agents with this command; null: the exit-42 bridge"
    )
    agent: str | None = Field(
        default=None,
        description=(
            "run agents with this preset (claude, codex, ...); bridge (like null with no "
            "agent_command): the exit-42 bridge"
        ),
    )
    agent_timeout: int | None = Field(
        default=None, ge=1, description="seconds an agent call may take"
    )
    test_timeout: int | None = Field(
        default=None, ge=1, description="seconds a test run may take (null: 3600)"
    )
    checkpoints: Checkpoints = "all"
    sandbox: Sandboxing = Field(
        default="auto", description="auto: tests run in bubblewrap when it works here"
    )
    no_verify: bool = Field(
        default=False, description="skip the person's commit hooks (pre-commit) in verification"
    )
    max_retries: int = Field(default=2, ge=0)
    test_command: str | None = None
    budget_usd: float | None = Field(default=None, ge=0)
    budget_tokens: int | None = Field(default=None, ge=0)
    budget_minutes: float | None = Field(default=None, ge=0, description="agent wall time")
    tag: str | None = Field(default=None, description="a Task Master plan's tag to run")
    notify: NotifySetting = Field(
        default=None,
        description=(
            "on (null: the same): a terminal bell and a desktop notification when the run "
            "waits for a person, stops on a budget or ends; off: none; a URL: those and a "
            "JSON POST to it"
        ),
    )
    min_mutation_score: int | None = Field(
        default=None,
        ge=0,
        le=100,
        description=(
            "stop (a person decides) when fewer than this percent of the mutants of a "
            "session's changed lines are killed by its tests; null: no minimum"
        ),
    )
    mutation_budget: int | None = Field(
        default=None,
        ge=0,
        description="seconds one mutation step may take (null: 300; 0: no mutation step)",
    )
    parallel: int | None = Field(
        default=None,
        ge=0,
        description=(
            "run sessions side by side in git worktrees, at most this many at once "
            "(docs/parallel.md); null or 0: one at a time in the checkout"
        ),
    )
    pr: bool | None = Field(
        default=None,
        description="true: at the end of each phase, push its commits to a branch and open a "
        "pull request with gh, the phase's report as its body (docs/report.md); null or "
        "false: none (the default)",
    )

    @model_serializer(mode="wrap")
    def _compact(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Unset, `parallel`, the mutation settings and `pr` are left out: a run that
        never asked for them saves the same options as before they existed."""
        out: dict[str, Any] = handler(self)
        for name in ("parallel", "min_mutation_score", "mutation_budget", "pr"):
            if getattr(self, name) is None:
                out.pop(name, None)
        return out


class ProjectConfig(Strict, frozen=True):
    """The settings that apply to a repository (all optional). (A record, not a
    dataclass: the resume path reads it and cannot pay for importing `dataclasses`.)"""

    test_command: str | None = None
    test_command_map: dict[str, str] = Field(default_factory=dict)
    #: defaults for run options (`checkpoints = "session"`, `max_retries = 3`, ...), keyed
    #: as the option with underscores; the run checks them (executor.workflows.tdd.options)
    defaults: dict[str, Any] = Field(default_factory=dict)
    #: The file they were read from (None: no settings anywhere).
    source: Path | None = None


def find_root(start: Path) -> Path:
    """The repository root above `start` (the folder holding `.git`), else `start`'s folder."""
    start = Path(start).absolute()
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def load_project_config(root: Path) -> ProjectConfig:
    """The settings in `root` (see the module docstring); ConfigError if they are bad."""
    for name in FILES:
        path = Path(root) / name
        if not path.is_file():
            continue
        data = _parse(path)
        executor = (
            data.get("tool", {}).get("executor") if isinstance(data.get("tool"), dict) else None
        )
        if name == ".executor.toml":
            return _settings(executor if executor is not None else data, path)
        if executor is not None:
            return _settings(executor, path)
    return ProjectConfig()


def map_test_command(command: str, config: ProjectConfig) -> str:
    """`command` as the project runs it: an exact key of `test_command_map`, else the
    longest key that is a prefix of it (at a word boundary), else unchanged."""
    mapping = config.test_command_map
    if command in mapping:
        return mapping[command]
    best = max((key for key in mapping if command.startswith(key + " ")), key=len, default=None)
    if best is None:
        return command
    return mapping[best] + command[len(best) :]


def _settings(table: Any, path: Path) -> ProjectConfig:
    where = f"{path.name}: [tool.executor]" if path.name == "pyproject.toml" else path.name
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table of settings")
    command = table.get("test_command")
    if command is not None and (not isinstance(command, str) or not command.strip()):
        raise ConfigError(f"{where}: test_command: expected a non-empty string")
    mapping = table.get("test_command_map", {})
    if not isinstance(mapping, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in mapping.items()
    ):
        raise ConfigError(
            f"{where}: test_command_map: expected a table of plan command = local command"
        )
    defaults = {k: v for k, v in table.items() if k not in {"test_command", "test_command_map"}}
    try:
        validate(RunOptions, defaults)
    except DataError as e:
        known = ", ".join(["test_command", "test_command_map", *RunOptions.model_fields])
        problems = [
            f"unknown setting {p.split(':')[0]!r}; known: {known}" if p.endswith("unknown field")
            else p
            for p in e.problems
        ]  # fmt: skip
        raise ConfigError(f"{where}: " + "; ".join(problems)) from None
    return ProjectConfig(
        test_command=command, test_command_map=dict(mapping), defaults=defaults, source=path
    )


def settings_meaning(name: str, data: bytes | None) -> str:
    """What the executor reads of a settings file (`name` of `FILES`, `data` its bytes,
    None: absent), as canonical text: the whole of `.executor.toml`, `[tool.executor]` of
    pyproject.toml ("" when there is none); a file TOML cannot read counts as its bytes.
    Two versions of a file with the same meaning configure the executor the same way."""
    if data is None or (name == "pyproject.toml" and b"executor" not in data):
        return ""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 only
        import tomli as tomllib
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return repr(data)
    tool = doc.get("tool")
    table = (
        doc
        if name == ".executor.toml"
        else tool.get("executor")
        if isinstance(tool, dict)
        else None
    )
    if table is None:
        return ""
    import json

    return json.dumps(table, sort_keys=True, default=str)


def _parse(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the settings: {e}") from e
    if path.name == "pyproject.toml" and "executor" not in text:
        return {}  # no settings of ours: not worth a TOML parse (the resume path reads this)
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10 only
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from e
