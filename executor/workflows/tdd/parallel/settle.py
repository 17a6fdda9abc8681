"""A parallel run settling its finished lanes: integration (one at a time, in plan
order), what it records, and the person's decision about a lane that is blocked.

A blocked lane is a checkpoint: its conflict or failing suite is shown in its worktree,
and a person chooses: `continue` (they resolved it there: the worktree's files are
the session's, integrated and tested again), `rerun` (the session runs again from the
main branch's tip), `abort` (the session goes back to not started) or `pause`. The
question goes where every question of the run goes (a terminal, or the bridge, as a
request in the lane's folder); with nobody to ask (`--yes` without a terminal) the lane
stays blocked, and the next run checks it again once (the person may have resolved
it meanwhile). Nothing is removed without a backup: `rerun` and `abort` first keep
the worktree (tracked and untracked files) and the branch under
`refs/executor/backup/`.
"""

from __future__ import annotations

from pathlib import Path

from executor import faults
from executor.bridge.protocol import BridgeChannel
from executor.choices import Decision, Option, Question
from executor.engine.agents import BridgeAgents, Durable, Waiting
from executor.engine.decisions import Decider, NoHuman
from executor.errors import NeedAgent
from executor.project_config import load_project_config, map_test_command
from executor.stamps import utc_now
from executor.store import exclusive
from executor.workflows.tdd.parallel.fence import TURN_WAIT
from executor.workflows.tdd.parallel.integrate import Blocked, integrate, take_worktree
from executor.workflows.tdd.parallel.lanes import close, take_record
from executor.workflows.tdd.parallel.shared import Shared
from executor.workflows.tdd.record.lanes import Lane
from executor.workflows.tdd.record.state import SessionArchive, project
from executor.workflows.tdd.runner.as_lane import peek, total
from executor.workflows.tdd.trust.verdicts import describe

CHOICES = (
    Option("continue", "Continue: I resolved it in the worktree; integrate and test it again"),
    Option("rerun", "Run the session again on the main branch's tip (its work kept in a backup)"),
    Option("abort", "Abort the session (its work kept in a backup)"),
    Option("pause", "Pause (leave it blocked)"),
)


