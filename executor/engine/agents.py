"""How a workflow step gets an agent's work done: the `Agents` seam.

Two sides: `BridgeAgents` (the exit-42 files: the request is recorded in the caller's
ledger, saved, then written, and the process exits 42; the answer arrives on a later
run) and `CommandAgents` (`--agent-command CMD`, run here as a subprocess). Either way
the step sees an `AgentResult` (or `WAITING`), and applies the one retry policy
(`executor.retry.RetryPolicy`) to failures.

Work that must wait for the durable save (removing an applied response's files,
writing a new request and exiting 42) is handed to `Durable`, which the driver runs
right after it saves.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, Protocol

from executor import fsutil
from executor.bridge.models import AgentRequest, Ledger, PendingRequest, known_error_type, utc_now
from executor.bridge.protocol import BridgeChannel, Reply
from executor.errors import UserError

DEFAULT_AGENT_TIMEOUT = 1200
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


@dataclass
class AgentResult:
    status: str  # success | error | timeout | cancelled | invalid_request
    text: str = ""
    error_type: str | None = None
    error_message: str | None = None
    seconds: float = 0.0

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
        return AgentResult(
            status=got.status,
            text=got.text or "",
            error_type=got.error_type,
            error_message=got.error_message,
            seconds=float(got.metadata.get("duration_seconds") or 0.0),
        )

    def wait(self, pending: PendingRequest, call: AgentCall) -> None:
        context = {
            **call.context,
            "session": call.session,
            "phase": call.phase,
            "tdd_step": call.tdd_step,
            "prompt_file": str(call.brief),
            "attempt": call.attempt,
        }
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


class CommandAgents:
    """Fulfil agent requests by running `--agent-command CMD` (docs/agent-command.md)."""

    def __init__(
        self, argv: Sequence[str], *, repo: Path, channel: BridgeChannel, durable: Durable
    ) -> None:
        self.argv = list(argv)
        self.repo = repo
        self.channel = channel
        self.durable = durable

    @staticmethod
    def parse(command: str) -> list[str]:
        """`--agent-command` split like a shell line; UserError (usage) when unusable."""
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise UserError(f"--agent-command {command!r} cannot be split: {e}") from None
        if not argv:
            raise UserError(
                "--agent-command is empty; give a command, or leave it out to use "
                "the exit-42 bridge"
            )
        return argv

    def call(self, call: AgentCall, ledger: Ledger) -> AgentResult:
        supersede(self.channel, ledger, self.durable)
        request_file = call.brief.with_suffix(".request.json")
        request = AgentRequest(
            request_id=call.key,
            phase=call.phase,
            phase_name=call.phase_name,
            agent_name=call.agent_name,
            prompt=call.prompt,
            timeout_seconds=call.timeout,
            created_at=utc_now(),
            context={
                **call.context,
                "session": call.session,
                "phase": call.phase,
                "tdd_step": call.tdd_step,
                "prompt_file": str(call.brief),
                "attempt": call.attempt,
            },
            attempt=call.attempt,
        )
        fsutil.atomic_write_json(request_file, request.to_json(), fault="request")
        env = {
            **os.environ,
            "EXECUTOR_PROMPT_FILE": str(call.brief),
            "EXECUTOR_REQUEST_FILE": str(request_file),
            "EXECUTOR_AGENT_NAME": call.agent_name,
            "EXECUTOR_PHASE": str(call.phase),
            "EXECUTOR_SESSION": str(call.session),
            "EXECUTOR_TDD_STEP": call.tdd_step,
            "EXECUTOR_ATTEMPT": str(call.attempt),
        }
        return run_command(
            self.argv, cwd=self.repo, env=env, stdin_text=call.prompt, timeout=call.timeout
        )


def run_command(
    argv: Sequence[str], *, cwd: Path, env: dict[str, str], stdin_text: str, timeout: float
) -> AgentResult:
    """Run an agent process: stdout is the answer, exit 0 success, past timeout killed.

    The agent runs in its own process group, and the whole group is killed on timeout,
    Ctrl+C or SIGTERM, so no grandchild keeps the repository (or our pipes) busy.
    """
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
    except OSError as e:
        return AgentResult(
            status="error",
            error_type="AGENT_NOT_FOUND",
            error_message=f"cannot run agent command {shlex.join(argv)}: {e}",
        )
    try:
        out, err = proc.communicate(stdin_text, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.communicate()
        return AgentResult(
            status="timeout",
            error_type="TIMEOUT",
            error_message=f"agent command ran past {timeout:.0f}s and was killed",
            seconds=time.monotonic() - started,
        )
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        return AgentResult(
            status="error",
            error_type="INVOCATION_FAILED",
            error_message=(err.strip() or out.strip() or "no output")[-MESSAGE_CHARS:]
            + f" (exit {proc.returncode} after {seconds:.1f}s)",
            seconds=seconds,
        )
    return AgentResult(status="success", text=out.strip(), seconds=seconds)


def _kill_group(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
