"""What nobody gets past unseen, applied to a session: around every test run (P24),
after an agent step, and at verification (P25)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from executor.engine.process import OwnFiles
from executor.fsutil import read_regular
from executor.words import plural
from executor.workflows.tdd.session.checks.pins import PinJudge
from executor.workflows.tdd.session.checks.put_back import (
    note_settings,
    restore_plan,
    restore_settings,
)
from executor.workflows.tdd.session.context import SessionPart, SessionRun
from executor.workflows.tdd.trust import tampering, testchanges, verdicts
from executor.workflows.tdd.trust.testfiles import is_test_file

if TYPE_CHECKING:
    import ast

    from executor.testrun import TestRun

#: A test definition's key and its syntax (`testchanges.definitions`).
Definition = tuple[str, "ast.AST | list[ast.stmt] | bytes"]


@dataclass
class Seal:
    """What a test run must leave as it found it."""

    tree: str
    head: str
    own: dict[Path, bytes | None]
    kept: dict[str, str]
    settings: dict[str, str]


class Guard(SessionPart):
    """What nobody gets past unseen: around a test run, after an agent step, at
    verification."""

    def __init__(self, run: SessionRun, pins: PinJudge) -> None:
        super().__init__(run)
        self.pins = pins

    # -- around a test run --------------------------------------------------------------
    def sealed_run(self, run: Callable[[], TestRun]) -> tuple[TestRun, list[str]]:
        """Run the tests; then put back whatever the run changed, and say what it was."""
        seal = self.seal()
        result = run()
        return result, [f"tampering during a test run: {p}" for p in self.break_seal(seal)]

    def seal(self) -> Seal:
        """What a run of the repository's code must leave as it found it."""
        repo = self.r.repo
        return Seal(
            tree=repo.record_tree(exclude=self._ignore()).tree,
            head=repo.head(),
            own=self._own_files().keep(),
            kept=repo.blobs_of(list(self.rec.kept)),
            settings=note_settings(repo),
        )

    def _own_files(self) -> OwnFiles:
        layout = self.r.layout
        archived = sorted(layout.archive.glob("*.json")) if layout.archive.is_dir() else []
        return OwnFiles(
            [layout.state, layout.backup, layout.pinned, *archived], cache=layout.plan_cache,
            reclaim=self.r.reclaim,
        )  # fmt: skip

    def break_seal(
        self, seal: Seal, *, given: Collection[str] = (), who: str = "the test run"
    ) -> list[str]:
        """Put back what a run (of the tests, or of `who` else) changed besides the
        files it was `given` to change (a formatter's), after a backup; say what it was."""
        repo, problems = self.r.repo, []
        head = repo.head()
        if head != seal.head:
            repo.fold_commits(seal.head)
            problems.append(f"{who} made a commit ({head[:12]}); it was undone")
        now = repo.record_tree(exclude=self._ignore()).tree
        changed = [p for p in repo.tree_diff(seal.tree, now) if p not in given]
        kept = [p for p, blob in repo.blobs_of(list(seal.kept)).items() if seal.kept[p] != blob]
        saved = "it was not saved: it changed while the run was checked"
        if changed or kept:
            # a person may have saved a file meanwhile: nothing is put back unsaved
            backup = repo.snapshot("run-changes", exclude=self.r.layout.owned())
            saved = (f"what the run left is saved under {backup}: `git checkout {backup} -- "
                     f"<file>` brings a file back")  # fmt: skip
        if changed:
            repo.put_back(seal.tree, changed)
            where = "in the repository" if not given else "they were not given to check"
            problems.append(
                f"{who} changed files {where}: {verdicts.describe(changed)}; they were put "
                f"back (a run must not write into the repository: use a temporary folder, "
                f"or have git ignore what it writes); {saved}"
            )
        own = self._own_files().put_back(seal.own)
        if own:
            problems.append(f"{who} changed the executor's own files: {', '.join(own)}")
        touched = self._put_back_kept(seal.kept)
        if touched:
            problems.append(f"{who} changed files you kept out: {', '.join(touched)}; {saved}")
        settings = restore_settings(repo, seal.settings)
        if settings:
            problems.append(f"{who} changed the executor's settings: {', '.join(settings)}")
        return problems + self.pins.after(who) + self._cleared()

    def _put_back_kept(self, kept: dict[str, str]) -> list[str]:
        repo = self.r.repo
        now = repo.blobs_of(list(kept))
        changed = [p for p, blob in kept.items() if now.get(p) != blob]
        for path in changed:
            repo.put_blob(path, kept[path])
        return changed

    # -- after an agent step --------------------------------------------------------------
    def after_agent_step(self, role: str) -> str:
        """Fold the agent's commits back, report git hooks/config it may have changed, put
        back any plan file or kept-out file it changed, refuse what a clone would lose.
        The tampering problem, "" when there is none."""
        r, rec = self.r, self.rec
        head = r.repo.head()
        if rec.head and head != rec.head:
            folded = r.repo.fold_commits(rec.head)
            self._say(
                f"{role.upper()}: the agent committed {plural(len(folded), 'time')} during "
                f"its step; folded back into the worktree (the executor makes the one "
                f"session commit)"
            )
        problems = self.pins.after("its agent step", agent=True)
        restored = r.restored_plan or restore_plan(r.repo, r.layout, rec, Path(r.state.run.plan))
        r.restored_plan = None
        if restored.paths:
            r.reload()
            problems.append(
                f"the agent changed the plan or the executor's settings "
                f"({restored.said()}); they are read-only to agents, so the executor put "
                f"them back and this step failed as tampering."
            )
        kept = self._put_back_kept(rec.kept)
        if kept:
            problems.append(
                f"the agent changed files the person kept out of the session "
                f"({verdicts.describe(kept)}); they were put back as the person left them."
            )
        problems += r.repo.record_tree(exclude=self._ignore()).problems
        problems += self._cleared()
        return " ".join(problems)

    def _cleared(self) -> list[str]:
        """What recording the tree removed since it was last reported (`GitTrees.cleared`)."""
        cleared, self.r.repo.cleared = self.r.repo.cleared, []
        return [f"the worktree held {c}." for c in cleared]

    # -- at verification --------------------------------------------------------------------
    def tampering(self, role: str, suite_run: TestRun | None) -> list[str]:
        """What in the tree decides what passes besides the code under test, changed since
        RED; and tests weakened since they were written."""
        r, rec = self.r, self.rec
        root = r.repo.root
        problems = []
        changed = r.repo.tree_diff(r.repo.tree_of(rec.base_commit or "HEAD"), rec.tree)
        infra_now = self.infra_now(changed)
        before = dict(rec.red.infra)  # what RED left; what RED did not touch, as it started
        unseen = [f for f in infra_now if f not in before]
        if unseen and rec.base_commit:
            base = rec.base_commit
            before.update(tampering.infra_fingerprint(
                root, unseen, stored=lambda f: self.source(base, f), runners=self.runners()
            ))  # fmt: skip
        infra = tampering.infra_changes(before, infra_now)
        # what a person may take in at the next question
        rec.infra_changed = sorted(p for p in {*before, *infra_now}
                                   if before.get(p) != infra_now.get(p))  # fmt: skip
        if infra:
            problems.append(
                f"test infrastructure changed during {role.upper()} (tampering: it decides "
                f"what passes): {verdicts.describe(infra)}"
            )
        if rec.ignored is not None:  # None: a session started before this was recorded
            now = r.repo.ignored_entries(ignore=self._ignore())
            hidden = tampering.hidden_code(root, rec.ignored, now)
            if hidden:
                problems.append(
                    f"code or test configuration git ignores appeared during the session (the "
                    f"tests can use it, but it is never committed and no diff shows it): "
                    f"{verdicts.describe(hidden)}"
                )
        hooked = tampering.runner_hooks(root, changed, is_test=is_test_file)
        if hooked:
            problems.append(
                f"code written in this session reaches into the test runner (pytest's "
                f"internals or hooks; it could decide what passes): {verdicts.describe(hooked)}"
            )
        planted = tampering.unchecked_pycs(root, changed)
        if planted:
            problems.append(
                f"bytecode that Python runs without checking its source sits beside this "
                f"session's modules (git ignores it; the commit holds the source): "
                f"{verdicts.describe(planted)}"
            )
        problems += self.weakened_tests(role)
        problems += self.outside_changes() + self.pins.environment_changes()
        gone = self._earlier_tests_gone(suite_run)
        if gone:
            problems.append(
                f"tests that passed when earlier sessions were committed are gone from the "
                f"suite or no longer pass in it (deleted, renamed, not collected, deselected "
                f"or skipped in this session): {verdicts.describe(gone)}"
            )
        return problems

    def outside_changes(self) -> list[str]:
        """pytest's settings or a conftest.py above the repository changed since the
        session started (pytest reads them when the repository has no settings)."""
        if self.rec.outside is None:  # a session started before this was recorded
            return []
        now = tampering.outside_config(self.r.repo.root)
        changed = tampering.infra_changes(self.rec.outside, now)
        if not changed:
            return []
        return [
            f"test configuration outside the repository changed during the session (pytest "
            f"reads settings and a conftest.py in the folders above a repository that has "
            f"no settings of its own; the executor does not restore them, remove or restore "
            f"them yourself): {verdicts.describe(changed)}"
        ]

    def infra_now(self, changed: list[str]) -> dict[str, str]:
        """Test infrastructure as it stands: the changed files that are infrastructure,
        and every file the session's test commands run."""
        named = tampering.command_files(self.r.repo.root, self.commands())
        files = [f for f in changed if tampering.is_infra(f)] + named
        return tampering.infra_fingerprint(self.r.repo.root, files, runners=self.runners())

    def infra_unseen(self, changed: list[str]) -> list[str]:
        """What the session's test commands run, changed in RED where its diff (`changed`)
        does not show it: a file git ignores, which RED's own check ran with and nobody
        saw. Pinned when the session started, before RED acted."""
        before = self.rec.base_infra
        if before is None:  # a session started before this was recorded
            return []
        now = self.infra_now(changed)
        hidden = [f for f in sorted({*before, *now}) if f not in changed
                  and before.get(f) != now.get(f)]  # fmt: skip
        if not hidden:
            return []
        return [
            f"test infrastructure changed during RED where no diff shows it (git ignores "
            f"it; the test commands run it): {verdicts.describe(hidden)}"
        ]

    def weakened_tests(self, role: str, run: TestRun | None = None) -> list[str]:
        """Tests weakened since the session started (RED) or since RED (GREEN, REFACTOR),
        judged by what changed (`testchanges`); `run`: RED's own test run, whose failing
        tests a change may have strengthened. Sets `rec.weakened` (their files)."""
        return self.judge_tests(role, run)[0]

    def judge_tests(
        self, role: str, run: TestRun | None = None
    ) -> tuple[list[str], list[str], list[str]]:
        """`weakened_tests`; and the Python tests RED deleted, and those it took assertions
        or cases from while they failed: judged once GREEN has changed the code
        (`executor.workflows.tdd.session.checks.losses`)."""
        rec, root = self.rec, self.r.repo.root
        # with no RED (a session of one GREEN step), what it changed is judged as RED's
        red = role == "red" or not rec.red.tests
        before = rec.base_tests if red else rec.red.tests
        rev = rec.base_commit if red else rec.red.tree  # None: recorded before trees were
        now = verdicts.test_fingerprints(root, {k.split("::", 1)[0] for k in before})
        changed = verdicts.changed_keys(before, now)
        failing = (
            [c.id for c in run.cases if c.outcome in {"failed", "error"}] if run else []
        ) if red else list(rec.red.failing)  # fmt: skip
        found: dict[str, list[str]] = {}
        deleted: list[str] = []
        thinned: list[str] = []
        moves: dict[str, Definition] | None = None
        for file, keys in changed.items():
            old = testchanges.definitions(file, self.source(rev, file)) if rev else None
            new = testchanges.definitions(file, read_regular(root / file))
            failed = frozenset(k for k in keys if any(map(verdicts.matching([k]), failing)))
            if old is None:  # a RED verified before its tree was recorded: any change
                gone = [f"{k.split('::', 1)[1]} (changed)" for k in keys if k in before]
                found.update({file: gone} if gone else {})
                continue
            for j in testchanges.judge(old, new, keys, after_red=not red, failed_in_red=failed):
                why = j.weakenings(fails_now=red and j.key in failed)
                if why == ["gone"]:  # moved to another file: judged as a change there
                    moves = self._added_elsewhere(before) if moves is None else moves
                    there = moves.get(j.key.split("::", 1)[1])
                    if there is not None and there[0] != file:
                        fails = red and any(map(verdicts.matching([there[0]]), failing))
                        j = testchanges.judge({j.key: old[j.key]}, {j.key: there[1]}, [j.key],
                                              after_red=not red)[0]  # fmt: skip
                        why = j.weakenings(fails_now=fails)
                python_test = role == "red" and j.is_test and file.endswith(".py")
                if python_test and why == ["gone"]:
                    deleted.append(j.key)  # judged once GREEN has changed the code
                elif python_test and not why and j.unless_failing:
                    thinned.append(j.key)  # its failure in RED may be unrelated: judged too
                elif why:
                    words = ", ".join(testchanges.WHY[w] for w in why)
                    found.setdefault(file, []).append(f"{j.key.split('::', 1)[1]} ({words})")
        rec.weakened = sorted(found)
        return weakened_problems(role, found), deleted, thinned

    def _added_elsewhere(self, before: dict[str, str]) -> dict[str, Definition]:
        """Python test definitions the worktree holds that `before` did not, by their name
        within their file (`Class::test_x`): where a test that is gone from one file went
        (a move), with its key."""
        repo = self.r.repo
        tree = repo.record_tree(exclude=self._ignore()).tree
        found: dict[str, Definition] = {}
        for rel in repo.paths_in(tree):
            if not (rel.endswith(".py") and is_test_file(rel)):
                continue
            for key, node in testchanges.definitions(rel, read_regular(repo.root / rel)).items():
                if key not in before and "::" in key:
                    found.setdefault(key.split("::", 1)[1], (key, node))
        return found

    def source(self, rev: str, path: str) -> bytes | None:
        """A file as `rev` (a commit or a tree) holds it; None when it holds none."""
        blob = self.r.repo.blob_at(rev, path)
        return self.r.repo.blob_bytes(blob) if blob else None

    def _earlier_tests_gone(self, suite_run: TestRun | None) -> list[str]:
        """Earlier sessions' passing test ids this suite run does not pass: every one that
        was measured in a run of this same suite command (it must still be collected,
        selected, not skipped, and pass), and of the others those from a test module the
        suite still collects, or whose module is gone (a suite that never ran a module,
        e.g. a separate command, is not asked about it)."""
        if suite_run is None or not suite_run.structured or not suite_run.cases:
            return []
        now = {c.id for c in suite_run.cases}
        # a flaky test (it passed when run again) is not gone, though it counts as no pass
        passing = {c.id for c in suite_run.cases if c.outcome in {"passed", "flaky"}}
        collected = {i.split("::", 1)[0] for i in now}
        before: set[str] = set()
        in_suite: set[str] = set()
        archive = self.r.archive
        for entry in self.r.state.entries():
            if entry.number == self.s.number or not entry.commit_hash or entry.adopted:
                continue
            other = self.r.state.record(entry.number)
            other = other or (archive.get(entry.number) if archive else None)
            if other is not None:
                mine = in_suite if other.in_suite == suite_run.command else before
                mine.update(other.green_passed)
        root = self.r.repo.root
        accepted = verdicts.session_ids(self.rec.accepted)  # a person took their change in
        changed = verdicts.matching(self.rec.red.session or ())  # RED changed them, judged
        # gone before this session started (a commit of the person's): not its doing; read
        # only where the runner's ids name the tests as their definitions do
        at_start = verdicts.matching(self.rec.base_tests)
        there = at_start if any(map(at_start, now)) else None

        def taken(tid: str) -> bool:
            return accepted(tid) or changed(tid) or (there is not None and not there(tid))

        return sorted(t for t in in_suite - passing if not taken(t)) + [
            tid
            for tid in sorted(before - now)
            if not taken(tid)
            and ((module := tid.split("::", 1)[0]) in collected or not _module_exists(root, module))
        ]


def weakened_problems(role: str, found: dict[str, list[str]]) -> list[str]:
    """One line a file of weakened tests (`found`: file -> each test and why)."""
    return [
        f"tests in {f} weakened during {role.upper()} (tests only grow stronger without a "
        f"person; one may accept them at the next question): " + "; ".join(items[:5])
        for f, items in sorted(found.items())
    ]


def _module_exists(root: Path, module: str) -> bool:
    """A test id's module (`tests.test_x[.TestClass]` for pytest, a file path for JS)."""
    if (root / module).is_file():
        return True
    parts = module.split(".")
    while parts:
        if (root / ("/".join(parts) + ".py")).is_file():
            return True
        parts.pop()
    return False
