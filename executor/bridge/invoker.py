"""AgentBridgeInvoker: seed 000's API, a thin facade over the bridge protocol.

A program written against the seed calls `request(agent_name, prompt)` and is run again
from the top on every `--resume`, so each call is idempotent: a recorded answer is
returned (or its error raised) again, a response to the pending request is consumed, and
otherwise the request is written (exit 42) or emitted again under the same id, up to a
cap. The bookkeeping is the engine's own `Ledger` and `BridgeChannel`, so there is one
protocol (docs/bridge.md, "Python API").
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, Protocol

from executor import fsutil
from executor.bridge.models import (
    Answer,
    InvokerLedger,
    PendingRequest,
    known_error_type,
    sha256_bytes,
    sha256_text,
)
from executor.bridge.protocol import BridgeChannel, Reply
from executor.bridge.reading import read_json, read_response, remove_quietly
from executor.bridge.state_manager import StateManager
from executor.datamodel import dump
from executor.errors import (
    AgentInvocationError,
    CorruptStateError,
    DataError,
    DefinitionDriftError,
    InvalidResponseError,
)
from executor.retry import RetryPolicy

LEDGER_NAME = ".agent-bridge-ledger.json"


class LedgerStore(Protocol):
    def load(self) -> InvokerLedger: ...

    def save(self, ledger: InvokerLedger) -> None: ...


class FileLedgerStore:
    """The ledger in its own small JSON file (atomic writes, fault name `ledger`)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path).absolute()

    def load(self) -> InvokerLedger:
        try:
            return read_json(self.path, InvokerLedger)
        except FileNotFoundError:
            return InvokerLedger()
        except DataError as e:
            problem = "; ".join(e.problems)
        raise CorruptStateError(
            f"Corrupt bridge ledger {self.path}: {problem}. Nothing was changed. Delete it to "
            f"start the agent calls over (a pending request is then asked again).",
            path=self.path,
        )

    def save(self, ledger: InvokerLedger) -> None:
        fsutil.atomic_write_json(self.path, dump(ledger), fault="ledger")


class StateLedgerStore:
    """The ledger inside template-create's state file (one file, one atomic save)."""

    def __init__(self, state_manager: StateManager) -> None:
        self.state_manager = state_manager

    def load(self) -> InvokerLedger:
        return self.state_manager.load_ledger()

    def save(self, ledger: InvokerLedger) -> None:
        self.state_manager.save_ledger(ledger)


def call_key(agent_name: str, prompt: str) -> str:
    """What identifies one `request()` call across replays."""
    return f"{agent_name}:{sha256_text(prompt)[:16]}"


def invocation_error(reply: Reply | Answer, request_id: str | None = None) -> AgentInvocationError:
    """The seed's AgentInvocationError for a non-success reply (message has type and text)."""
    what = {
        "timeout": "Agent invocation timed out",
        "cancelled": "Agent invocation was cancelled",
        "invalid_request": "The host rejected the request as invalid",
    }.get(reply.status, "Agent invocation failed")
    detail = reply.error_message or "(no error_message)"
    return AgentInvocationError(
        f"{what}: {detail}\nError type: {reply.error_type}",
        status=reply.status,
        error_type=reply.error_type,
        error_message=reply.error_message,
        request_id=request_id if request_id is not None else getattr(reply, "request_id", None),
    )


