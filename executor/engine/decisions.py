"""Who answers a question at a checkpoint or after a failure: `--yes`, a person at a
terminal, or a person through the bridge (a request whose agent is `human`).

`Decider.ask` returns a value, never raises to steer the step: a `Decision`, `WAITING`
(a human request was recorded; the driver saves, writes it, exits 42) or `NO_HUMAN`
(a person must decide and nobody can: the run stops with exit 16, or a workflow sets the
question aside: `unanswered` keeps it). A pending human request that was answered
another way (`--yes`, the terminal) is dropped, so it never blocks a later step.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from executor import fsutil
from executor.bridge.models import Ledger, PendingRequest
from executor.choices import Decision, Question, parse_decision
from executor.engine.agents import WAITING, BridgeAgents, Waiting, supersede
from executor.errors import InvalidResponseError

if TYPE_CHECKING:
    from executor.prompts import Prompter

#: Detail longer than this goes to a file the request names; the request stays small.
INLINE_DETAIL = 320


class NoHuman:
    """A person must decide and none is available (`--yes` without a terminal)."""


NO_HUMAN = NoHuman()


class Decider:
    def __init__(
        self,
        *,
        yes: bool,
        prompter: Prompter | None,
        bridge: BridgeAgents,
        folder: Path,
        on_ask: Callable[[Question], None] | None = None,
    ) -> None:
        self.yes = yes
        self.prompter = prompter
        self.bridge = bridge
        self.folder = folder
        #: Called before a person is asked at the terminal (a notification: they may have
        #: stepped away), except when the same question comes back with what they asked
        #: to see (`show_diff`, `show_tests`). A question through the bridge is told by
        #: the CLI after exit 42 (`executor.cli.callback`).
        self.on_ask = on_ask
        #: The last question nobody could answer (NO_HUMAN), for a workflow that keeps it.
        self.unanswered: Question | None = None
        self._showing = False

    @property
    def interactive(self) -> bool:
        return self.prompter is not None

    @property
    def unattended(self) -> bool:
        """--yes with no terminal: nobody answers anything but a checkpoint."""
        return self.yes and self.prompter is None

    def ask(self, q: Question, ledger: Ledger) -> Decision | Waiting | NoHuman:
        if q.checkpoint and self.yes:
            supersede(self.bridge.channel, ledger, self.bridge.durable)
            return Decision("approve", via="yes")
        if self.prompter is not None:
            if self.on_ask is not None and not self._showing:
                self.on_ask(q)
            started = time.monotonic()
            try:
                decision = self.prompter.ask(q.text, q.options, detail=q.detail)
            except EOFError:
                self.prompter = None  # the terminal went away: fall through
            else:
                self._showing = decision.action.startswith("show_")
                supersede(self.bridge.channel, ledger, self.bridge.durable)
                seconds = round(time.monotonic() - started, 3)
                return Decision(
                    decision.action, decision.feedback, waited=True, via="terminal",
                    seconds=seconds,
                )  # fmt: skip
        if self.yes:
            self.unanswered = q
            return NO_HUMAN
        return self._through_bridge(q, ledger)

    def _through_bridge(self, q: Question, ledger: Ledger) -> Decision | Waiting:
        detail = q.detail
        context: dict[str, object] = {
            "question": q.text,
            "options": [{"value": o.value, "label": o.label} for o in q.options],
            "checkpoint": q.checkpoint or "escalation",
        }
        if len(detail) > INLINE_DETAIL:
            fsutil.ensure_private_dir(q.detail_file.parent, inside=self.folder)
            fsutil.atomic_write_text(q.detail_file, detail + "\n", fault="detail")
            context["detail_file"] = str(q.detail_file)
            detail = detail[:INLINE_DETAIL].rstrip() + f"\n... (the rest is in {q.detail_file})"
        context["detail"] = detail
        values = ", ".join(o.value for o in q.options)
        prompt = f"{q.text} Answer with one of: {values}."
        channel = self.bridge.channel
        got = channel.exchange(ledger, key=q.key, agent_name="human", prompt=prompt, kind="human")
        if isinstance(got, PendingRequest):
            self.bridge.durable.emit_after_save(
                lambda: channel.emit(
                    got,
                    phase=q.phase,
                    phase_name="checkpoint",
                    prompt=prompt,
                    context={**context, "session": q.session, "phase": q.phase},
                )
            )
            return WAITING
        pending = ledger.pending
        assert pending is not None
        if got.status != "success":
            self.bridge.apply(got, ledger)
            return Decision("pause")
        try:
            decision = parse_decision(got.text or "", q.options, path=channel.response_file)
        except InvalidResponseError as e:
            raise channel.reject(str(e), "; ".join(e.problems), pending) from None
        self.bridge.apply(got, ledger)
        return replace(decision, via="bridge", seconds=_since(pending.created_at))


def _since(stamp: str) -> float:
    """Seconds from the ISO time `stamp` (a request's) to now; 0 when unreadable."""
    from datetime import datetime, timezone

    try:
        then = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    return round(max((datetime.now(timezone.utc) - then).total_seconds(), 0.0), 3)
