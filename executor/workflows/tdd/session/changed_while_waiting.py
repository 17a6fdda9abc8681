"""What changed while a session waited for a person (the plan's text, a person's edits,
what the run pinned), settled before a gate asks its own question: none is committed or
acted on silently."""

from __future__ import annotations

from pathlib import Path

from executor import pinning
from executor.choices import Decision
from executor.engine.machine import Outcome
from executor.workflows.tdd.session.asking import Asking
from executor.workflows.tdd.session.checks.pins import PinJudge
from executor.workflows.tdd.session.context import SessionPart, SessionRun, opt
from executor.workflows.tdd.step import RECHECK_AT
from executor.workflows.tdd.trust import tampering, verdicts
from executor.workflows.tdd.trust.testfiles import is_test_file


class Settling(SessionPart):
    """Asks about what changed while the session waited, before the gate's question."""

    def __init__(self, run: SessionRun, asking: Asking, pins: PinJudge) -> None:
        super().__init__(run)
        self.asking = asking
        self.pins = pins

    def settle(self) -> Outcome | None:
        """Before a gate asks its own question: settle what changed while the session
        waited. Two things can: the session's section of the plan (drift) and files in
        the worktree (a person's edits; the agent is not running then). Neither is ever
        committed or acted on silently: the person chooses through the same question
        machinery as any checkpoint (a host answers over the bridge). Drift: use the new
        text / put the old text back / skip the session; the new text is taken (and said)
        without a question before anything was done with the old one, and under `--yes`
        with nobody to ask (the person edited the plan on purpose: what a gate had
        verified is verified again). Edits: keep them out of the commit / they belong to the
        session / abort. None when nothing is left to settle; else the outcome."""
        if self.drifted():
            out = self._drift()
            if out is not None:
                return out
        pinned = self.settle_pins()
        if pinned is not None:
            return pinned
        edits = self.person_edits()
        return self._edits(edits) if edits else None

    def settle_stop(self) -> Outcome | None:
        """An agent step that Ctrl+C or SIGTERM stopped goes on: what changed after the stop
        (`stops.note_interrupt`) is the person's. The plan as they left it is the plan
        (never put back as the agent's); any other file is settled as at a gate, before
        the agent runs and its changes mix with the person's. None when nothing is left."""
        rec, repo = self.rec, self.r.repo
        if not rec.stopped:
            return None
        now = repo.record_tree(exclude=self._ignore()).tree
        files = repo.tree_diff(rec.stopped, now)
        plan = tampering.plan_paths(Path(self.r.state.run.plan), repo.root, files)
        if plan and rec.tree:
            rec.tree = repo.graft(rec.tree, now, plan)
            self._say(
                f"the plan as you changed it while the run was stopped is the plan from now "
                f"on: {verdicts.describe(plan)}"
            )
        others = [f for f in files if f not in plan]
        out = self._edits(others) if others else None
        if out is None:
            rec.stopped = ""
        return out

    def settle_pins(self) -> Outcome | None:
        """What the run pinned, changed while no agent step ran: the person's. Taken in
        and said (what was verified is verified again); but another interpreter than
        the one an agent step ran with is asked about, and with nobody to ask the run
        stops. What an agent step changed is left for a person to take in at the
        escalation. Compared once a process, and again after a long answer."""
        if self.r.pins_settled:
            return None
        self.r.pins_settled = True
        pins = self.r.pins
        moved = self.pins.interpreter_moved()
        if moved is not None and pins.pinned.used:
            return self._other_interpreter(moved)
        env = pins.pinned.environment
        changes = pins.changes(env.python if env else None)
        if pins.pinned.unsettled and changes is not None and not changes.environment:
            pins.pinned.unsettled = {}
            self._say("the project's environment is as the run pinned it again")
        if pins.pinned.unsettled or (changes is not None and not changes and moved is None):
            return None
        what = (
            [f"the environment found is now {moved}"] if moved is not None else
            [] if changes is None else
            pinning.shown({**changes.environment, **changes.git}, *self.pins.roots())
        )  # fmt: skip
        self.pins.take_environment()
        note = (
            f"the project's environment or git's own files changed while no agent step ran "
            f"(yours): {verdicts.describe(what) or 'the record of the pin'}; taken in: the "
            f"tests run with {self.rec.environment.python if self.rec.environment else '?'} "
            f"as it is now"
        )
        self.rec.errors.append(note)
        self._say(note)
        if self.rec.step in RECHECK_AT:
            self._say("verifying again with it")
            return Outcome.RECHECK
        return None

    def _other_interpreter(self, moved: str) -> Outcome | None:
        """Another environment is found than the one the run's sessions ran with: a
        person decides (`--yes`: the run stops)."""
        env = self.r.pins.pinned.environment
        assert env is not None
        self.rec.problem = (
            f"The environment the tests would run in now, {moved}, is not the one this "
            f"run's sessions ran with, {env.python} ({env.source}): a new `.venv`, an "
            f"environment (de)activated, a lock file. The environment belongs to the run."
        )
        options = [
            opt("use_new", "Use it from now on (the session's checks run with it again)"),
            opt("abort", "Abort the session (roll back; everything is backed up first)"),
            opt("pause", "Pause (restore the environment, then run again)"),
        ]
        got = self.asking.question(
            "environment", self.rec.problem + " What now?", options, "", None
        )
        if got is Outcome.NO_HUMAN:
            self.rec.last_failure = (
                "Run the same command on a terminal (or through a host) to choose, or put "
                "the environment back as it was."
            )
            return got
        if isinstance(got, Outcome):
            return got
        assert isinstance(got, Decision)
        if got.action == "abort":
            return Outcome.ABORT
        self.pins.take_environment()
        self._say(f"the tests run with {moved} from now on")
        return Outcome.RECHECK if self.rec.step in RECHECK_AT else None

    def _drift(self) -> Outcome | None:
        s, rec = self.s, self.rec
        where = f"{s.source_file}:{s.line_start}"
        tracked = rec.base_commit is not None and self.r.repo.tracked_at(
            rec.base_commit, s.source_file
        )
        options = [opt("use_new", "Use the new text from now on")]
        if tracked:
            options.append(opt("keep_old", "Put the old text back (the file as the session began)"))
        options += [
            opt("skip", "Skip the session (roll back, mark it skipped)"),
            opt("pause", "Pause"),
        ]
        if not rec.agent_calls:  # nothing was done or checked against the old text yet
            return self._new_text("nothing was done with the old text yet")
        rec.problem = (
            f"Session {s.number}'s section of the plan ({where}) changed since the session "
            f"started; its steps so far were checked against the old text."
        )
        got = self.asking.question(
            "drift", rec.problem + " What now?", options, self._plan_diff(), None
        )
        if got is Outcome.NO_HUMAN:  # --yes, no terminal: the person edited it on purpose
            return self._new_text("nobody to ask (--yes)", check=True)
        if isinstance(got, Outcome):
            return got
        assert isinstance(got, Decision)
        if got.action == "skip":
            rec.after_rollback = "skip"
            return Outcome.ABORT
        if got.action == "keep_old":
            assert rec.base_commit is not None
            ref = self.r.repo.snapshot(f"plan-edit-session-{s.number}")
            self.r.repo.restore_paths(rec.base_commit, [s.source_file])
            self.r.reload()
            self._say(f"the plan's old text is back; your edit is saved in {ref}")
        else:
            rec.source_hash = s.source_hash
            self._say("continuing with the plan's new text")
        return None

    def _new_text(self, why: str, *, check: bool = False) -> Outcome | None:
        """Go on with the session's new plan text without a question (`why` says why);
        `check`: what was verified against the old text is verified again first (at a
        gate after a verification; an escalation's re-run checks again anyway)."""
        self.rec.source_hash = self.s.source_hash
        self._say(f"{why}: session {self.s.number} goes on with the plan's new text")
        plan_file = self.s.source_file.resolve()
        edits = self.person_edits()
        if edits and all((self.r.repo.root / f).resolve() == plan_file for f in edits):
            self.take_snapshot()  # the plan file's new text is the session's, no stray edit
        if check and self.rec.step in RECHECK_AT:
            self._say("verifying again with it")
            return Outcome.RECHECK
        return None

    def _plan_diff(self) -> str:
        base = self.rec.base_commit or "HEAD"
        text = self.r.repo.diff_text(base, ignore=self._ignore(), paths=[self.s.source_file])
        return text or "(the plan file differs from the session's start)"

    def _edits(self, files: list[str]) -> Outcome | None:
        rec = self.rec
        # the session's: what its steps changed, and a submodule whose recorded commit
        # moved (the run asks a person to commit there what the session changed inside)
        ours = {
            *self.session_paths(),
            *(f for f in files if (self.r.repo.root / f / ".git").exists()),
        }
        theirs = [f for f in files if f not in ours]
        shared = [f for f in files if f in ours]
        options = []
        if theirs:
            label = "Keep them" if not shared else "Keep the ones only you changed"
            options.append(opt("keep_out", f"{label} out of this session's commit and continue"))
        options += [
            opt("include", "They belong to the session: commit them with it"),
            opt("show_diff", "Show the diff"),
            opt("abort", "Abort the session (roll back; everything is backed up first)"),
            opt("pause", "Pause"),
        ]
        rec.problem = (
            f"Files changed while session {self.s.number} waited, not by its agent: "
            f"{verdicts.describe(files)}. They are not committed or undone without you."
        )
        info = "\n".join(
            [f"- {f}" + (" (the agent changed it too)" if f in shared else "") for f in files]
        )
        base = rec.base_commit or "HEAD"
        paths = [self.r.repo.root / f for f in files]
        got = self.asking.question(
            "edits",
            rec.problem + " What now?",
            options,
            info,
            None,
            shows=lambda _: self.r.repo.diff_text(base, paths=paths) or "(no changes)",
        )
        if got is Outcome.NO_HUMAN and theirs:  # --yes, no terminal: whose is not known
            self.r.unclaimed = theirs
            return got
        if got is Outcome.NO_HUMAN:  # a fix to the session's own files (the stop asked it)
            rec.person_edited = sorted({*rec.person_edited, *files})
            self._say(
                f"nobody to ask (--yes): {verdicts.describe(files)}, which the session changed "
                f"too, are part of it; its commit names them (Person-Edited)"
            )
            return self._taken_in(files)
        if isinstance(got, Outcome):
            return got
        assert isinstance(got, Decision)
        if got.action == "abort":
            return Outcome.ABORT
        if got.action == "keep_out":
            rec.excluded = sorted({*rec.excluded, *theirs})
            rec.kept.update(self.r.repo.blobs_of(theirs))  # put back if anything else writes
            self._say(
                f"kept out of the session's commit: {verdicts.describe(theirs)}"
                + (f" ({verdicts.describe(shared)}: the agent changed them too, so they stay in)"
                   if shared else "")
            )  # fmt: skip
            self.take_snapshot()
            return None
        self._say(f"part of the session from now on: {verdicts.describe(files)}")
        return self._taken_in(files)

    def _taken_in(self, files: list[str]) -> Outcome | None:
        """The person's files are the session's now: a RED test they edited is the RED test
        from now on, and what was verified before them is verified again (RECHECK), so no
        commit holds a change its tests never ran against."""
        rec = self.rec
        tests = [f for f in files if is_test_file(f)]
        rec.accepted = sorted({*rec.accepted, *tests})
        if tests and rec.red.tests:
            stale = [t for t in rec.red.tests if t.split("::", 1)[0] in tests]
            for tid in stale:
                del rec.red.tests[tid]
            rec.red.tests.update(verdicts.test_fingerprints(self.r.repo.root, tests))
        self.take_snapshot()
        if rec.step in RECHECK_AT:
            self._say("verifying again with them")
            return Outcome.RECHECK
        return None
