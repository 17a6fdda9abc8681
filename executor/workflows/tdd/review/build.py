"""The review of a run, built from what the run recorded: `.agent-state.json` (sessions in
progress), `.agent-sessions/` (finished ones), the plan (what each session asked, from
which file and line) and git (each commit, its trailers and its diff; what an attempt
changed against the one before it). Read-only: nothing is locked or written."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from executor.engine.layout import Layout
from executor.errors import UserError
from executor.fsutil import quote
from executor.plan.cache import PlanView
from executor.workflows.tdd.record.counts import elapsed, tests_line
from executor.workflows.tdd.record.session import SessionRecord
from executor.workflows.tdd.record.state import RunState, SessionArchive, SessionEntry
from executor.workflows.tdd.review import facts
from executor.workflows.tdd.review.model import CommitView, RunReview, SessionReview, Split

if TYPE_CHECKING:
    from executor.vcs import GitRepo

#: A commit's diff as a review keeps it (the rest is said to be left out).
PATCH_CHARS = 60_000


def load_state(named: Path) -> tuple[Layout, RunState]:
    """The run of the plan `named` (UserError when it has none yet)."""
    from executor.workflows.tdd.record.state import state_store
    from executor.workflows.tdd.runner.workspace import check_plan_owner

    layout = Layout(named if named.is_dir() else named.parent)
    state = state_store(layout).load()
    if state is None:
        raise UserError(
            f"{quote(named)} has not been run yet ({quote(layout.state)} does not exist): "
            f"nothing to review. Run it first: executor execute-plan --plan {quote(named)}"
        )
    check_plan_owner(state, named, layout)
    state.refresh()
    return layout, state


def review(
    named: Path,
    *,
    phase: int | None = None,
    only: Collection[int] | None = None,
) -> RunReview:
    """The review of the run of `named`: every session (of `phase`, or the numbers in
    `only`), with its commit and its attempts' diffs read from git."""
    from executor.vcs import GitRepo
    from executor.workflows.tdd.views.status import load_for_status

    layout, state = load_state(named)
    plan = load_for_status(named)
    phases = {p.number: p.name for p in state.phases}
    if phase is not None and phase not in phases:
        known = ", ".join(map(str, phases)) or "none"
        raise UserError(f"the plan has no phase {phase} (its phases: {known})")
    archive = SessionArchive(layout.archive)
    run = RunReview(
        project=state.project_name,
        plan=state.run.plan or str(named),
        state_file=str(layout.state),
        run_id=state.run.run_id,
        status=state.status,
        started_at=state.execution_started_at,
        updated_at=state.last_updated_at,
        tool_version=state.run.tool_version,
        phase=phase,
        phase_names=phases,
        options=_options(state),
    )
    for p in state.phases:
        if phase is not None and p.number != phase:
            continue
        for entry in p.sessions:
            if only is not None and entry.number not in only:
                continue
            parked = state.run.parked.get(entry.number)
            rec = (
                state.record(entry.number)
                or (parked.record if parked else None)
                or (archive.get(entry.number) if entry.status != "not_started" else None)
            )
            one = session(entry, rec, p.number, p.name, plan, state)
            if parked is not None:  # set aside with its question while the run went on
                one.status = "parked"
                one.problem = f"waits for a person's answer: {parked.question}"
                one.notes.append(f"its work is kept under {parked.ref}, not committed")
            run.sessions.append(one)
    _totals(run)
    repo = GitRepo(Path(state.run.repo))
    _commits(run, repo)
    _attempt_changes(run, repo)
    return run


