"""The exit-42 protocol core: binding, emissions, consumption (one implementation).

The caller keeps a `Ledger` in its own state. `exchange` tells it, for one call, either
the reply bound to its pending request or the request to emit; the caller records the
ledger durably BEFORE `emit` writes the request file (P3), and records consumption
(`Ledger.consume`) with its step result before `finish` removes the files (P8).
`BridgeChannel` never touches the caller's state; it reads and writes only the two
bridge files (and long prompts) of one folder fixed by the run, so nothing depends on
the current directory at resume time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from executor import faults, fsutil
from executor.bridge.models import (
    AgentRequest,
    Consumed,
    Ledger,
    PendingRequest,
    sha256_bytes,
    sha256_text,
)
from executor.bridge.reading import (
    MAX_RESPONSE_BYTES,
    quarantine,
    read_request,
    read_response,
    remove_quietly,
)
from executor.datamodel import dump
from executor.errors import (
    AgentUnavailableError,
    BridgeFileInvalid,
    DataError,
    InvalidResponseError,
    NeedAgent,
)
from executor.retry import RetryPolicy
from executor.runfiles import BRIEFS_DIR as BRIEFS_DIR
from executor.runfiles import REQUEST_NAME as REQUEST_NAME
from executor.runfiles import RESPONSE_NAME as RESPONSE_NAME
from executor.safe_read import read_bounded
from executor.stamps import new_id, utc_now

__all__ = ["BridgeChannel", "Consumed", "Ledger", "PendingRequest", "Reply"]

#: Prompts longer than this go to a brief file, so the request file stays <= ~2 KB.
INLINE_PROMPT_MAX = 1500


@dataclass(frozen=True)
class Reply:
    """A response bound to the pending request, as `poll` hands it back."""

    request_id: str
    status: str
    text: str | None
    error_type: str | None
    error_message: str | None
    response_sha256: str
    metadata: dict[str, Any]


class BridgeChannel:
    """The request/response files of one run folder, and the rules for using them."""

    def __init__(
        self,
        folder: Path,
        *,
        policy: RetryPolicy | None = None,
        request_file: Path | None = None,
        response_file: Path | None = None,
        resume: Sequence[str] | None = None,
    ) -> None:
        """`resume`: the executor command line (without `executor`) that continues the
        waiting run once the answer is written. It is recorded with the pending request in
        the caller's state, which is where `executor bridge respond --resume` takes it
        from (`executor.bridge.saved`); every request file carries a copy as
        `context.resume`, for a host to read, never to be run from there."""
        self.folder = Path(folder).absolute()
        self.resume = list(resume) if resume else None
        self.policy = policy or RetryPolicy()
        self.request_file = (
            Path(request_file).absolute() if request_file else self.folder / REQUEST_NAME
        )
        self.response_file = (
            Path(response_file).absolute() if response_file else self.folder / RESPONSE_NAME
        )
        self.briefs_dir = self.request_file.parent / BRIEFS_DIR

    # -- what to do for one call ------------------------------------------------------

    def exchange(
        self,
        ledger: Ledger,
        *,
        key: str,
        agent_name: str,
        prompt: str,
        kind: str = "agent",
        attempt: int = 1,
    ) -> Reply | PendingRequest:
        """The reply to apply for this call, or the pending request to record and emit.

        A pending request for the same key and the same prompt is polled: its bound
        response, else the same request_id once more (P10, capped). Any other pending
        request is obsolete (the step moved on, or its prompt changed, P15): a new
        request replaces it and a late answer to the old one is rejected as stale.
        Updates `ledger.pending`; the caller saves it before emitting.
        """
        pending = ledger.pending
        if (
            pending is not None
            and pending.key == key
            and pending.prompt_sha256 == sha256_text(prompt)
        ):
            reply = self.poll(pending, ledger.consumed)
            if reply is not None:
                return reply
            ledger.pending = self.bump(pending)
            return ledger.pending
        self.discard_unbound(ledger.consumed)
        ledger.pending = self.new_pending(
            key=key, agent_name=agent_name, prompt=prompt, kind=kind, attempt=attempt
        )
        return ledger.pending

    def new_pending(
        self, *, key: str, agent_name: str, prompt: str, kind: str = "agent", attempt: int = 1
    ) -> PendingRequest:
        """A fresh pending request (new uuid4). Record it, then `emit` it."""
        return PendingRequest(
            request_id=new_id(),
            key=key,
            kind="human" if kind == "human" or agent_name == "human" else "agent",
            agent_name=agent_name,
            attempt=attempt,
            prompt_sha256=sha256_text(prompt),
            created_at=utc_now(),
            resume=self.resume,
        )

    def bump(self, pending: PendingRequest) -> PendingRequest:
        """The same request, emitted once more; AgentUnavailableError past the cap (P10)."""
        cap = self.policy.max_emissions
        if pending.emissions + 1 > cap:
            raise AgentUnavailableError(
                f"No response to request {pending.request_id} (agent {pending.agent_name!r}) "
                f"after {pending.emissions} attempts (cap {cap}): {self.response_file} was "
                f"missing each time. The host must answer the request in {self.request_file} "
                f"with `executor bridge respond --dir {fsutil.quote(self.response_file.parent)}`"
                f" before re-running with --resume; stopping instead of asking again forever."
            )
        return pending.model_copy(
            update={"emissions": pending.emissions + 1, "resume": self.resume or pending.resume}
        )

    # -- reading the answer -----------------------------------------------------------

    def poll(self, pending: PendingRequest, consumed: Sequence[Consumed]) -> Reply | None:
        """The response bound to `pending`, None if there is none; rejects anything else.

        Never changes the caller's state. A refused or rejected file is moved aside so the
        next `--resume` re-emits the (still pending) request instead of tripping on it again.
        """
        try:
            resp, data = read_response(self.response_file)
        except FileNotFoundError:
            return None
        except InvalidResponseError as e:
            raise InvalidResponseError(
                f"{e} State unchanged; the request {pending.request_id} in "
                f"{self.request_file} is still pending: answer it and re-run with --resume.",
                path=self.response_file,
                problems=e.problems,
            ) from None
        sha = sha256_bytes(data)
        for c in consumed:
            if c.request_id != resp.request_id:
                continue
            if c.response_sha256 == sha:
                remove_quietly(self.response_file)  # already applied: a no-op (P8)
                return None
            raise self._rejected(
                f"request {resp.request_id} was already answered and applied with a "
                f"different response (conflict)",
                f"request_id: {resp.request_id} already consumed with other content",
                pending,
            )
        if resp.request_id != pending.request_id:
            raise self._rejected(
                f"it answers request {resp.request_id}, but the pending request is "
                f"{pending.request_id} (stale or foreign response)",
                f"request_id: expected {pending.request_id}, got {resp.request_id!r}",
                pending,
            )
        return Reply(
            request_id=resp.request_id,
            status=resp.status,
            text=resp.response,
            error_type=resp.error_type,
            error_message=resp.error_message,
            response_sha256=sha,
            metadata=resp.metadata,
        )

    def reject(self, why: str, problem: str, pending: PendingRequest) -> InvalidResponseError:
        """Move the response file aside; the error to raise (the request stays pending)."""
        return self._rejected(why, problem, pending)

    def _rejected(self, why: str, problem: str, pending: PendingRequest) -> InvalidResponseError:
        moved = quarantine(self.response_file)
        where = f" Moved aside to {moved};" if moved else ""
        return InvalidResponseError(
            f"Rejected response file {self.response_file}: {why}.{where} state unchanged; the "
            f"request {pending.request_id} in {self.request_file} is still pending: answer it "
            f"and re-run with --resume.",
            path=self.response_file,
            problems=[problem],
        )

    def discard_unbound(self, consumed: Sequence[Consumed]) -> Path | None:
        """Before emitting a NEW request: clear a response file nothing is waiting for.

        An already-consumed duplicate is removed; anything else (a FIFO, a device, a
        giant: unread) is moved aside (returned) and never read as the answer to the new
        request, whose id it cannot carry.
        """
        try:
            data = read_bounded(self.response_file, MAX_RESPONSE_BYTES)
        except FileNotFoundError:
            return None
        except DataError:
            return quarantine(self.response_file)
        sha = sha256_bytes(data)
        if any(c.response_sha256 == sha for c in consumed):
            remove_quietly(self.response_file)
            return None
        return quarantine(self.response_file)

    # -- writing the request ------------------------------------------------------------

    def emit(
        self,
        pending: PendingRequest,
        *,
        phase: int,
        phase_name: str,
        prompt: str,
        context: dict[str, Any],
        timeout_seconds: int = 120,
    ) -> NoReturn:
        """Write the request file for `pending` atomically, then raise NeedAgent (exit 42).

        A long prompt goes to `.agent-briefs/<request_id>.md` unless the context already
        names a brief file (`prompt_file`); the request then carries the brief's absolute
        path and a short pointer as its prompt.
        """
        ctx = dict(context)
        resume = pending.resume or self.resume
        if resume is not None:
            ctx["resume"] = resume
        prompt_file: Path | None = Path(ctx["prompt_file"]) if ctx.get("prompt_file") else None
        short_prompt = prompt
        if prompt_file is None and len(prompt) > INLINE_PROMPT_MAX:
            fsutil.ensure_private_dir(self.briefs_dir, inside=self.folder)
            prompt_file = self.briefs_dir / f"{pending.request_id}.md"
            fsutil.atomic_write_text(prompt_file, prompt, fault="brief")
            ctx["prompt_file"] = str(prompt_file)
        if prompt_file is not None and len(prompt) > INLINE_PROMPT_MAX:
            short_prompt = (
                f"The full prompt ({len(prompt)} characters) is in {prompt_file}. Read that "
                f"file and follow it; answer with `executor bridge respond --dir "
                f"{fsutil.quote(self.response_file.parent)}`."
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
            emission=pending.emissions,
        )
        self.request_file.parent.mkdir(parents=True, exist_ok=True)
        # one line: a host reads it at every step (a quarter of its bytes were indentation)
        fsutil.atomic_write_json(self.request_file, dump(request), fault="request", compact=True)
        faults.hit("request.written")
        raise NeedAgent(
            request_file=self.request_file,
            response_file=self.response_file,
            request_id=pending.request_id,
            agent_name=pending.agent_name,
            attempt=pending.attempt,
            emission=pending.emissions,
            prompt_file=prompt_file,
            context=ctx,
        )

    # -- after the caller recorded consumption ------------------------------------------

    def finish(self, reply: Reply) -> None:
        """After the caller durably recorded `Consumed`: remove the bridge files. Idempotent.

        The response file goes only if it still holds the consumed bytes; the request file
        only if it still carries this request_id (a newer request is never removed).
        """
        try:
            if sha256_bytes(read_bounded(self.response_file, MAX_RESPONSE_BYTES)) == (
                reply.response_sha256
            ):
                remove_quietly(self.response_file)
        except (FileNotFoundError, DataError):
            pass  # gone, or not the answer: the next run's poll deals with it
        self.drop_request(reply.request_id)
        faults.hit("response.consumed")

    def drop_request(self, request_id: str) -> None:
        """Remove the request file (if it still carries `request_id`) and its brief."""
        try:
            if read_request(self.request_file).request_id == request_id:
                remove_quietly(self.request_file)
        except (FileNotFoundError, BridgeFileInvalid):
            pass
        remove_quietly(self.briefs_dir / f"{request_id}.md")

    def sweep(self) -> None:
        """Remove temp files whose writer is dead (P6), here and in the briefs folder."""
        fsutil.sweep_orphans(self.request_file.parent)
        if self.response_file.parent != self.request_file.parent:
            fsutil.sweep_orphans(self.response_file.parent)
        if self.briefs_dir.is_dir():
            fsutil.sweep_orphans(self.briefs_dir)
