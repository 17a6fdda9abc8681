"""The run's options: built once, from the command line, the saved run and the project's
config, then passed down as one `RunOptions` (handlers read `run.options`, nothing else).

Precedence: a flag given now > the run's saved options > `[tool.executor]` /
`.executor.toml` > the default. What a run resolves is saved with it, so `--resume` and
`resume-session` continue the way the run started.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from executor.datamodel import DataError, dump, validate
from executor.errors import UserError
from executor.project_config import ProjectConfig, RunOptions

#: `--checkpoints` -> the checkpoints that stop for a person.
CHECKPOINT_SETS = {
    "all": frozenset(
        {"before_start", "after_red", "after_green", "after_refactor", "session_complete"}
    ),
    "session": frozenset({"session_complete"}),
    "none": frozenset(),
}


@dataclass
class Overrides:
    """Run options given on this command line (None: not given)."""

    agent_command: str | None = None
    agent: str | None = None
    agent_timeout: int | None = None
    test_timeout: int | None = None
    checkpoints: str | None = None
    sandbox: str | None = None
    no_verify: bool | None = None
    max_retries: int | None = None
    test_command: str | None = None
    budget_usd: float | None = None
    budget_tokens: int | None = None
    budget_minutes: float | None = None
    tag: str | None = None
    notify: str | None = None
    parallel: int | None = None
    min_mutation_score: int | None = None
    mutation_budget: int | None = None
    pr: bool | None = None

    def given(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


def resolve(given: Overrides, saved: RunOptions | None, config: ProjectConfig) -> RunOptions:
    """The options of this run: `given` over `saved` over `config` over the defaults.
    Naming an agent (a command, a preset, or `bridge`: no agent process) at one level
    replaces the agent of either kind below it (the config's were checked when it was
    read)."""
    values = {k: v for k, (v, _) in explain(given, saved, config).items()}
    try:
        return validate(RunOptions, values)
    except DataError as e:  # a value given now (`--budget-usd inf`): the config's were checked
        raise UserError("run options: " + "; ".join(e.problems)) from None


def explain(
    given: Overrides, saved: RunOptions | None, config: ProjectConfig
) -> dict[str, tuple[Any, str]]:
    """Each option's value and where it comes from: "flag", "saved run", the config
    file's name, or "default"."""
    where = config.source.name if config.source else "config"
    layers = [
        (dump(RunOptions()), "default"),
        ({"test_command": config.test_command, **config.defaults}, where),
        (dump(saved) if saved is not None else {}, "saved run"),
        (given.given(), "flag"),
    ]
    out: dict[str, tuple[Any, str]] = {}
    for layer, source in layers:
        values = {k: v for k, v in layer.items() if v is not None}
        if source != "default" and ("agent_command" in values or "agent" in values):
            out.pop("agent_command", None)
            out.pop("agent", None)
        out.update({k: (v, source) for k, v in values.items()})
    return {k: out.get(k, (None, "default")) for k in RunOptions.model_fields}
