"""The exit-42 protocol core: binding, attempts, emission, consumption (one implementation).

The caller owns the bookkeeping: it records a `PendingRequest` in its own state BEFORE
`emit` writes the request file (P3), and records `Consumed` together with its step
result before calling `finish` (P8). `BridgeChannel` itself never touches the caller's
state; it reads and writes only the two bridge files (and brief files) in one folder
fixed by the run, so nothing depends on the current directory at resume time.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from pydantic import BaseModel

from executor import faults, fsutil
from executor.bridge.models import (
    AgentRequest,
    Consumed,
    PendingRequest,
    Status,
    sha256_bytes,
    sha256_text,
    utc_now,
)
from executor.bridge.reading import quarantine, read_response, remove_quietly
from executor.errors import AgentUnavailableError, InvalidResponseError, NeedAgent

__all__ = ["BridgeChannel", "Consumed", "PendingRequest", "Reply"]

REQUEST_NAME = ".agent-request.json"
RESPONSE_NAME = ".agent-response.json"
BRIEFS_DIR = ".agent-briefs"
#: Prompts longer than this go to a brief file, so the request file stays <= ~2 KB.
INLINE_PROMPT_MAX = 1500
DEFAULT_MAX_ATTEMPTS = 5


class Reply(BaseModel):
    """A response bound to the pending request, as `poll` hands it back."""

    request_id: str
    status: Status
    text: str | None
    error_type: str | None
    error_message: str | None
    response_sha256: str


class BridgeChannel:
    """The request/response files of one run folder, and the rules for using them."""

    def __init__(
        self,
        folder: Path,
        *,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        request_file: Path | None = None,
        response_file: Path | None = None,
    ) -> None:
        self.folder = Path(folder).absolute()
        self.max_attempts = max_attempts
        self.request_file = (
            Path(request_file).absolute() if request_file else self.folder / REQUEST_NAME
        )
        self.response_file = (
            Path(response_file).absolute() if response_file else self.folder / RESPONSE_NAME
        )
        self.briefs_dir = self.request_file.parent / BRIEFS_DIR

    def new_pending(
        self, *, key: str, agent_name: str, prompt: str, kind: str = "agent"
    ) -> PendingRequest:
        """A fresh pending request (new uuid4, attempt 1). Record it, then `emit` it."""
        return PendingRequest(
            request_id=str(uuid.uuid4()),
            key=key,
            kind="human" if kind == "human" or agent_name == "human" else "agent",
            agent_name=agent_name,
            attempt=1,
            prompt_sha256=sha256_text(prompt),
            created_at=utc_now(),
        )

    def poll(self, pending: PendingRequest, consumed: Sequence[Consumed]) -> Reply | None:
        """The response bound to `pending`, None if there is none; rejects anything else.

        Never changes the caller's state. A rejected file is moved aside so the next
        `--resume` re-emits the (still pending) request instead of tripping on it again.
        """
        if not self.response_file.exists():
            return None
        try:
            resp, data = read_response(self.response_file)
        except FileNotFoundError:
            return None
        sha = sha256_bytes(data)
        for c in consumed:
            if c.request_id != resp.request_id:
                continue
            if c.response_sha256 == sha:
                remove_quietly(self.response_file)  # already applied: a no-op (P8)
                return None
            moved = quarantine(self.response_file)
            raise InvalidResponseError(
                f"Rejected response file {self.response_file}: request {resp.request_id} was "
                f"already answered and applied with a different response (conflict). "
                f"Moved aside to {moved}; state unchanged. The pending request is "
                f"{pending.request_id} in {self.request_file}.",
                path=self.response_file,
                problems=[f"request_id: {resp.request_id} already consumed with other content"],
            )
        if resp.request_id != pending.request_id:
            moved = quarantine(self.response_file)
            raise InvalidResponseError(
                f"Rejected response file {self.response_file}: it answers request "
                f"{resp.request_id}, but the pending request is {pending.request_id} "
                f"(stale or foreign response). Moved aside to {moved}; state unchanged; the "
                f"request in {self.request_file} is still pending: answer it and re-run with "
                f"--resume.",
                path=self.response_file,
                problems=[f"request_id: expected {pending.request_id}, got {resp.request_id!r}"],
            )
        return Reply(
            request_id=resp.request_id,
            status=resp.status,
            text=resp.response,
            error_type=resp.error_type,
            error_message=resp.error_message,
            response_sha256=sha,
        )

    def discard_unbound(self, consumed: Sequence[Consumed]) -> Path | None:
        """Before emitting a NEW request: clear a response file nothing is waiting for.

        An already-consumed duplicate is removed; anything else is moved aside (returned)
        and never read as the answer to the new request, whose id it cannot carry.
        """
        try:
            data = self.response_file.read_bytes()
        except FileNotFoundError:
            return None
        sha = sha256_bytes(data)
        if any(c.response_sha256 == sha for c in consumed):
            remove_quietly(self.response_file)
            return None
        return quarantine(self.response_file)

    def bump_attempt(self, pending: PendingRequest) -> PendingRequest:
        """The same request, one emission more; AgentUnavailableError past the cap (P10)."""
        if pending.attempt + 1 > self.max_attempts:
            raise AgentUnavailableError(
                f"No response to request {pending.request_id} (agent {pending.agent_name!r}) "
                f"after {pending.attempt} attempts (cap {self.max_attempts}): "
                f"{self.response_file} was missing each time. The host must answer the request "
                f"in {self.request_file} with `executor bridge respond --dir "
                f"{self.response_file.parent}` before re-running with --resume; stopping "
                f"instead of asking again forever."
            )
        return pending.model_copy(update={"attempt": pending.attempt + 1})

    def emit(
        self,
        pending: PendingRequest,
        *,
        phase: int,
        phase_name: str,
        prompt: str,
        context: dict[str, Any],
        timeout_seconds: int = 120,
        resume_hint: str | None = None,
    ) -> NoReturn:
        """Write the request file for `pending` atomically, then raise NeedAgent (exit 42).

        A long prompt goes to `.agent-briefs/<request_id>.md`; the request then carries
        its absolute path in `context.prompt_file` and a short pointer as the prompt.
        """
        ctx = dict(context)
        prompt_file: Path | None = Path(ctx["prompt_file"]) if ctx.get("prompt_file") else None
        short_prompt = prompt
        if prompt_file is None and len(prompt) > INLINE_PROMPT_MAX:
            self.briefs_dir.mkdir(parents=True, exist_ok=True)
            prompt_file = self.briefs_dir / f"{pending.request_id}.md"
            fsutil.atomic_write_text(prompt_file, prompt, fault="brief")
            ctx["prompt_file"] = str(prompt_file)
        if prompt_file is not None and len(prompt) > INLINE_PROMPT_MAX:
            short_prompt = (
                f"The full prompt ({len(prompt)} characters) is in {prompt_file}. Read that "
                f"file and follow it; answer with `executor bridge respond --dir "
                f"{self.response_file.parent}`."
            )
        request = AgentRequest(
            request_id=pending.request_id,
            phase=phase,
            phase_name=phase_name,
            agent_name=pending.agent_name,
            prompt=short_prompt,
            timeout_seconds=timeout_seconds,
            created_at=utc_now(),
            context=ctx,
            attempt=pending.attempt,
        )
        self.request_file.parent.mkdir(parents=True, exist_ok=True)
        fsutil.atomic_write_json(self.request_file, request.model_dump(), fault="request")
        faults.hit("request.written")
        raise NeedAgent(
            request_file=self.request_file,
            response_file=self.response_file,
            request_id=pending.request_id,
            agent_name=pending.agent_name,
            attempt=pending.attempt,
            prompt_file=prompt_file,
            resume_hint=resume_hint,
        )

    def finish(self, reply: Reply) -> None:
        """After the caller durably recorded `Consumed`: remove the bridge files. Idempotent.

        The response file goes only if it still holds the consumed bytes; the request file
        only if it still carries this request_id (a newer request is never removed).
        """
        try:
            if sha256_bytes(self.response_file.read_bytes()) == reply.response_sha256:
                remove_quietly(self.response_file)
        except FileNotFoundError:
            pass
        self.drop_request(reply.request_id)
        faults.hit("response.consumed")

    def drop_request(self, request_id: str) -> None:
        """Remove the request file (if it still carries `request_id`) and its brief."""
        try:
            raw = json.loads(self.request_file.read_text(encoding="utf-8"))
            if isinstance(raw, dict) and raw.get("request_id") == request_id:
                remove_quietly(self.request_file)
        except (FileNotFoundError, ValueError):
            pass
        remove_quietly(self.briefs_dir / f"{request_id}.md")

    def sweep(self) -> None:
        """Remove temp files whose writer is dead (P6), here and in the briefs folder."""
        fsutil.sweep_orphans(self.request_file.parent)
        if self.response_file.parent != self.request_file.parent:
            fsutil.sweep_orphans(self.response_file.parent)
        if self.briefs_dir.is_dir():
            fsutil.sweep_orphans(self.briefs_dir)
