"""After an agent step, before its answer counts: what the agent did that nobody asked
for. Its own commits are folded back (one commit per session, the executor's); a plan
file it changed is put back and the step fails as tampering (the plan is read-only to
agents); a git hook or config changed during the session is reported once.

What the tests decide (test infrastructure, code reaching into the runner) is judged at
verification, in `executor.workflows.tdd.work`, with the facts in `guards`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from executor.words import plural
from executor.workflows.tdd import checks, guards

if TYPE_CHECKING:
    from executor.engine.layout import Layout
    from executor.testrun import TestRun
    from executor.vcs import GitRepo
    from executor.workflows.tdd.context import SessionPart
    from executor.workflows.tdd.state import SessionRecord


def after_agent_step(part: SessionPart, role: str) -> str:
    """Fold the agent's commits back, report git hooks/config it may have changed, put
    back any plan file it changed. The tampering problem, "" when there is none."""
    r, rec = part.r, part.rec
    head = r.repo.head()
    if rec.head and head != rec.head:
        folded = r.repo.fold_commits(rec.head)
        part._say(
            f"{role.upper()}: the agent committed {plural(len(folded), 'time')} during its "
            f"step; folded back into the worktree (the executor makes the one session commit)"
        )
    _note_git_controls(part, role)
    restored = r.restored_plan or restore_plan(r.repo, r.layout, rec, Path(r.state.run.plan))
    r.restored_plan = []
    if not restored:
        return ""
    r.reload()
    return (
        f"the agent changed the plan ({guards.describe(restored)}); the plan is read-only "
        f"to agents, so the executor put it back and this step failed as tampering."
    )


def _note_git_controls(part: SessionPart, role: str) -> None:
    """Say (once a session) which of git's hooks or config changed since it started."""
    rec = part.rec
    if not rec.started_at:
        return
    from datetime import datetime

    since = datetime.fromisoformat(rec.started_at.replace("Z", "+00:00")).timestamp()
    changed = guards.git_controls_changed(part.r.repo.git_dir, since)
    if not changed:
        return
    note = (
        f"git's own files changed since this session started (by the agent during its "
        f"step, or by you while it waited): {guards.describe(changed)}. The executor's "
        f"git commands run no hooks; yours will: look at them before your next commit."
    )
    if note not in rec.errors:
        rec.errors.append(note)
        part._say(f"{role.upper()}: {note}")


def tampering(part: SessionPart, role: str, suite_run: TestRun | None) -> list[str]:
    """At GREEN/REFACTOR verification: what in the tree decides what passes, besides the
    code under test. Test infrastructure changed since RED, code that reaches into the
    runner, code git ignores (used by the tests, never committed), and earlier sessions'
    passing tests missing from the suite."""
    r, rec = part.r, part.rec
    root = r.repo.root
    problems = []
    changed = r.repo.changed_since(rec.base_commit or "HEAD", ignore=part._ignore())
    infra = guards.infra_changes(rec.red.infra, guards.infra_fingerprint(root, changed))
    if infra:
        problems.append(
            f"test infrastructure changed during {role.upper()} (tampering: it decides what "
            f"passes): {guards.describe(infra)}"
        )
    if rec.ignored is not None:  # None: a session started before this was recorded
        now = r.repo.ignored_entries(ignore=part._ignore())
        hidden = guards.hidden_code(root, rec.ignored, now)
        if hidden:
            problems.append(
                f"code or test configuration git ignores appeared during the session (the "
                f"tests can use it, but it is never committed and no diff shows it): "
                f"{guards.describe(hidden)}"
            )
    hooked = guards.runner_hooks(root, changed, is_test=checks.is_test_file)
    if hooked:
        problems.append(
            f"code written in this session reaches into the test runner (pytest's internals "
            f"or hooks; it could decide what passes): {guards.describe(hooked)}"
        )
    planted = guards.unchecked_pycs(root, changed)
    if planted:
        problems.append(
            f"bytecode that Python runs without checking its source sits beside this "
            f"session's modules (git ignores it; the commit holds the source): "
            f"{guards.describe(planted)}"
        )
    outside = guards.links_outside(root, changed)
    if outside:
        problems.append(
            f"symbolic links to files outside the repository (the tests read them, the "
            f"commit would hold only the link): {guards.describe(outside)}"
        )
    gone = _earlier_tests_gone(part, suite_run)
    if gone:
        problems.append(
            f"tests that passed when earlier sessions were committed are gone from the suite "
            f"(deleted or renamed in this session): {guards.describe(gone)}"
        )
    return problems


def _earlier_tests_gone(part: SessionPart, suite_run: TestRun | None) -> list[str]:
    """Earlier sessions' passing test ids the suite no longer has: from a test module the
    suite still collects, or whose module is gone (a suite that never ran that module,
    e.g. a separate command, is not asked about it)."""
    if suite_run is None or not suite_run.structured or not suite_run.cases:
        return []
    now = {c.id for c in suite_run.cases}
    collected = {i.split("::", 1)[0] for i in now}
    before: set[str] = set()
    archive = part.r.archive
    for entry in part.r.state.entries():
        if entry.number == part.s.number or not entry.commit_hash or entry.adopted:
            continue
        other = part.r.state.record(entry.number) or (
            archive.get(entry.number) if archive else None
        )
        if other is not None:
            before.update(other.green_passed)
    root = part.r.repo.root
    return [
        tid
        for tid in sorted(before - now)
        if (module := tid.split("::", 1)[0]) in collected or not _module_exists(root, module)
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


def restore_plan(repo: GitRepo, layout: Layout, rec: SessionRecord, plan: Path) -> list[str]:
    """Plan files that differ from the session's last snapshot are put back as at the
    session's base commit; returns them (repo-relative). The plan is read-only to agents.
    """
    if rec.base_commit is None:
        return []
    changed = repo.facts(ignore=layout.owned()).changed
    plan_now = guards.plan_paths(plan, repo.root, changed)
    plan_before = guards.plan_paths(plan, repo.root, rec.tree)
    before = {p: rec.tree[p] for p in plan_before}
    touched = guards.differences(before, guards.snapshot(repo.root, plan_now))
    if touched:
        repo.restore_paths(rec.base_commit, [repo.root / p for p in touched])
    return touched