def session(
    entry: SessionEntry,
    rec: SessionRecord | None,
    phase: int,
    phase_name: str,
    plan: PlanView,
    state: RunState,
) -> SessionReview:
    """One session as recorded (its seed entry only, when its record is gone)."""
    out = SessionReview(
        number=entry.number,
        title=entry.title,
        phase=phase,
        phase_name=phase_name,
        status=entry.status,
        started_at=entry.started_at,
        completed_at=entry.completed_at,
        tests=_tests(entry),
        coverage=entry.coverage,
        recorded=rec is not None,
    )
    _asked(out, plan, state)
    if entry.commit_hash and not entry.adopted:
        out.commit = CommitView(entry.commit_hash)
    if entry.adopted:
        out.notes.append(
            "adopted: the plan ticks it as done, and its tests pass here (no "
            "agent ran; no commit of this run)"
        )
    if rec is None:
        return out
    out.seconds = elapsed(rec)
    out.spans = facts.spans(rec)
    out.split = facts.split(rec, out.spans, out.seconds)
    out.red, out.red_count = facts.red_tests(rec)
    out.verified = rec.last_summary
    out.strength = rec.strength
    out.judged = facts.judged(rec)
    out.answers = list(rec.answers)
    out.attempts = facts.attempts(rec)
    out.runs = list(rec.runs)
    out.unverified = facts.unverified(rec, no_verify=state.run.options.no_verify)
    # why it stopped, or why a person skipped it (a session done has nothing left to say)
    out.problem = rec.problem if entry.status in {"blocked", "skipped"} else ""
    if rec.blocked_reason and entry.status == "blocked":
        out.problem = rec.blocked_reason
    costs = [c.cost_usd for c in rec.agent_calls if c.cost_usd is not None]
    out.cost_usd = round(sum(costs), 6) if costs else None
    tokens = [a.tokens for a in out.attempts if a.tokens is not None]
    out.tokens = sum(tokens) if tokens else None
    out.retries = len(out.attempts) - len({a.step for a in out.attempts})
    if rec.environment is not None:
        out.notes.append(f"tests ran with {rec.environment.python} ({rec.environment.source})")
    return out


def _asked(out: SessionReview, plan: PlanView, state: RunState) -> None:
    """What the plan asks of the session, and where (file:line, relative to the repo)."""
    s = plan.session(out.number)
    if s is None:
        return
    source = Path(s.source_file)
    root = Path(state.run.repo)
    shown = source.relative_to(root) if source.is_relative_to(root) else source
    out.source = f"{shown}:{s.line_start}"
    out.objectives = [o.text for o in s.objectives]
    out.plan_checks = list(s.checkpoints)


def _tests(entry: SessionEntry) -> str:
    if entry.tests_written is None and entry.tests_passing is None:
        return "-"
    return tests_line(entry.tests_written, entry.tests_passing, entry.tests_counted)


def _options(state: RunState) -> list[str]:
    """The run's options a reviewer weighs the evidence by."""
    o = state.run.options
    out = [
        f"agent: {o.agent or ('a command' if o.agent_command else 'the exit-42 bridge')}",
        f"checkpoints: {o.checkpoints}",
        f"automatic retries: {o.max_retries}",
    ]
    if o.min_mutation_score is not None:
        out.append(f"minimum mutation score: {o.min_mutation_score}%")
    if o.no_verify:
        out.append("commit hooks: off (--no-verify)")
    if o.sandbox == "off":
        out.append("sandbox: off")
    return out


def _totals(run: RunReview) -> None:
    total, costs, tokens = Split(), [], []
    for s in run.sessions:
        total.add(s.split)
        run.retries += s.retries
        run.agent_calls += len(s.attempts)
        if s.cost_usd is not None:
            costs.append(s.cost_usd)
        if s.tokens is not None:
            tokens.append(s.tokens)
    run.split = total
    run.cost_usd = round(sum(costs), 6) if costs else None
    run.tokens = sum(tokens) if tokens else None


def _commits(run: RunReview, repo: GitRepo) -> None:
    """Each session's commit from git, in one call: message, trailers, stat, diff."""
    wanted = [s.commit.sha for s in run.sessions if s.commit is not None]
    shown = repo.shown(wanted, max_chars=PATCH_CHARS)
    for s in run.sessions:
        if s.commit is None:
            continue
        got = shown.get(s.commit.sha)
        if got is None:
            s.commit.missing = True
            continue
        s.commit.subject = got.message.splitlines()[0] if got.message else ""
        s.commit.message, s.commit.trailers = got.message, got.trailers
        s.commit.stat, s.commit.patch, s.commit.cut = got.stat, got.patch, got.cut


def _attempt_changes(run: RunReview, repo: GitRepo) -> None:
    """What each attempt after the first of its step changed against the one before it:
    its files and its diff (none when git no longer has either tree)."""
    for s in run.sessions:
        before: dict[str, str] = {}
        for a in s.attempts:
            prev = before.get(a.step)
            if a.tree:
                before[a.step] = a.tree
            if prev is None or a.tree is None:
                continue
            a.patch = repo.tree_patch(prev, a.tree, max_chars=PATCH_CHARS)
            if a.patch is not None:
                a.changed = repo.tree_diff(prev, a.tree)
