"""What the handlers of one TDD session share: the run's context and small helpers."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from executor.choices import Option
from executor.engine.agents import Agents, Durable
from executor.engine.decisions import Decider
from executor.engine.layout import Layout
from executor.errors import RollbackRefused
from executor.plan.cache import PlanView
from executor.plan.models import Session
from executor.retry import RetryPolicy
from executor.runoptions import CHECKPOINT_SETS, RunOptions
from executor.words import plural
from executor.workflows.tdd.record.session import SessionRecord
from executor.workflows.tdd.record.state import RunState, SessionArchive, Spent
from executor.workflows.tdd.trust import verdicts

if TYPE_CHECKING:
    from executor.pinning import Pins
    from executor.projectenv import Interpreter
    from executor.sandbox import Sandbox
    from executor.strength.job import Job
    from executor.strength.runner import Measured
    from executor.testrun import TestRun
    from executor.vcs import GitRepo
    from executor.workflows.tdd.session.early_mutation import Ahead


@dataclass
class PutBack:
    """Plan or settings files an agent step changed, put back; `backup`: the ref that
    holds the worktree as it was before (a person may have edited them meanwhile)."""

    paths: list[str]
    backup: str = ""

    def said(self) -> str:
        """The files, and where what they held is kept."""
        kept = (f"; what they held is saved under {self.backup}: `git checkout {self.backup} "
                f"-- <file>` brings a file back") if self.backup else ""  # fmt: skip
        return verdicts.describe(self.paths) + kept


def agent_for(phase_name: str) -> str:
    name = phase_name.lower()
    for word, agent in (
        ("frontend", "frontend-builder"),
        ("mobile", "mobile-builder"),
        ("integration", "integration-tester"),
        ("e2e", "integration-tester"),
    ):
        if word in name:
            return agent
    return "backend-builder"


@dataclass
class SessionRun:
    """Everything the handlers of one session need; built by the plan runner."""

    plan: PlanView
    session: Session
    rec: SessionRecord
    state: RunState
    #: the run's options, resolved once (executor.runoptions)
    options: RunOptions
    repo: GitRepo
    layout: Layout
    agents: Agents
    decider: Decider
    durable: Durable
    report: Callable[[str], None]
    #: run_tests(command, coverage, on_line, log, interpreter): a measured test run in the
    #: project's environment; its output goes to `log` as it arrives (`.agent-logs/`,
    #: what `executor logs` shows)
    run_tests: Callable[
        [str, bool, Callable[[str], None] | None, Path | None, Interpreter | None], TestRun
    ]
    suite_command: str | None
    project_test_command: str | None
    is_last: bool
    policy: RetryPolicy
    #: Parse the plan again (after the executor put a plan file back); returns it.
    reload_plan: Callable[[], PlanView]
    #: What the run pinned before any agent step (`executor.pinning`): the one thing the
    #: judges of the environment and of git's own files compare against.
    pins: Pins
    #: Multiplier for retry backoff sleeps (0 in tests).
    backoff: float = 1.0
    #: A live progress line for something slow (None: report lines only).
    activity: Callable[[str], Progress] | None = None
    #: The next session of this run ("Next: ..." at session_complete), if any.
    next_session: str | None = None
    #: Plan files the runner put back before parsing (an agent changed them over the
    #: bridge); the agent step reports them as tampering.
    restored_plan: PutBack | None = None
    #: The step the session was at when this process took it up (what a re-run resumes).
    entry_step: str | None = None
    #: Finished sessions' whole records (what earlier sessions did).
    archive: SessionArchive | None = None
    #: Tell the state store the file on disk is its own again (after a put back).
    reclaim: Callable[[], None] = lambda: None
    #: What agents spent, as budgets count it (a session's lane: every lane of the run).
    spent: Callable[[], Spent] | None = None
    #: Where a test run (and a run of the person's hooks) may not write, when bubblewrap
    #: works here and `--sandbox auto` (`executor.sandbox`); None: no sandbox.
    sandbox: Sandbox | None = None
    #: Run a mutation job (`executor.workflows.tdd.session.checks.strength`) in a copy of the tested
    #: tree, sandboxed as the test runs are; None: no mutation runner (a fake test runner)
    measure: Callable[[Job], Measured] | None = None
    #: Where the session is in the run: (its place among the sessions in scope, how many)
    position: tuple[int, int] | None = None
    #: GREEN's mutation run, started beside its verification (`executor.workflows.tdd.
    #: ahead`); the mutation step takes it. Not saved: a new process measures again.
    ahead: Ahead | None = None
    #: The pin was compared since this process took the session up, or since a person
    #: last answered at length (`Settling.settle_pins`).
    pins_settled: bool = False
    #: Files a person changed while the session waited that nobody could say were the
    #: session's (`--yes`): the run stops listing them, as for a dirty worktree.
    unclaimed: list[str] = field(default_factory=list)
    #: (backup ref, base commit) after a rollback, for the runner's message.
    rolled_back: tuple[str, str | None] | None = None
    #: Test runs so far in this process (each one's log has its own name).
    test_runs: int = 0
    #: Tests the last verification found flaky (`session.checks.flaky`).
    flaky_now: list[str] = field(default_factory=list)

    def spent_now(self) -> Spent:
        return self.spent() if self.spent is not None else self.state.run.spent

    @property
    def stops(self) -> frozenset[str]:
        """The checkpoints that stop for a person (`--checkpoints`)."""
        return CHECKPOINT_SETS[self.options.checkpoints]

    def reload(self) -> None:
        self.plan = self.reload_plan()
        session = self.plan.session(self.session.number)
        assert session is not None, "the restored plan lost the session"
        self.session = session


class Progress(Protocol):
    """A live progress line (`executor.console.Activity`)."""

    def update(self, detail: str) -> None: ...

    def close(self, result: str = "") -> float: ...


def opt(value: str, label: str) -> Option:
    return Option(value=value, label=label)


class SessionPart:
    """What every part of a session reads: its run (the one context the parts share), the
    plan's session and its record. It keeps no state of its own."""

    def __init__(self, run: SessionRun) -> None:
        self.r = run
        self.rec = run.rec

    @property
    def s(self) -> Session:
        """The plan's session (re-read when the executor restored a plan file)."""
        return self.r.session

    def _say(self, msg: str) -> None:
        self.r.report(f"[session {self.s.number}] {msg}")

    def _cmd(self, role: str) -> str | None:
        return self.s.test_command(role, self.r.project_test_command)  # type: ignore[arg-type]

    def commands(self) -> list[str | None]:
        """The session's test commands and the project's suite command (None: not given)."""
        return [*(self._cmd(role) for role in ("red", "green", "refactor")), self.r.suite_command]

    def runners(self) -> frozenset[str]:
        """The runners those commands name, which read files of their own (tox: tox.ini)."""
        from executor.workflows.tdd.trust.tampering import runners_named

        return runners_named(self.commands())

    def _ignore(self) -> list[Path]:
        """What is not the session's work: the executor's own files, and the files the
        person chose to keep out of its commit (not shown, not judged, kept on a rollback)."""
        root = self.r.repo.root
        return [*self.r.layout.owned(), *(root / f for f in self.rec.excluded)]

    def rollback_refusal(self) -> RollbackRefused | None:
        """Why rolling this session back would lose something git cannot give back."""
        base = self.rec.base_commit
        if base is None:
            return None
        ours = {"Agent-Run": self.r.state.run.run_id, "Agent-Step": f"session-{self.s.number}"}
        unsafe = self.r.repo.droppable(base, ours)
        if not unsafe:
            return None
        pushed = self.rec.commit_hash if "pushed" in " ".join(unsafe) else None
        return RollbackRefused(
            f"Refusing to roll session {self.s.number} back to {base[:12]}: "
            + "; ".join(unsafe)
            + ". Nothing was changed."
            + (
                f" To undo a pushed session commit, revert it: git revert {pushed}"
                if pushed
                else ""
            ),
            commits=unsafe,
        )

    # -- what changed since the last work step ---------------------------------------------
    def take_snapshot(self) -> None:
        """Record the tree as the session's steps left it (a tree object: its content)."""
        self.rec.tree = self.r.repo.record_tree(exclude=self._ignore()).tree

    def person_edits(self) -> list[str]:
        """Files that differ from the tree the last work step left: nobody of ours did it."""
        if not self.rec.tree:
            return []
        now = self.r.repo.record_tree(exclude=self._ignore()).tree
        return self.r.repo.tree_diff(self.rec.tree, now)

    def session_paths(self) -> list[str]:
        """The files the session's steps changed (its base commit to its last tree)."""
        if not self.rec.tree or not self.rec.base_commit:
            return []
        return self.r.repo.tree_diff(self.r.repo.tree_of(self.rec.base_commit), self.rec.tree)

    def drifted(self) -> bool:
        """The session's section of the plan changed since the session started."""
        return bool(self.rec.source_hash) and self.rec.source_hash != self.s.source_hash


_VERBOSE = re.compile(r"\s(PASSED|FAILED|ERROR)\b")
_DOTS = re.compile(r"^(?:\S+\.py )?([.FEsxX]+)\s*(?:\[\s*\d+%\])?$")


class LiveCount:
    """Feeds a test run's output lines to a progress line as a passed/failed count
    (pytest's dots, or its `-v` PASSED/FAILED lines)."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.passed = self.failed = self.errors = 0

    def __call__(self, line: str) -> None:
        verbose = _VERBOSE.search(line)
        if verbose:
            self.passed += verbose.group(1) == "PASSED"
            self.failed += verbose.group(1) == "FAILED"
            self.errors += verbose.group(1) == "ERROR"
        elif (dots := _DOTS.match(line.strip())) is not None:
            self.passed += dots.group(1).count(".")
            self.failed += dots.group(1).count("F")
            self.errors += dots.group(1).count("E")
        else:
            return
        # the words of the run's final line (TestRun.summary), so the two never disagree
        line = f"{self.passed} passed, {self.failed} failed"
        self.progress.update(line + (f", {plural(self.errors, 'error')}" if self.errors else ""))
