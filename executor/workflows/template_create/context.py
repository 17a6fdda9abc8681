"""What the template-create handlers share: the run's options, its context, its result,
and the cursor the driver moves over the state record."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ConfigDict, Field

from executor.bridge.template_state import Step, StepLog, TemplateCreateState
from executor.datamodel import Strict, dump
from executor.engine.agents import Agents, Durable
from executor.retry import RetryPolicy
from executor.stamps import utc_now
from executor.templates import Written, default_destination

if TYPE_CHECKING:
    from executor.bridge.protocol import BridgeChannel
    from executor.engine.layout import Layout
    from executor.prompts import FormPrompter


class TemplateConfig(Strict):
    """The state's `config`: the run's options (seed 000's names where it has them).
    `--resume` uses them; an option given again on the command line overrides it."""

    model_config = ConfigDict(populate_by_name=True)

    codebase_path: str = Field(description="the analysed codebase (absolute)")
    cwd: str = Field(description="where `repo` and a relative --output resolve")
    output_location: Literal["global", "repo"] = "global"
    output: str | None = Field(default=None, description="--output, absolute")
    skip_qa: bool = False
    max_templates: int | None = None
    no_agents: bool = False
    #: `--validate` (extended validation); the file keeps the option's name
    validate_output: bool = Field(default=False, alias="validate")
    force: bool = False
    agent_command: str | None = Field(
        default=None, description="run agents with this command; null: the exit-42 bridge"
    )
    agent: str | None = Field(
        default=None, description="run agents with this preset (claude, codex, ...)"
    )
    answers: dict[str, Any] = Field(
        default_factory=dict, description="Q&A answers given as options, by question id"
    )

    def destination(self, name: str) -> Path:
        return default_destination(
            name,
            location=self.output_location,
            output=Path(self.output) if self.output else None,
            cwd=Path(self.cwd),
        )


@dataclass
class TemplateResult:
    """What the run made: the template folder (or, for --dry-run, what it would be)."""

    name: str
    destination: Path
    files: list[str]
    written: Written | None = None


@dataclass
class TemplateRun:
    """Everything the handlers of one run need; built by `template_run`."""

    root: Path
    state: TemplateCreateState
    config: TemplateConfig
    layout: Layout
    agents: Agents
    channel: BridgeChannel
    durable: Durable
    policy: RetryPolicy
    report: Callable[[str], None]
    prompter: FormPrompter | None
    dry_run: bool = False
    #: Multiplier for retry backoff sleeps (0 in tests).
    backoff: float = 1.0
    result: TemplateResult | None = None

    def destination(self, name: str) -> Path:
        return self.config.destination(name)


class Cursor:
    """What the driver moves: the state's step (never None during a drive) and its log."""

    def __init__(self, state: TemplateCreateState) -> None:
        self.state = state

    @property
    def step(self) -> Step:
        assert self.state.step is not None, "a drive needs a workflow state"
        return self.state.step

    @step.setter
    def step(self, value: Step) -> None:
        self.state.step = value

    def log(self, step: Step, edge: str, seconds: float, note: str) -> None:
        self.state.history.append(
            StepLog(step=step, outcome=edge, at=utc_now(), seconds=seconds, note=note)
        )


def new_state(config: TemplateConfig) -> TemplateCreateState:
    """A run that starts at the first step."""
    now = utc_now()
    state = TemplateCreateState(
        checkpoint="", phase=1, created_at=now, updated_at=now, step=Step.QA
    )
    state.config = dump(config)
    state.derive()
    return state
