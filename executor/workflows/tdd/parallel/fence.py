"""The main run's state, held by a parallel run as a sequential run holds its own (P17):
each turn compares the file with this run's last write.

Several runs may share the state by short turns (two terminals), so a change since this
run's last write is not by itself wrong. It is another executor run's when that run
wrote it the way every run does: under the state's lock. Each parallel run's turn
leaves a ticket of its own beside the state (`.agent-lanes/turn`), and a run in the
main checkout holds the lock for as long as it runs (a turn that finds the lock held
waits for it). A change made with neither (a session's agent that rewrote the state,
checksum and all, while no sandbox kept it out) is put back as this run last wrote it,
the changed file kept aside. A change another run made is taken, but for the lanes
this run drives (no other run writes those) and for the sessions it says are completed
that git does not show (`proof`).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from executor import fsutil
from executor.errors import LockedError
from executor.store import StateStore
from executor.workflows.tdd.record.state import RunState, SessionEntry
from executor.workflows.tdd.runner.as_lane import peek

#: Seconds a run waits for its turn at the shared state (another run's turn is short;
#: a run in this checkout without --parallel holds it until it ends).
TURN_WAIT = 300.0


class Fence:
    def __init__(
        self,
        store: StateStore[RunState],
        ticket: Path,
        *,
        claimed: set[int],
        prove: Callable[[RunState], dict[int, str]],
        report: Callable[[str], None],
    ) -> None:
        self.store = store
        self.ticket = ticket
        self.claimed = claimed
        self.prove = prove
        self.report = report
        #: the state as this run last wrote it, and the ticket it left (None: not yet)
        self.kept: RunState | None = None
        self.mine: bytes | None = None
        self._turns = 0

    @contextlib.contextmanager
    def turn(self) -> Iterator[RunState]:
        """A turn at the shared state: its lock, the state as it is now (checked), saved
        after."""
        with contextlib.ExitStack() as held:
            try:
                held.enter_context(self.store.locked())
                waited = False
            except LockedError:  # another run's turn, or a run in the main checkout
                held.enter_context(self.store.locked(wait=TURN_WAIT))
                waited = True
            state = self._checked(waited)
            yield state
            self.save(state)

    def now(self) -> RunState:
        """The state as it is, read without its lock (for decisions a turn then checks
        again) while it is this run's last write; else checked in a turn."""
        state = peek(self.store.path) if self.store.unchanged() else None
        if state is None:
            with self.turn() as state:
                pass
        return state

    def save(self, state: RunState) -> None:
        """Save `state` (the caller holds the lock) and leave this run's ticket."""
        self.store.save(state)
        self.kept = state.model_copy(deep=True)
        self._turns += 1
        self.mine = f"{os.getpid()}@{fsutil.host()} {id(self)} {self._turns}\n".encode()
        fsutil.ensure_private_dir(self.ticket.parent, inside=self.ticket.parent.parent)
        fsutil.atomic_write_bytes(self.ticket, self.mine, fault="ticket")

    def _checked(self, waited: bool) -> RunState:
        foreign = self.kept is not None and not self.store.unchanged()
        state = self.store.load()
        assert state is not None, "a parallel run's state exists once it has started"
        if not foreign or self.kept is None:
            return state
        if not (waited or self._ticket() != self.mine):
            return self._put_back(self.kept)
        for number in self.claimed:  # what this run drives, no other run writes
            mine = self.kept.run.lanes.get(number)
            if mine is None:
                state.run.lanes.pop(number, None)
            else:
                state.run.lanes[number] = mine.model_copy(deep=True)
        for number, why in self.prove(state).items():
            self.report(f"[session {number}] the state says it is completed, but {why}: "
                        f"not counted")  # fmt: skip
            self._restore_entry(state, number)
        return state

    def _ticket(self) -> bytes | None:
        try:
            return self.ticket.read_bytes()[:200]
        except OSError:
            return None

    def _put_back(self, kept: RunState) -> RunState:
        path = self.store.path
        aside = path.with_name(f"{path.name}.foreign-{time.strftime('%Y%m%dT%H%M%SZ')}")
        with contextlib.suppress(OSError):
            fsutil.atomic_write_bytes(aside, path.read_bytes(), fault="quarantine")
        self.store.reclaim()
        state = kept.model_copy(deep=True)
        self.save(state)
        self.report(
            f"the main run's state {path} was changed by another program while sessions "
            f"worked (no executor run was writing it): put back as this run last wrote it; "
            f"the changed file is kept as {aside}"
        )
        return state

    def _restore_entry(self, state: RunState, number: int) -> None:
        """Session `number`'s entry as this run last wrote it (not started when it never
        wrote one, or wrote it completed)."""
        before = self.kept.entry(number) if self.kept is not None else None
        for phase in state.phases:
            for i, entry in enumerate(phase.sessions):
                if entry.number == number:
                    phase.sessions[i] = (
                        before.model_copy(deep=True) if before and before.status != "completed"
                        else SessionEntry(number=number, title=entry.title)
                    )  # fmt: skip
