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
    max_retries: int | None = None
    test_command: str | None = None
    budget_usd: float | None = None
    budget_tokens: int | None = None
    budget_minutes: float | None = None

    def given(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


def resolve(given: Overrides, saved: RunOptions | None, config: ProjectConfig) -> RunOptions:
    """The options of this run: `given` over `saved` over `config` over the defaults.
    Naming an agent (a command, a preset, or `bridge`: no agent process) at one level
    replaces the agent of either kind below it (the config's were checked when it was
    read)."""
    layers = [config.defaults, dump(saved) if saved is not None else {}, given.given()]
    out: dict[str, Any] = {}
    for layer in layers:
        values = {k: v for k, v in layer.items() if v is not None}
        if "agent_command" in values or "agent" in values:
            out.pop("agent_command", None)
            out.pop("agent", None)
        out.update(values)
    try:
        return validate(RunOptions, out)
    except DataError as e:  # a value given now (`--budget-usd inf`): the config's were checked
        raise UserError("run options: " + "; ".join(e.problems)) from None
