"""The start and the end of a session: where it begins, and its commit or rollback."""

from __future__ import annotations

from pathlib import Path

from executor import faults
from executor.engine.machine import Outcome
from executor.errors import DirtyWorktreeError, UserError, VerificationFailedError
from executor.stamps import utc_now as now
from executor.testreports import runs_python
from executor.workflows.tdd.record.commit import (
    commit_message,
    commit_subject,
    person_trailer,
    trailers,
    unchecked_trailer,
)
from executor.workflows.tdd.session.checks.guard import Guard
from executor.workflows.tdd.session.checks.strength import strength_trailer, stryker_at_start
from executor.workflows.tdd.session.context import SessionPart, SessionRun
from executor.workflows.tdd.session.hooks import find_hooks
from executor.workflows.tdd.session.testing import Runs
from executor.workflows.tdd.trust import tampering, verdicts
from executor.workflows.tdd.trust.testfiles import is_test_file

O = Outcome  # noqa: E741 - the handlers read better with one letter


class Work(SessionPart):
    """The session's start (dependencies, a clean worktree, its base) and its end (the
    evidence check, the commit, a rollback)."""

    def __init__(self, run: SessionRun, guard: Guard, runs: Runs) -> None:
        super().__init__(run)
        self.guard, self.runs = guard, runs

    def start(self) -> Outcome:
        """Dependencies complete and a clean worktree; record where the session starts."""
        left_out = {o.number for o in self.r.plan.outline() if o.left_out}
        missing = [
            d for d in self.s.dependencies if d not in left_out and not self.r.state.complete(d)
        ]
        if missing:
            self.rec.blocked_reason = (
                "waiting for session(s) " + ", ".join(map(str, missing)) + " to complete"
            )
            return O.BLOCKED
        dirty = self.r.repo.dirty_files(ignore=self._ignore())
        if dirty:
            shown = "\n  ".join(dirty[:20]) + ("\n  ..." if len(dirty) > 20 else "")
            raise DirtyWorktreeError(
                f"session {self.s.number} must start from a clean worktree so its commit holds "
                f"only its own changes; commit them, or put them aside with `git stash -u` "
                f"(`-u`: untracked files too), first (nothing was touched):"
                f"\n  {shown}",
                files=dirty,
            )
        if not (self._cmd("green") or self._cmd("red") or self.r.suite_command):
            raise UserError(
                f"session {self.s.number} has no test command: its plan section names none "
                f"and the project has none, so nothing could verify it. Give one with "
                f"--test-command, or test_command in [tool.executor] (pyproject.toml) or "
                f".executor.toml (`executor docs plan-format`). Nothing was touched."
            )
        self.r.repo.ensure_identity()
        head = self.r.repo.head()
        self.rec.blocked_reason = None
        if self.s.claimed_done:
            doubt = self._prove_claim()
            if not doubt:
                self.rec.adopted = True
                self.rec.commit_hash = self.rec.head = head
                self.rec.started_at = self.rec.completed_at = now()
                self._say("ticked as done in the plan, and its tests pass here: adopted")
                return O.ADOPT
            self._say(f"ticked as done in the plan, but {doubt}: running it")
        self.rec.base_commit = self.rec.head = head
        self.rec.hooks, note = find_hooks(self.r.repo, head)
        if note and not self.r.options.no_verify:
            self._say(note)
        self.rec.ignored = self.r.repo.ignored_entries(ignore=self._ignore())
        self.rec.outside = tampering.outside_config(self.r.repo.root)
        self.rec.flags = self.r.repo.index_flags()
        self.r.pins.pinned.used = True  # saved with the session's start, before any agent
        env = self.rec.environment = self.r.pins.pinned.environment
        if env is not None and runs_python(self.commands()):  # a Node suite's is no news
            self._say(f"tests run with {env.python} ({env.source})")
        self.rec.stryker = stryker_at_start(self)
        self._keep_flagged_changes(head)
        tests = [f for f in self.r.repo.paths_in(head) if is_test_file(f)]
        self.rec.base_tests = verdicts.test_fingerprints(self.r.repo.root, tests)
        self.rec.base_infra = self.guard.infra_now([])  # before RED acts, as the tests are
        self.rec.branch = self.r.repo.branch()
        self.rec.source_hash = self.s.source_hash
        self.rec.started_at = now()
        return O.OK

    def _keep_flagged_changes(self, head: str) -> None:
        """Files the person's index marks assume-unchanged or skip-worktree, changed on
        disk: `git status` shows them clean, but they are the person's, not the session's:
        kept out of its commit and put back if anything else writes them."""
        if not self.rec.flags:
            return
        repo = self.r.repo
        now = repo.record_tree(exclude=self._ignore()).tree
        hidden = [p for p in repo.tree_diff(repo.tree_of(head), now) if p in self.rec.flags]
        if hidden:
            self.rec.excluded = sorted({*self.rec.excluded, *hidden})
            self.rec.kept.update(repo.blobs_of(hidden))
            self._say(f"kept out of the session: {verdicts.describe(hidden)} (your index "
                      f"marks them unchanged; they are yours)")  # fmt: skip

    def _prove_claim(self) -> str:
        """Why a session the plan ticks as done is not (""): its files must exist and
        its tests, run here at HEAD, must pass."""
        missing = [f.path for f in self.s.files if not (self.r.repo.root / f.path).exists()]
        if missing:
            return f"{verdicts.describe(missing)} do(es) not exist"
        command = self._cmd("green") or self._cmd("red")
        run, tampered = self.runs.run(command)
        if run is None:
            return "no test command is known to prove it"
        if tampered:
            return "; ".join(tampered)
        if run.verdict != "green":
            return f"its tests do not pass ({run.summary()})"
        return ""

    def evidence(self) -> Outcome:
        """Every file the plan lists is in the tested tree and changed by the session (one
        it says goes: gone)."""
        repo, tree = self.r.repo, self.rec.verified or self.rec.tree
        changed = set(repo.tree_diff(repo.tree_of(self.rec.base_commit or "HEAD"), tree))
        gone = [f.path for f in self.s.files if verdicts.says_gone(f.note)]
        problems = verdicts.evidence_problems(
            [f.path for f in self.s.files], changed, set(repo.paths_in(tree)), gone=gone
        )
        if problems:
            failure = "evidence check failed: " + "; ".join(problems)
            self.rec.last_failure = failure
            self.rec.errors.append(failure)
            self.rec.feedback.append(failure)
            self.rec.problem = f"Session {self.s.number} {failure}"
            return O.FAILED
        self.rec.files_modified = sorted(changed)
        return O.OK

    def commit(self) -> Outcome:
        marks = trailers(self.r.plan, self.s, self.r.state.run.run_id)
        base = self.rec.base_commit or "HEAD"
        sha = self.r.repo.find_commit_by_trailers(marks, since=base)
        if sha:
            self._say(f"adopting commit {sha[:12]} made before an interruption")
        else:
            sha = self._commit_tested(marks)
        self.rec.commit_hash = self.rec.head = sha
        self.rec.branch = self.r.repo.branch()
        self.rec.completed_at = now()
        self._say(f"committed {sha[:12]}: {commit_subject(self.r.plan, self.s)}")
        for check in self.rec.unchecked:
            self._say(f"not verified: a person's check: {check}")
        return O.OK

    def _commit_tested(self, marks: dict[str, str]) -> str:
        """Commit the tree the last verification tested, with the plan's boxes ticked;
        refused when anything else changed since that verification."""
        repo = self.r.repo
        ticked = self._tick()
        recorded = repo.record_tree(exclude=self._ignore())
        tested = self.rec.verified or self.rec.tree
        diff = repo.tree_diff(tested, recorded.tree)
        # the plan's ticks (this time, or by a run that stopped before its commit)
        ticks = tampering.plan_paths(Path(self.r.state.run.plan), repo.root, diff)
        since = [p for p in diff if p not in ticks]
        if since or recorded.problems:
            why = "; ".join(recorded.problems) or f"changed since: {verdicts.describe(since)}"
            raise VerificationFailedError(
                f"session {self.s.number} is not committed: the worktree is not what its "
                f"tests ran against ({why}). Nothing was committed; run the same command "
                f"again to verify it anew."
            )
        if self.s.is_checkpoint and repo.tree_of(repo.head()) == recorded.tree:
            self._say("checkpoint confirmed; the plan has no box to tick: nothing to commit")
            return repo.head()
        message = commit_message(self.r.plan, self.s, self.rec, self._cmd("green"))
        marks = {**marks, **strength_trailer(self.rec), **unchecked_trailer(self.rec.unchecked),
                 **person_trailer(self.rec.person_edited)}  # fmt: skip
        sha = repo.commit_session(recorded.tree, message, trailers=marks, flags=self.rec.flags)
        faults.hit("git.committed")
        if ticked:
            self._say(f"ticked the session's boxes in {verdicts.describe(ticked)}")
        return sha

    def _tick(self) -> list[str]:
        """Mark this session done in the plan, in the format's own way (boxes, a Task
        Master status), in the session's own commit, so the plan stays a true ledger."""
        from executor.plan.ticks import apply_edits, tick_session

        return [str(p.relative_to(self.r.repo.root)) for p in apply_edits(tick_session(self.s))
                if p.is_relative_to(self.r.repo.root)]  # fmt: skip

    def rollback(self) -> Outcome:
        """Back to the session's base commit, after a backup of everything. Refused when
        it would drop a commit that is pushed, a merge, or not this session's own."""
        base = self.rec.base_commit
        if base is None:
            return O.SKIP if self.rec.after_rollback == "skip" else O.OK
        refused = self.rollback_refusal()  # checked when asked; git may have moved
        if refused is not None:
            raise refused
        # a file git ignored when the session started is the person's, even when a step
        # made git see it since (an agent that rewrote .gitignore): it is never removed
        ignored = tuple(self.rec.ignored or ())
        paths = [p for p in self.session_paths() if not _under_any(p, ignored)]
        backup = self.r.repo.roll_back(base, paths, flags=self.rec.flags)
        self.r.rolled_back = (backup, base)
        return O.SKIP if self.rec.after_rollback == "skip" else O.OK


def _under_any(path: str, entries: tuple[str, ...]) -> bool:
    """Whether `path` is one of `entries` (files, and `folder/`s holding everything under
    them), as `git ls-files --ignored --directory` lists them."""
    return any(path == e or (e.endswith("/") and path.startswith(e)) for e in entries)
