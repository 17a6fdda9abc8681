"""The bridge's file formats (seeds 000/001, hardened) as pydantic models.

Strict where we write (unknown keys rejected): `AgentRequest`, `PendingRequest`,
`Consumed`, `Ledger`, `InvokerLedger`. `AgentResponse` is what a
host writes: `executor.bridge.reading` reads it tolerantly (unknown keys dropped, a
JSON `response` serialised) and names each bad field.

`Ledger` is THE bridge bookkeeping: the engine keeps one per session in
`.agent-state.json`, `AgentBridgeInvoker` keeps one (plus its replayable answers) in
`.agent-bridge-ledger.json` or inside template-create's state
(`executor.bridge.template_state.TemplateCreateState`).
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import Field

from executor.datamodel import Strict
from executor.stamps import utc_now

PROTOCOL_VERSION = "1.0"

Status = Literal["success", "error", "timeout", "cancelled", "invalid_request"]
STATUSES: tuple[str, ...] = ("success", "error", "timeout", "cancelled", "invalid_request")
#: Seed 001's documented error types. A response may carry any string (hosts write
#: exception names such as `TimeoutError`); unknown ones count as UNKNOWN for retries.
ERROR_TYPES: tuple[str, ...] = (
    "AGENT_NOT_FOUND",
    "INVOCATION_FAILED",
    "TIMEOUT",
    "PARSE_ERROR",
    "VALIDATION_ERROR",
    "UNKNOWN",
)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def known_error_type(error_type: str | None) -> str | None:
    """`error_type` as the retry policy sees it: a documented value, or UNKNOWN."""
    if error_type is None:
        return None
    return error_type if error_type in ERROR_TYPES else "UNKNOWN"


class AgentRequest(Strict):
    """`.agent-request.json`: written by the executor, read by the host."""

    request_id: str = Field(description="uuid4; the response must carry the same id")
    version: str = Field(default=PROTOCOL_VERSION, description="protocol version")
    phase: int = Field(description="phase number of the caller's workflow")
    phase_name: str
    agent_name: str = Field(description='agent to run; "human" means ask the person')
    prompt: str = Field(description="the prompt; when long, a short pointer to context.prompt_file")
    timeout_seconds: int = Field(default=120, ge=1)
    created_at: str = Field(description="ISO 8601 UTC")
    context: dict[str, Any] = Field(
        default_factory=dict,
        description=(
            "extra context; prompt_file (absolute path of the full brief) when the prompt is "
            "long; question/options/detail for human requests; attempt (the step's attempt: "
            "retries and requested changes)"
        ),
    )
    attempt: int = Field(
        default=1, ge=1, description="the step's attempt: 1, then +1 per retry or requested change"
    )
    emission: int = Field(
        default=1, ge=1, description="times this request_id was written (re-runs with no response)"
    )


class AgentResponse(Strict):
    """`.agent-response.json`: written by the host (use `executor bridge respond`)."""

    request_id: str = Field(description="must equal the pending request's request_id")
    version: str = PROTOCOL_VERSION
    status: Status
    response: str | None = Field(
        default=None, description="the agent's answer as a string (required when status is success)"
    )
    error_message: str | None = None
    error_type: str | None = Field(
        default=None,
        description=(
            "AGENT_NOT_FOUND, INVOCATION_FAILED, TIMEOUT, PARSE_ERROR, VALIDATION_ERROR or "
            "UNKNOWN; any other string is kept and treated as UNKNOWN"
        ),
    )
    created_at: str = Field(default_factory=utc_now)
    duration_seconds: float | None = Field(default=None, ge=0)
    metadata: dict[str, Any] = Field(default_factory=dict)


class PendingRequest(Strict):
    """The request the caller is waiting for; stored in the caller's own state (P3)."""

    request_id: str
    key: str = Field(description='the caller\'s step key, e.g. "s3.green_agent.a2.f0"')
    kind: Literal["agent", "human"] = "agent"
    agent_name: str
    attempt: int = Field(
        default=1, ge=1, description="the step's attempt (retries, requested changes)"
    )
    emissions: int = Field(default=1, ge=1, description="times the request file was written")
    prompt_sha256: str
    created_at: str
    resume: list[str] | None = Field(
        default=None,
        description="the executor command line (without `executor`) that continues the run "
        "once the answer is written: what `bridge respond --resume` runs (the request file's "
        "copy, context.resume, is never run)",
    )


class Consumed(Strict):
    """A response that was applied; never applied again (P8)."""

    request_id: str
    response_sha256: str


class Ledger(Strict):
    """The bridge bookkeeping of one caller: what is pending, what was applied."""

    pending: PendingRequest | None = None
    consumed: list[Consumed] = Field(default_factory=list)

    def consume(self, request_id: str, response_sha256: str, keep: int = 20) -> None:
        """Record an applied response (the last `keep` are remembered) and clear pending."""
        self.consumed = [
            *self.consumed[-(keep - 1) :],
            Consumed(request_id=request_id, response_sha256=response_sha256),
        ]
        self.pending = None


class Answer(Strict):
    """The final answer to one `AgentBridgeInvoker.request()` key, replayed on re-runs."""

    status: Status
    text: str | None = None
    error_type: str | None = None
    error_message: str | None = None


class InvokerLedger(Ledger):
    """`AgentBridgeInvoker.request()` bookkeeping: the ledger plus replayable answers.

    Lives in `.agent-bridge-ledger.json` beside the request file, or inside the
    template-create state when the invoker is given a `StateManager`.
    """

    schema_version: int = 1
    outcomes: dict[str, Answer] = Field(default_factory=dict)
    failures: dict[str, int] = Field(default_factory=dict)