class AgentBridgeInvoker:
    """File-based agent invocation through exit 42 (seed 000), bound and bounded.

    The request and response paths (default: `./.agent-request.json` and
    `./.agent-response.json`, as the seed has them) are made absolute HERE, at
    construction: a later change of the current directory never moves them.
    """

    def __init__(
        self,
        request_file: Path = Path(".agent-request.json"),
        response_file: Path = Path(".agent-response.json"),
        phase: int = 6,
        phase_name: str = "agent_generation",
        *,
        state_manager: StateManager | None = None,
        ledger_file: Path | None = None,
        max_attempts: int = 5,
        max_retries: int = 2,
        backoff_seconds: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        request_file = Path(request_file).absolute()
        self.policy = RetryPolicy(
            max_retries=max_retries, base_delay=backoff_seconds, max_emissions=max_attempts
        )
        self.channel = BridgeChannel(
            request_file.parent,
            policy=self.policy,
            request_file=request_file,
            response_file=Path(response_file),
        )
        self.request_file = self.channel.request_file
        self.response_file = self.channel.response_file
        self.phase = phase
        self.phase_name = phase_name
        self._sleep = sleep
        self._store: LedgerStore = (
            StateLedgerStore(state_manager)
            if state_manager is not None
            else FileLedgerStore(ledger_file or request_file.parent / LEDGER_NAME)
        )
        self._cached_response: str | None = None

    # -- the seed's API -------------------------------------------------------------

    def has_pending_request(self) -> bool:
        return self.request_file.exists()

    def has_response(self) -> bool:
        return self.response_file.exists()

    def invoke(
        self,
        agent_name: str,
        prompt: str,
        timeout_seconds: int = 120,
        context: dict[str, Any] | None = None,
    ) -> str:
        """The cached response; else a waiting response file; else write a request, exit 42.

        Checking the response file first is what the seed's callers forgot (the infinite
        loop of seed 003); here it cannot be forgotten.
        """
        if self._cached_response is not None:
            return self._cached_response
        if self.has_response():
            return self.load_response()
        self.channel.sweep()
        ledger = self._store.load()
        pending = self.channel.new_pending(
            key=call_key(agent_name, prompt), agent_name=agent_name, prompt=prompt
        )
        ledger.pending = pending
        self._store.save(ledger)
        self._emit(pending, prompt, timeout_seconds, context)

    def load_response(self) -> str:
        """Read the response: success -> cached text (file deleted); else raise.

        error/timeout/cancelled -> AgentInvocationError (file deleted); missing ->
        FileNotFoundError; malformed or missing fields -> ValueError (file moved aside).
        When a request is pending in the ledger, the response must be bound to it.
        """
        if not self.response_file.exists():
            raise FileNotFoundError(
                f"Agent response file not found: {self.response_file}. It exists only after "
                f"the host answered the request in {self.request_file}."
            )
        ledger = self._store.load()
        try:
            if ledger.pending is not None:
                reply = self.channel.poll(ledger.pending, ledger.consumed)
                if reply is None:
                    raise FileNotFoundError(
                        f"Agent response file {self.response_file} was already consumed; "
                        f"it has been removed."
                    )
            else:
                resp, data = read_response(self.response_file)
                reply = Reply(
                    request_id=resp.request_id,
                    status=resp.status,
                    text=resp.response,
                    error_type=resp.error_type,
                    error_message=resp.error_message,
                    response_sha256=sha256_bytes(data),
                    metadata=resp.metadata,
                )
        except InvalidResponseError as e:
            raise ValueError(str(e)) from e
        if ledger.pending is not None:
            key = ledger.pending.key
            ledger.consume(reply.request_id, reply.response_sha256)
            ledger.outcomes[key] = _answer(reply)
            self._store.save(ledger)
            self.channel.finish(reply)
        else:
            remove_quietly(self.response_file)
        return self._replay(reply)

    # -- the call our own code uses -------------------------------------------------

    def request(
        self,
        agent_name: str,
        prompt: str,
        *,
        timeout_seconds: int = 120,
        context: dict[str, Any] | None = None,
    ) -> str:
        """The agent's answer to `prompt`, or write the request and exit 42 (NeedAgent).

        Raises AgentInvocationError when the agent failed and the retry budget is spent
        (or the failure is not retryable), AgentUnavailableError after `max_attempts`
        emissions with no response, InvalidResponseError for a rejected response (the
        request stays pending), DefinitionDriftError when a different call is pending.
        """
        key = call_key(agent_name, prompt)
        self.channel.sweep()
        ledger = self._store.load()
        if key in ledger.outcomes:
            return self._replay(ledger.outcomes[key])
        pending = ledger.pending
        if pending is not None and pending.key != key:
            raise DefinitionDriftError(
                f"A different agent call is pending (request {pending.request_id}, agent "
                f"{pending.agent_name!r}, key {pending.key}) but this run asks {key}: the "
                f"prompt or the order of calls changed since the request was written. Nothing "
                f"was changed. Re-run the same command; to start the agent calls over delete "
                f"{self._ledger_where()}."
            )
        got = self.channel.exchange(ledger, key=key, agent_name=agent_name, prompt=prompt)
        if isinstance(got, PendingRequest):
            self._store.save(ledger)
            self._emit(got, prompt, timeout_seconds, context)
        ledger.consume(got.request_id, got.response_sha256)
        if got.status != "success":
            failures = ledger.failures.get(key, 0) + 1
            if self.policy.should_retry(got.status, known_error_type(got.error_type), failures):
                ledger.failures[key] = failures
                retry = self.channel.new_pending(key=key, agent_name=agent_name, prompt=prompt)
                ledger.pending = retry
                self._store.save(ledger)
                self.channel.finish(got)
                self._sleep(self.policy.delay(failures))
                self._emit(retry, prompt, timeout_seconds, context)
        answer = _answer(got)
        ledger.outcomes[key] = answer
        ledger.failures.pop(key, None)
        self._store.save(ledger)
        self.channel.finish(got)
        return self._replay(answer, got.request_id)

    # -- helpers --------------------------------------------------------------------

    def _replay(self, outcome: Reply | Answer, request_id: str | None = None) -> str:
        if outcome.status != "success":
            raise invocation_error(outcome, request_id)
        self._cached_response = outcome.text or ""
        return self._cached_response

    def _emit(
        self,
        pending: PendingRequest,
        prompt: str,
        timeout_seconds: int,
        context: dict[str, Any] | None,
    ) -> NoReturn:
        self.channel.emit(
            pending,
            phase=self.phase,
            phase_name=self.phase_name,
            prompt=prompt,
            context=dict(context or {}),
            timeout_seconds=timeout_seconds,
        )

    def _ledger_where(self) -> str:
        if isinstance(self._store, FileLedgerStore):
            return str(self._store.path)
        assert isinstance(self._store, StateLedgerStore)
        return f"the `bridge` field of {self._store.state_manager.state_file}"


def _answer(reply: Reply) -> Answer:
    return Answer(
        status=reply.status,
        text=reply.text,
        error_type=reply.error_type,
        error_message=reply.error_message,
    )