class Settle:
    """The part of a parallel run that integrates finished lanes and decides on blocked
    ones; what it reads and records goes through the run's `Shared`."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared
        #: blocked lanes already decided on in this run (one question each per run)
        self.decided: set[int] = set()
        #: lanes blocked before this run began: with nobody to ask, checked again once
        self.recheck: set[int] = set()

    # -- integration ----------------------------------------------------------------------
    def integrate_one(self, number: int) -> None:
        """Integrate lane `number` (finished): one at a time across every run of the plan,
        holding the main checkout against a run there too."""
        shared = self.shared
        with (
            shared.moving_checkout("integrates a session"),
            exclusive(shared.repo.git_dir / "executor-run.lock", what=f"holds this worktree "
                      f"({shared.repo.root})", wait=TURN_WAIT),
        ):  # fmt: skip
            lane = shared.now().run.lanes[number]
            shared.say(number, f"integrating into {lane.onto}")
            got = integrate(
                shared.repo, shared.places, number, lane, shared.now().run.run_id,
                lambda commit, worker: self.suite(number, commit, worker),
            )  # fmt: skip
            if isinstance(got, Blocked):
                with shared.turn() as state:
                    mine = state.run.lanes[number]
                    mine.status, mine.reason, mine.tip = "blocked", got.reason, got.tip
                    mine.conflicts, mine.shown = got.conflicts, got.shown
                    mine.commit = got.moved_to or mine.commit
                shared.say(number, f"blocked: {got.reason}; its work stays on {lane.branch} "
                                   f"({lane.worktree})")  # fmt: skip
                return
            self.integrated(number, got.commit)
            shared.look()

    def suite(self, number: int, commit: str, worker: int) -> tuple[bool, str]:
        """The whole suite on `commit`, in the executor's integration worktree, with the
        environment the run pinned (compared before and after)."""
        from executor.cores import core
        from executor.pinning import interpreter
        from executor.testrun import DEFAULT_TEST_TIMEOUT, run_tests
        from executor.vcs import GitRepo
        from executor.workflows.tdd.parallel.lanes import worker_env
        from executor.workflows.tdd.record.lanes import LaneLink
        from executor.workflows.tdd.runner.as_lane import lane_guarded, lane_sandbox
        from executor.workflows.tdd.runner.opening import sandbox_of

        shared = self.shared
        path = shared.places.integration
        if path.resolve() not in {w.path.resolve() for w in shared.repo.worktrees()}:
            shared.repo.prune_worktrees()
            shared.repo.add_detached(path, commit)
        spot = GitRepo(path)
        spot.detach(commit, force=True)
        spot.check_out_submodules(shared.repo.root)
        session = shared.plan.session(number)
        command = shared.suite_command or (
            session.test_command("green", None) or session.test_command("red", None)
            if session
            else None
        )
        if not command:
            return True, "no test command to run"
        options = shared.now().run.options
        guarded = lane_guarded(
            LaneLink(plan=str(shared.places.plan), session=number, worker=worker)
        )
        plan_here = shared.places.plan_in(path)
        layout = shared.places.layout_in(path)
        sandbox = (
            lane_sandbox(sandbox_of(spot, layout, plan_here, guarded), spot)
            if options.sandbox == "auto"
            else None
        )
        shared.look()  # it runs with what the run pinned, as each lane's runs did
        env = shared.pins.pinned.environment
        shared.say(number, f"running the whole suite on {commit[:12]}: {command}")
        with core(shared.repo.common_dir(), shared.cores,
                  waits=lambda: shared.say(number, "  waiting for a core")):  # fmt: skip
            run = run_tests(
                map_test_command(command, load_project_config(path)),
                cwd=path,
                timeout_s=options.test_timeout or DEFAULT_TEST_TIMEOUT,
                env=worker_env(worker),
                sandbox=sandbox,
                interpreter=interpreter(env) if env is not None else None,
            )
        changed = spot.tree_diff(spot.tree_of(commit), spot.record_tree().tree)
        shared.look()
        shared.say(number, f"  {run.summary()}")
        if changed:
            return False, f"the suite changed files in the repository: {describe(changed)}"
        return run.verdict == "green", run.summary()

    def integrated(self, number: int, commit: str | None, *, status: str = "completed") -> None:
        """Record lane `number` integrated as `commit` (a session its own run skipped, or
        adopted, has nothing to integrate); remove its worktree when clean."""
        shared = self.shared
        lane = shared.now().run.lanes[number]
        take_record(shared.places, number, lane, commit)
        theirs = peek(shared.lane_layout(lane).state)
        with shared.turn() as state:
            mine = state.run.lanes[number]
            entry = state.entry(number)
            rec = SessionArchive(shared.layout.archive).get(number)
            if entry is not None and rec is not None:
                project(entry, rec)
            if entry is not None:
                entry.status = "skipped" if status == "skipped" else "completed"
                entry.commit_hash = commit
                entry.completed_at = entry.completed_at or utc_now()
            if theirs is not None and mine.status != "integrated":
                state.run.spent = total(state.run.spent, theirs.run.spent)
            mine.status, mine.commit, mine.reason = "integrated", commit, ""
        faults.hit("lane.integrated")
        shared.ran.append(number)
        shared.session = number
        shared.say(number, f"integrated into {lane.onto} as {commit[:12]}" if commit and status
                   == "completed" else f"{status}: nothing to integrate")  # fmt: skip
        self.tidy(number)

    def tidy(self, number: int) -> None:
        """An integrated lane's worktree and branch go when clean, else stay listed."""
        lane = self.shared.now().run.lanes[number]
        kept = close(self.shared.repo, self.shared.places, lane)
        with self.shared.turn() as state:
            if kept:
                state.run.lanes[number].kept = kept
            else:
                state.run.lanes.pop(number, None)
        if kept:
            why = f"{describe(kept)} not clean (executor status says how to remove it)"
            self.shared.say(number, f"its worktree {lane.worktree} is kept: {why}")

    # -- a blocked lane ---------------------------------------------------------------------
    def decide(self, number: int) -> None:
        """Ask what to do about blocked lane `number` (once in this run) and do it."""
        shared = self.shared
        self.decided.add(number)
        lane = shared.now().run.lanes[number]
        folder = shared.lane_layout(lane).folder
        channel = BridgeChannel(folder, resume=shared.req.resume_argv)
        durable = Durable(lambda: None)
        decider = Decider(
            yes=shared.req.yes, prompter=shared.prompter,
            bridge=BridgeAgents(channel, durable), folder=folder, on_ask=shared.req.on_ask,
        )  # fmt: skip
        session = shared.plan.session(number)
        title = session.title if session else ""
        ledger = lane.bridge.model_copy(deep=True)
        got = decider.ask(
            Question(
                key=f"lane{number}.q{lane.asks}",
                text=f"Session {number} ({title}) could not be integrated: {lane.reason}. "
                f"What now?",
                options=CHOICES,
                detail=f"Its worktree: {lane.worktree} (branch {lane.branch}).",
                checkpoint=None,
                session=number,
                phase=session.phase if session else 0,
                detail_file=folder / ".agent-logs" / f"s{number}.integration.q{lane.asks}.md",
            ),
            ledger,
        )
        with shared.turn() as state:
            state.run.lanes[number].bridge = ledger
            if not isinstance(got, Waiting):
                state.run.lanes[number].asks += 1
        durable.save()  # the files of an applied answer go once it is saved
        if isinstance(got, Waiting):
            try:
                durable.release()
            except NeedAgent:
                shared.waiting.add(number)
            return
        if isinstance(got, NoHuman):
            if number in self.recheck:  # the person may have resolved it meanwhile
                self.recheck.discard(number)
                self.resolve(number, asked=False)
            return  # stays blocked: the run ends saying so
        self.act(number, got)

    def act(self, number: int, decision: Decision) -> None:
        if decision.action == "continue":
            self.resolve(number)
        elif decision.action == "rerun":
            self.again(number)
        elif decision.action == "abort":
            refs = self.drop(number)
            back = f"git checkout {refs[0]} -- ."
            self.shared.stops[number] = (
                1,
                f"aborted; its work is kept in {', '.join(refs)} ({back})",
            )
        else:
            self.shared.stops[number] = (20, "paused while it is blocked")

    def resolve(self, number: int, *, asked: bool = True) -> None:
        """`continue`: the worktree's files are the session's; integrate them again. Not
        `asked` (the same command run again, nobody to ask): only when what blocked it
        is out of its worktree, or the files it blocked on changed there since the
        executor wrote them (a conflict without markers, in a binary file or a file one
        side deleted, looks resolved when nobody touched it)."""
        lane = self.shared.now().run.lanes[number]
        untouched = [] if asked else self._untouched(lane)
        if untouched:
            self.shared.say(number, f"still blocked: {describe(untouched)} did not change in "
                                    f"its worktree since the executor wrote them there; resolve "
                                    f"them there, or answer `continue` at a terminal or through "
                                    f"the bridge to take them as they are")  # fmt: skip
            return
        problem, commit = take_worktree(Path(lane.worktree), self.shared.places, lane)
        with self.shared.turn() as state:
            mine = state.run.lanes[number]
            if problem:
                mine.reason = f"{problem} ({lane.worktree})"
            else:
                mine.status, mine.reason, mine.conflicts = "finished", "", []
                mine.commit, mine.shown = commit, None
        self.shared.say(
            number, f"still blocked: {problem}" if problem else "resolved; integrating again"
        )

    def _untouched(self, lane: Lane) -> list[str]:
        """What a blocked lane's resolution must change that is as the executor left it:
        the conflicting files (all of its files when it blocked on something else in its
        worktree). Empty: it changed, or what blocked it is not in the worktree."""
        from executor.vcs import GitRepo

        path = Path(lane.worktree)
        if lane.shown is None or not path.is_dir():
            return []
        wt = GitRepo(path)
        now = wt.record_tree(exclude=self.shared.lane_layout(lane).owned()).tree
        changed = set(wt.tree_diff(lane.shown, now))
        if lane.conflicts:
            return [p for p in lane.conflicts if p not in changed]
        return [] if changed else ["its files"]

    def again(self, number: int) -> None:
        """`rerun`: the session starts again in a new worktree from the main tip."""
        self.drop(number)
        self.shared.open_lane(number)

    def drop(self, number: int) -> list[str]:
        """Back up the lane's worktree and branch, then remove both; the session is not
        started any more. Returns the backup refs."""
        from executor.vcs import GitRepo

        shared = self.shared
        lane = shared.now().run.lanes[number]
        refs = []
        path = Path(lane.worktree)
        if path.is_dir():
            owned = shared.lane_layout(lane).owned()
            refs.append(GitRepo(path).snapshot(f"session-{number}-worktree", exclude=owned))
        head = shared.repo.resolve(f"refs/heads/{lane.branch}")
        if head is not None:
            refs.append(shared.repo.keep(f"session-{number}-branch", head))
        if path.is_dir():
            shared.repo.remove_worktree(path, force=True)
        shared.repo.prune_worktrees()
        if head is not None:
            shared.repo.delete_branch(lane.branch, head)
        with shared.turn() as state:
            state.run.lanes.pop(number, None)
            state.forget(number)
        shared.say(number, f"its worktree and branch are removed; kept in {', '.join(refs)}")
        return refs
