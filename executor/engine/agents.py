"""How the engine gets agent work and human decisions done.

Agent steps go through the exit-42 bridge (the default) or run `--agent-command` in
this process. Human decisions come from a terminal prompter, from `--yes`, or through
the bridge as a request whose agent is `human`. Either way the engine sees one
`Outcome`; binding, attempts and exactly-once consumption live in the bridge protocol.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from executor.bridge.protocol import BridgeChannel, Consumed, Reply
from executor.engine.state import RunState, now
from executor.errors import UserError
from executor.fsutil import atomic_write_json, atomic_write_text

DEFAULT_AGENT_TIMEOUT = 1200
BRIEF_DIR = ".agent-briefs"


@dataclass
class Outcome:
    """What an agent (or a person through the bridge) answered."""

    status: str  # success | error | timeout | cancelled | invalid_request
    text: str = ""
    error_type: str | None = None
    error_message: str | None = None
    #: Set for bridge replies: the engine records it with the step result, then finishes.
    reply: Reply | None = None

    @property
    def ok(self) -> bool:
        return self.status == "success"


@dataclass
class AgentCall:
    key: str
    agent_name: str
    prompt: str
    context: dict[str, Any]
    phase: int
    phase_name: str
    kind: str = "agent"  # agent | human


class BridgeAgents:
    """Agent and human requests through `.agent-request.json` / exit 42."""

    def __init__(
        self,
        folder: Path,
        *,
        save: Callable[[], None],
        state: Callable[[], RunState],
        resume_hint: str,
        max_attempts: int = 5,
    ) -> None:
        self.channel = BridgeChannel(folder, max_attempts=max_attempts)
        self._save = save
        self._state = state
        self.resume_hint = resume_hint
        self._to_finish: list[Reply] = []

    def call(self, call: AgentCall) -> Outcome:
        """A bound response for `call.key`, or record + emit the request (NeedAgent)."""
        st = self._state()
        pending = st.pending
        if pending is not None and pending.key != call.key:
            raise UserError(
                f"state {self.channel.request_file.parent} has request {pending.request_id} "
                f"pending for step {pending.key!r}, but this run is at step {call.key!r}; "
                f"answer the pending request and re-run: {self.resume_hint}"
            )
        if pending is not None:
            reply = self.channel.poll(pending, st.consumed)
            if reply is not None:
                return Outcome(
                    status=reply.status,
                    text=reply.text or "",
                    error_type=reply.error_type,
                    error_message=reply.error_message,
                    reply=reply,
                )
            st.pending = self.channel.bump_attempt(pending)
        else:
            st.pending = self.channel.new_pending(
                key=call.key, agent_name=call.agent_name, prompt=call.prompt, kind=call.kind
            )
        self._save()  # P3: the pending request is in state before the request file exists
        self.channel.emit(
            st.pending,
            phase=call.phase,
            phase_name=call.phase_name,
            prompt=call.prompt,
            context={**call.context, "attempt": st.pending.attempt},
            timeout_seconds=DEFAULT_AGENT_TIMEOUT,
            resume_hint=self.resume_hint,
        )

    def consumed(self, outcome: Outcome) -> None:
        """Mark the reply consumed in state; its files go after the next durable save."""
        if outcome.reply is None:
            return
        self._to_finish.append(outcome.reply)
        st = self._state()
        st.pending = None
        st.consumed = [
            *st.consumed[-49:],
            Consumed(
                request_id=outcome.reply.request_id, response_sha256=outcome.reply.response_sha256
            ),
        ]

    def supersede(self, key: str) -> None:
        """A human question pending under `key` was answered another way (--yes, a
        terminal): drop it, so neither its request file nor its pending entry lingers."""
        st = self._state()
        if st.pending is not None and st.pending.kind == "human" and st.pending.key == key:
            request_id = st.pending.request_id
            st.pending = None
            self._save()
            self.channel.drop_request(request_id)

    def flush(self) -> None:
        """Called after every durable save: remove the files of consumed replies."""
        while self._to_finish:
            self.channel.finish(self._to_finish.pop(0))


class CommandAgent:
    """Fulfil agent requests by running `--agent-command CMD` (docs/agent-command.md)."""

    def __init__(self, command: str, *, repo_root: Path, folder: Path) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise UserError("--agent-command is empty")
        self.repo_root = repo_root
        self.folder = folder

    def call(self, call: AgentCall) -> Outcome:
        briefs = self.folder / BRIEF_DIR
        briefs.mkdir(exist_ok=True)
        stem = call.key.replace("/", "_")
        prompt_file = Path(call.context.get("prompt_file") or briefs / f"{stem}.md")
        if not prompt_file.exists():
            atomic_write_text(prompt_file, call.prompt, fault="brief")
        request_file = briefs / f"{stem}.request.json"
        atomic_write_json(
            request_file,
            {
                "request_id": str(uuid.uuid4()),
                "version": "1.0",
                "phase": call.phase,
                "phase_name": call.phase_name,
                "agent_name": call.agent_name,
                "prompt": call.prompt,
                "timeout_seconds": DEFAULT_AGENT_TIMEOUT,
                "created_at": now(),
                "context": {**call.context, "prompt_file": str(prompt_file)},
            },
            fault="request",
        )
        env = {
            **os.environ,
            "EXECUTOR_PROMPT_FILE": str(prompt_file),
            "EXECUTOR_REQUEST_FILE": str(request_file),
            "EXECUTOR_AGENT_NAME": call.agent_name,
            "EXECUTOR_PHASE": str(call.context.get("phase", "")),
            "EXECUTOR_SESSION": str(call.context.get("session", "")),
            "EXECUTOR_TDD_STEP": str(call.context.get("tdd_step", "other")),
            "EXECUTOR_ATTEMPT": str(call.context.get("attempt", 1)),
        }
        return run_command(
            self.argv,
            cwd=self.repo_root,
            env=env,
            stdin_text=call.prompt,
            timeout=DEFAULT_AGENT_TIMEOUT,
        )

    def consumed(self, outcome: Outcome) -> None:
        """Nothing to record: the command ran in this process."""


def run_command(
    argv: Sequence[str], *, cwd: Path, env: dict[str, str], stdin_text: str, timeout: float
) -> Outcome:
    """Run an agent process: stdout is the answer, exit 0 success, past timeout killed."""
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
        return Outcome(
            status="error",
            error_type="AGENT_NOT_FOUND",
            error_message=f"cannot run agent command {shlex.join(argv)}: {e}",
        )
    try:
        out, err = proc.communicate(stdin_text, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return Outcome(
            status="timeout",
            error_type="TIMEOUT",
            error_message=f"agent command ran past {timeout:.0f}s and was killed",
        )
    except KeyboardInterrupt:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    if proc.returncode != 0:
        return Outcome(
            status="error",
            error_type="INVOCATION_FAILED",
            error_message=(err.strip() or out.strip() or "no output")[-2000:]
            + f" (exit {proc.returncode} after {time.monotonic() - started:.1f}s)",
        )
    return Outcome(status="success", text=out.strip())
