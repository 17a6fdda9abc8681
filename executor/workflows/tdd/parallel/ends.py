"""How a parallel run ends: every session integrated, requests waiting (one per session:
exit 42), the first session (plan order) that stopped it with its own exit code and
message, or sessions that could not run or be integrated (exit 22). Before it ends, the
integration worktree is put away."""

from __future__ import annotations

import contextlib
from pathlib import Path

from executor.bridge.reading import read_request
from executor.errors import (
    BlockedError,
    BridgeFileInvalid,
    BudgetSpent,
    Interrupted,
    LaneStopped,
    LockedError,
    NeedAgent,
    NeedAgents,
    Paused,
    UserCancelled,
)
from executor.exitcodes import ExitCode
from executor.fsutil import quote
from executor.store import exclusive
from executor.workflows.tdd.parallel.shared import Shared
from executor.workflows.tdd.runner.as_lane import run_total
from executor.workflows.tdd.runner.run import RunResult
from executor.workflows.tdd.runner.stops import continue_words
from executor.workflows.tdd.session import budget


class Ends:
    """The part of a parallel run that puts its places away and says how it ended."""

    def __init__(self, shared: Shared, *, force: bool) -> None:
        self.shared = shared
        #: --force-parallel was given (the commands that continue the run repeat it)
        self.force = force

    def put_away(self) -> None:
        """The integration worktree goes (unless another run integrates now), and the
        worktrees' folder when nothing is left in it."""
        spot = self.shared.places.integration
        with (
            contextlib.suppress(LockedError, FileNotFoundError),
            exclusive(self.shared.places.integrating, what="integrates a session"),
        ):
            if spot.is_dir():
                self.shared.repo.remove_worktree(spot, force=True)
        with contextlib.suppress(OSError):
            spot.parent.rmdir()

    def result(self) -> RunResult:
        shared = self.shared
        state = shared.now()
        waits = self._need_agents()
        if waits is not None:
            raise waits
        if shared.stops:
            raise self._stopped(min(shared.stops, key=shared.order))
        blocked = [n for n in shared.sessions if (lane := state.run.lanes.get(n)) is not None
                   and lane.status == "blocked"]  # fmt: skip
        left = [n for n in shared.sessions if not state.finished(n)]
        if blocked or left:
            lines = [f"session {n}: {state.run.lanes[n].reason} (worktree "
                     f"{state.run.lanes[n].worktree})" for n in blocked] + [
                f"session {n}: {shared.held.get(n, 'not started')}"
                for n in left if n not in blocked
            ]  # fmt: skip
            raise BlockedError(
                "not every session could run or be integrated:\n  "
                + "\n  ".join(lines)
                + f"\nexecutor status --plan {quote(shared.req.plan)} shows what runs where."
            )
        return RunResult(
            plan=shared.plan,
            state=state,
            repo_root=shared.repo.root,
            sessions=shared.ran,
        )

    def _need_agents(self) -> NeedAgents | None:
        waits = []
        for n in sorted(self.shared.waiting, key=self.shared.order):
            folder = self.shared.lane_layout(self.shared.now().run.lanes[n]).folder
            with contextlib.suppress(FileNotFoundError, BridgeFileInvalid):
                req = read_request(folder / ".agent-request.json")
                prompt = req.context.get("prompt_file")
                waits.append(NeedAgent(
                    request_file=folder / ".agent-request.json",
                    response_file=folder / ".agent-response.json",
                    request_id=req.request_id, agent_name=req.agent_name,
                    attempt=req.attempt, emission=req.emission,
                    prompt_file=Path(prompt) if isinstance(prompt, str) else None,
                    context=dict(req.context),
                ))  # fmt: skip
        return NeedAgents(waits[0], waits[1:], folder=self.shared.layout.folder) if waits else None

    def _stopped(self, number: int) -> Exception:
        shared = self.shared
        code, why = shared.stops[number]
        unsaved = [*(["--yes"] if shared.req.yes else []),
                   *(["--force-parallel"] if self.force else [])]  # fmt: skip
        words = continue_words(shared.req.scope, number)
        folder = shared.layout.folder
        text = f"session {number} stopped: {why}."
        if code == ExitCode.PAUSED:
            return Paused(text, session=number, plan=folder, continue_with=words,
                          resume_flags=unsaved)  # fmt: skip
        if code == ExitCode.BUDGET_SPENT:
            state = shared.now()
            over = budget.exceeded(state.run.options, run_total(state))  # every lane's spend
            larger = [over.flag, over.larger] if over else []
            return BudgetSpent(text, spent=why, session=number, plan=folder,
                               continue_with=words, resume_flags=[*unsaved, *larger])  # fmt: skip
        if code == ExitCode.USER_CANCELLED:
            return UserCancelled(text, session=number, plan=folder, continue_with=words,
                                 resume_flags=unsaved)  # fmt: skip
        if code == ExitCode.INTERRUPTED:
            return Interrupted(state=shared.layout.state)
        known = {c.value for c in ExitCode}
        return LaneStopped(
            text, session=number, code=ExitCode(code) if code in known else ExitCode.INTERNAL_ERROR
        )
