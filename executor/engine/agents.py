"""How a workflow step gets an agent's work done: the `Agents` seam.

Two sides: `BridgeAgents` (the exit-42 files: the request is recorded in the caller's
ledger, saved, then written, and the process exits 42; the answer arrives on a later
run) and `ProcessAgents` (`executor.engine.process`: `--agent-command CMD` or an
`--agent` preset, run here as a subprocess). Either way
the step sees an `AgentResult` (or `WAITING`), and applies the one retry policy
(`executor.retry.RetryPolicy`) to failures.

Work that must wait for the durable save (removing an applied response's files,
writing a new request and exiting 42) is handed to `Durable`, which the driver runs
right after it saves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, Protocol

from executor.agent_output import reported_int, reported_number
from executor.bridge.models import Ledger, PendingRequest, known_error_type
from executor.bridge.protocol import BridgeChannel, Reply

DEFAULT_AGENT_TIMEOUT = 1200
#: `--agent bridge`: no agent process, the exit-42 bridge (what no agent option means);
#: saved like a preset, so it replaces a saved `--agent-command` or `--agent`.
BRIDGE_AGENT = "bridge"
#: The most of an agent's final message kept in state and shown at a checkpoint.
MESSAGE_CHARS = 2000


class Durable:
    """Saves the state, then does what had to wait for the save (P2, P3, P8)."""

    def __init__(self, save: Callable[[], None]) -> None:
        self._save = save
        self._after: list[Callable[[], None]] = []
        self._emit: Callable[[], NoReturn] | None = None

    def after_save(self, fn: Callable[[], None]) -> None:
        self._after.append(fn)

    def emit_after_save(self, fn: Callable[[], NoReturn]) -> None:
        """Write a request file and exit 42, once the state recording it is saved."""
        self._emit = fn

    def save(self) -> None:
        self._save()
        while self._after:
            self._after.pop(0)()

    def release(self) -> None:
        """Raise the pending NeedAgent, if a request is waiting to be written."""
        emit, self._emit = self._emit, None
        if emit is not None:
            emit()


@dataclass
class AgentCall:
    """One agent step's request: the same for the bridge and for a command."""

    key: str
    agent_name: str
    prompt: str  # short: points at the brief
    brief: Path
    phase: int
    phase_name: str
    session: int
    tdd_step: str
    attempt: int
    context: dict[str, Any] = field(default_factory=dict)
    timeout: int = DEFAULT_AGENT_TIMEOUT
    #: The command the executor will run for this step (a preset lets the agent run it).
    test_command: str | None = None
    #: The plan's and project's other test commands (a preset lets the agent run them too).
    test_commands: tuple[str, ...] = ()
    #: Where the agent process's transcript goes (command and preset agents).
    log: Path | None = None

    def request_context(self) -> dict[str, Any]:
        """The request's `context`: the caller's, and where the call stands."""
        return {
            **self.context,
            "session": self.session,
            "phase": self.phase,
            "tdd_step": self.tdd_step,
            "prompt_file": str(self.brief),
            "attempt": self.attempt,
        }


@dataclass
class AgentResult:
    status: str  # success | error | timeout | cancelled | invalid_request
    text: str = ""
    error_type: str | None = None
    error_message: str | None = None
    seconds: float = 0.0
    #: What the agent's CLI (or the host, in the response's metadata) reported.
    cost_usd: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    turns: int | None = None
    log: Path | None = None
    #: The executor's own files (state, plan cache) the agent process changed; they were
    #: put back (a command agent runs while this process holds the run).
    tampered: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "success"

    @property
    def retry_type(self) -> str | None:
        """The error type as the retry policy reads it (unknown strings: UNKNOWN)."""
        return known_error_type(self.error_type)


class Waiting:
    """The request is recorded in the ledger; the driver saves, writes it, exits 42."""


WAITING = Waiting()


class Agents(Protocol):
    def call(self, call: AgentCall, ledger: Ledger) -> AgentResult | Waiting: ...


def supersede(channel: BridgeChannel, ledger: Ledger, durable: Durable) -> None:
    """A request pending in the bridge was answered another way: forget it, and remove
    its request file once that is saved (it must never block a later step)."""
    if ledger.pending is not None:
        request_id = ledger.pending.request_id
        ledger.pending = None
        durable.after_save(lambda: channel.drop_request(request_id))


class BridgeAgents:
    """Agent requests through `.agent-request.json` and exit 42."""

    def __init__(self, channel: BridgeChannel, durable: Durable) -> None:
        self.channel = channel
        self.durable = durable

    def call(self, call: AgentCall, ledger: Ledger) -> AgentResult | Waiting:
        got = self.channel.exchange(
            ledger,
            key=call.key,
            agent_name=call.agent_name,
            # the brief is what the agent reads: a changed brief is a new request (P15)
            prompt=call.prompt + "\n" + call.brief.read_text("utf-8"),
            attempt=call.attempt,
        )
        if isinstance(got, PendingRequest):
            self.wait(got, call)
            return WAITING
        self.apply(got, ledger)
        meta = got.metadata
        return AgentResult(
            status=got.status,
            text=got.text or "",
            error_type=got.error_type,
            error_message=got.error_message,
            seconds=reported_number(meta.get("duration_seconds")) or 0.0,
            cost_usd=reported_number(meta.get("cost_usd", meta.get("total_cost_usd"))),
            input_tokens=reported_int(meta.get("input_tokens")),
            output_tokens=reported_int(meta.get("output_tokens", meta.get("tokens_used"))),
            turns=reported_int(meta.get("turns", meta.get("num_turns"))),
        )

    def wait(self, pending: PendingRequest, call: AgentCall) -> None:
        context = call.request_context()
        self.durable.emit_after_save(
            lambda: self.channel.emit(
                pending,
                phase=call.phase,
                phase_name=call.phase_name,
                prompt=call.prompt,
                context=context,
                timeout_seconds=call.timeout,
            )
        )

    def apply(self, reply: Reply, ledger: Ledger) -> None:
        """Record the reply consumed; its files go once that is saved."""
        ledger.consume(reply.request_id, reply.response_sha256)
        self.durable.after_save(lambda: self.channel.finish(reply))
