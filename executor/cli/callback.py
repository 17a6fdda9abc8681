"""What a person is told when a run needs them: it waits for them (a checkpoint or an
escalation, at the terminal or through the bridge), stops on a budget, or ends.

The run commands hand a `Callback` to the run (`on_ask`, before a question at the
terminal) and to the error boundary (`after`, once the exit code is known: a human
request written for exit 42, a budget, the end). The words and the command to run next
are made here, where every other command line is (`executor.cli.common`); delivery is
`executor.notify`'s, imported only when there is something to send, so the host's step
after an agent's exit 42 does not load it. A run that stops before it drives a session
(a bad plan, a dirty worktree, a lock) only says so on the terminal: the person who
typed the command is there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from executor import console
from executor.cli.common import continue_command
from executor.errors import BudgetSpent, Interrupted, NeedAgent, NeedAgents, Resumable
from executor.exitcodes import ExitCode
from executor.fsutil import quote
from executor.words import plural

if TYPE_CHECKING:
    from executor.choices import Question
    from executor.notify import Delivery, Event, Targets
    from executor.runoptions import RunOptions
    from executor.workflows.tdd.runner.opening import RunRequest
    from executor.workflows.tdd.runner.run import RunResult


class Driver(Protocol):
    """What drives the run (one session after another, or several side by side)."""

    req: RunRequest
    project: str | None
    options: RunOptions | None

    @property
    def session(self) -> int | None:
        """The session it is at (None before one started)."""


class Callback:
    """A run command's notifications (see the module docstring)."""

    def __init__(self, again: str) -> None:
        #: The command that runs this again (what to do after a stop with no other).
        self.again = again
        self.runner: Driver | None = None
        self.result: RunResult | None = None
        self._pending: list[Delivery] = []

    # -- while the run goes on ------------------------------------------------------------
    def on_ask(self, q: Question) -> None:
        """A person is about to be asked at the terminal."""
        kind = "checkpoint" if q.checkpoint else "escalation"
        where = f"at {q.checkpoint}" if q.checkpoint else "after a failure"
        title = f"{self._name()}: session {q.session} waits for you {where}"
        fields = {
            "session": q.session,
            "checkpoint": q.checkpoint or "escalation",
            "question": q.text,
            "options": [o.value for o in q.options],
            "next": "answer at the terminal",
        }
        self._send(kind, title, f"{title}: {q.text} (answer at the terminal)", fields)

    # -- when the process is about to exit ------------------------------------------------
    def after(self, code: int, error: BaseException | None) -> None:
        """The run stopped with `code` (`error`: what it raised): tell, then wait for what
        was sent (each delivery bounded by `executor.notify.TIMEOUT`)."""
        if isinstance(error, (Interrupted, KeyboardInterrupt)):
            return  # a person (or a service manager) stopped it: nobody to call back
        if isinstance(error, NeedAgent):  # a parallel run's sessions may wait on several
            for waiting in error.all() if isinstance(error, NeedAgents) else [error]:
                if waiting.agent_name == "human":
                    self._waiting(waiting)
        elif self.runner is not None and self.runner.session is not None:
            self._ended(code, error)
        self._flush()

    def _waiting(self, e: NeedAgent) -> None:
        ctx: dict[str, Any] = e.context
        checkpoint = str(ctx.get("checkpoint") or "escalation")
        kind = "escalation" if checkpoint == "escalation" else "checkpoint"
        values = [str(o["value"]) for o in ctx.get("options", []) if isinstance(o, dict)]
        answer = (
            f"executor bridge respond --dir {quote(e.request_file.parent)} --response CHOICE "
            f"--resume"
        )
        where = "after a failure" if kind == "escalation" else f"at {checkpoint}"
        title = f"{self._name()}: session {ctx.get('session', '?')} waits for you {where}"
        text = (
            f"{title}: {ctx.get('question', '')} Answer with one of {', '.join(values)}: {answer}"
        )
        fields = {
            "session": ctx.get("session"),
            "checkpoint": checkpoint,
            "question": ctx.get("question"),
            "options": values,
            "request_file": str(e.request_file),
            "next": answer,
        }
        self._send(kind, title, text, {**fields, **_exit(code=int(ExitCode.NEED_AGENT))})

    def _ended(self, code: int, error: BaseException | None) -> None:
        assert self.runner is not None
        plan = quote(self.runner.req.plan)
        stopped = error.session if isinstance(error, Resumable) else None
        session = stopped or self.runner.session
        if error is None:
            done = self.result.sessions if self.result is not None else []
            title = f"{self._name()}: the run is complete"
            status = f"executor status --plan {plan}"
            text = f"{title} ({plural(len(done), 'session')} done now). See: {status}"
            fields = {"session": session, "next": status}
            self._send("completed", title, text, {**fields, **_exit(code)})
            return
        kind = "budget" if isinstance(error, BudgetSpent) else "stopped"
        command = (continue_command(error) if isinstance(error, Resumable) else None) or self.again
        name = _name_of(code) or str(code)
        why = str(error).strip().splitlines()[0] if str(error).strip() else name
        title = (
            f"{self._name()}: stopped on its budget at session {session}"
            if kind == "budget"
            else f"{self._name()}: stopped at session {session} (exit {code} {name})"
        )
        text = f"{title}: {why} Next: {command}"
        self._send(kind, title, text, {"session": session, "next": command, **_exit(code)})

    # -- delivery ---------------------------------------------------------------------------
    def _send(self, kind: str, title: str, text: str, fields: dict[str, Any]) -> None:
        targets = self._targets()
        if targets is None:
            return
        from executor.notify import Event, send

        assert self.runner is not None
        base = {"project": self.runner.project, "plan": str(self.runner.req.plan)}
        event: Event = Event(kind, title, f"executor: {text}", {**base, **fields})
        self._pending.append(send(event, targets))

    def _targets(self) -> Targets | None:
        options = self.runner.options if self.runner is not None else None
        if options is None or options.notify == "off":
            return None
        from executor.notify import Targets

        return Targets.of(options.notify)

    def _flush(self) -> None:
        pending, self._pending = self._pending, []
        for delivery in pending:
            for problem in delivery.wait():
                console.err(f"warning: notification not delivered: {problem}")

    def _name(self) -> str:
        return (self.runner.project if self.runner is not None else None) or "the plan"


def _exit(code: int) -> dict[str, Any]:
    name = _name_of(code)
    return {"exit_code": code, "status": name.lower() if name else None}


def _name_of(code: int) -> str | None:
    try:
        return ExitCode(code).name
    except ValueError:
        return None
