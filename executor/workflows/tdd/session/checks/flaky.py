"""Tests that fail and pass on the same tree (a timing assert under load): neither a
failure that stops an honest session nor a pass that counts for it. The session's own
tests never run again: they must pass the first time."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from executor.testreports import node_id
from executor.workflows.tdd.session.context import SessionPart
from executor.workflows.tdd.trust import verdicts
from executor.workflows.tdd.trust.testfiles import is_test_file

if TYPE_CHECKING:
    from executor.testrun import TestRun

#: Runs a test command as the session runs its own: the run, and what it tampered with.
RunAgain = Callable[[str], "tuple[TestRun | None, list[str]]"]


class Flaky(SessionPart):
    """Runs once more the failing tests the session did not touch; those that pass are
    flaky, counted neither way."""

    def rerun_untouched(
        self, runs: Sequence[TestRun | None], again: RunAgain, session: Sequence[str] | None
    ) -> tuple[list[str], list[str]]:
        """The failing tests of `runs` that the session did not touch (`session`: the
        definitions it added or changed; None: as RED recorded them) run once more; those
        that pass are marked flaky in `runs`. What the run tampered with, and their ids."""
        measured = [r for r in runs if r is not None and r.runner == "pytest"]
        failing = {c.id: node_id(c.id, c.file) for r in measured for c in r.cases
                   if c.outcome in {"failed", "error"} and c.file and "::" in c.id}  # fmt: skip
        if not failing:
            return [], []
        touched = self._touched(session)
        ids = {tid: node for tid, node in failing.items() if not touched(tid)}
        if not ids:
            return [], []
        command = shlex.join(["python", "-m", "pytest", "-q", *sorted(set(ids.values()))])
        self._say(f"{len(ids)} failing test(s) this session did not touch: running them again")
        rerun, tampered = again(command)
        cases = rerun.cases if rerun is not None and not tampered else []
        passed = {c.id for c in cases if c.outcome == "passed"} & set(ids)
        passed -= {c.id for c in cases if c.outcome in {"failed", "error"}}
        for run in measured:
            run.mark_flaky(passed)
        if passed:
            self.rec.flaky = sorted({*self.rec.flaky, *passed})
        return tampered, sorted(passed)

    def _touched(self, session: Sequence[str] | None) -> Callable[[str], bool]:
        red = self.rec.red
        keys = red.session if session is None else session
        if keys is None and red.files:
            return lambda tid: True  # a RED recorded before its tests were: every one
        if keys is None:  # no RED: the tests this session changed so far
            repo = self.r.repo
            tests = [f for f in repo.paths_in(self.rec.tree or "HEAD") if is_test_file(f)]
            now = verdicts.test_fingerprints(repo.root, tests)
            keys = verdicts.session_keys(self.rec.base_tests, now)
        mine, failing = verdicts.matching(keys), set(red.failing if session is None else ())
        return lambda tid: tid in failing or mine(tid)


def flaky_note(ids: Sequence[str]) -> str:
    """The checkpoint's line about tests found flaky in this verification ("" for none)."""
    if not ids:
        return ""
    return (
        f"\nFlaky here ({len(ids)} test(s) the session did not touch failed, then passed when "
        f"run again on the same tree; counted neither as failing nor as passing): "
        f"{verdicts.describe(list(ids), 5)}"
    )
