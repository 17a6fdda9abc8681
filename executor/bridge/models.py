"""The bridge's file formats as pydantic models (seeds 000/001, hardened).

Strict where we write (`extra="forbid"`): `AgentRequest`, `TemplateCreateState`,
`PendingRequest`, `Consumed`, `BridgeLedger`. `AgentResponse` is what a host writes;
it is also strict as a model (it is what `executor bridge respond` writes), and
`executor.bridge.reading` is the tolerant reader that turns a host's file into one.
`defer_build=True`: a model's validator is built on first use, not at import, which
keeps the exit-42 resume path short.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL_VERSION = "1.0"
STATE_SCHEMA_VERSION = 1

Status = Literal["success", "error", "timeout", "cancelled", "invalid_request"]
ErrorType = Literal[
    "AGENT_NOT_FOUND", "INVOCATION_FAILED", "TIMEOUT", "PARSE_ERROR", "VALIDATION_ERROR", "UNKNOWN"
]
STATUSES: tuple[str, ...] = ("success", "error", "timeout", "cancelled", "invalid_request")
ERROR_TYPES: tuple[str, ...] = (
    "AGENT_NOT_FOUND",
    "INVOCATION_FAILED",
    "TIMEOUT",
    "PARSE_ERROR",
    "VALIDATION_ERROR",
    "UNKNOWN",
)


def utc_now() -> str:
    """ISO 8601 UTC timestamp with milliseconds and a `Z`, as the seeds write them."""
    stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class AgentRequest(BaseModel):
    """`.agent-request.json`: written by the executor, read by the host."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

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
        description="extra context; prompt_file (absolute path of the full brief) when the "
        "prompt is long; question/options/detail for human requests",
    )
    attempt: int = Field(default=1, ge=1, description="times this request_id was emitted")


class AgentResponse(BaseModel):
    """`.agent-response.json`: written by the host (use `executor bridge respond`)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    request_id: str = Field(description="must equal the pending request's request_id")
    version: str = Field(default=PROTOCOL_VERSION)
    status: Status
    response: str | None = Field(
        default=None,
        description="the agent's answer as a string (required when status is success)",
    )
    error_message: str | None = None
    error_type: ErrorType | None = None
    created_at: str = Field(default_factory=utc_now)
    duration_seconds: float | None = Field(default=None, ge=0)
    metadata: dict[str, Any] = Field(default_factory=dict)


class PendingRequest(BaseModel):
    """The request the caller is waiting for; stored in the caller's own state (P3)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    request_id: str
    key: str = Field(description='the caller\'s step key, e.g. "s3.green.1"')
    kind: Literal["agent", "human"] = "agent"
    agent_name: str
    attempt: int = Field(default=1, ge=1, description="times the request file was emitted")
    prompt_sha256: str
    created_at: str


class Consumed(BaseModel):
    """A response that was applied; never applied again (P8)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    request_id: str
    response_sha256: str


class Outcome(BaseModel):
    """The final answer to one `AgentBridgeInvoker.request()` key, replayed on re-runs."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    status: Status
    text: str | None = None
    error_type: str | None = None
    error_message: str | None = None


class BridgeLedger(BaseModel):
    """`AgentBridgeInvoker.request()` bookkeeping: pending, consumed, outcomes, retries.

    Lives in `.agent-bridge-ledger.json` beside the request file, or inside the
    template-create state file when the invoker is given a `StateManager`.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    schema_version: int = 1
    pending: PendingRequest | None = None
    consumed: list[Consumed] = Field(default_factory=list)
    outcomes: dict[str, Outcome] = Field(default_factory=dict)
    retries: dict[str, int] = Field(default_factory=dict)


class TemplateCreateState(BaseModel):
    """`.template-create-state.json` (seed 000's form plus `schema_version` and `bridge`)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    schema_version: int = STATE_SCHEMA_VERSION
    version: str = PROTOCOL_VERSION
    checkpoint: str
    phase: int
    created_at: str
    updated_at: str
    config: dict[str, Any] = Field(default_factory=dict)
    phase_data: dict[str, Any] = Field(default_factory=dict)
    agent_request_pending: dict[str, Any] | None = None
    bridge: BridgeLedger | None = Field(
        default=None, description="the invoker's ledger when it keeps it in this state"
    )
