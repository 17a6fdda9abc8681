"""What one session's record says, read as evidence: its steps on a timeline, where its
time went, its attempts, what was judged, and what was not verified (and why)."""

from __future__ import annotations

from datetime import datetime, timedelta

from executor.words import plural
from executor.workflows.tdd.record.session import SessionRecord
from executor.workflows.tdd.review.model import Attempt, Gap, Kind, RedTest, Span, Split
from executor.workflows.tdd.step import AGENT_STEPS, Step, checkpoint_of, is_escalation

#: The checkpoints' names as a person reads them.
WHERE = {
    "before_start": "before the start",
    "after_red": "after RED",
    "after_green": "after GREEN",
    "after_refactor": "before the commit",
    "session_complete": "after the commit",
}
#: The most RED failures a review lists for one session (the count says the rest).
RED_SHOWN = 60


def _kind(step: Step) -> Kind:
    if step in AGENT_STEPS:
        return "agent"
    if step.value.endswith("_verify") or step is Step.HOOKS:
        return "tests"
    if step.value.endswith("_strength"):
        return "mutation"
    if checkpoint_of(step) is not None or is_escalation(step):
        return "person"
    return "other"


#: What kind of work each step is (read for every step of every session: looked up once).
KIND_OF: dict[Step, Kind] = {step: _kind(step) for step in Step}


def where(step: Step) -> str:
    """A question's place: a checkpoint's name, or the failure it came after."""
    name = checkpoint_of(step)
    if name is not None:
        return WHERE.get(name, name)
    return f"after {step.value.removesuffix('_escalated').upper()} failed"


def parsed(stamp: str | None) -> datetime | None:
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None


def spans(rec: SessionRecord) -> list[Span]:
    """Each step as it ran, placed by its own clock: it ended at its stamp, after its
    seconds. Gaps between steps are waits between runs (an agent or a person answering
    through the bridge, a pause)."""
    ends = [parsed(h.at) for h in rec.history]
    begins = [
        e - timedelta(seconds=h.seconds)
        for e, h in zip(ends, rec.history, strict=True)
        if e is not None
    ]
    start = parsed(rec.started_at)
    if not begins:
        return []
    origin = min([*begins, *([start] if start else [])])
    found = []
    for h, end in zip(rec.history, ends, strict=True):
        if end is None:
            continue
        offset = (end - origin).total_seconds() - h.seconds
        found.append(
            Span(
                h.step.value,
                h.outcome,
                round(max(offset, 0.0), 3),
                h.seconds,
                KIND_OF[h.step],
                h.at,
            )
        )
    return found


def split(rec: SessionRecord, found: list[Span], elapsed: float) -> Split:
    """Where the session's time went: the agents' own seconds, its test runs, what the
    mutation step added after verification, the questions' waits; the rest of its wall
    clock is the executor's own work and the waits between runs."""
    by_kind: dict[str, float] = {}
    for s in found:
        by_kind[s.kind] = by_kind.get(s.kind, 0.0) + s.seconds
    out = Split(
        agent=sum(c.seconds for c in rec.agent_calls),
        tests=sum(r.seconds for r in rec.runs) if rec.runs else by_kind.get("tests", 0.0),
        mutation=by_kind.get("mutation", 0.0),
        person=sum(a.waited for a in rec.answers) if rec.answers else by_kind.get("person", 0.0),
    )
    out.other = max(0.0, elapsed - out.agent - out.tests - out.mutation - out.person)
    return out


def attempts(rec: SessionRecord) -> list[Attempt]:
    """Every agent call, with the tree its attempt left. A step's history entries and its
    calls are in the same order, one entry per attempt (calls that failed and were
    retried at once belong to the same attempt)."""
    trees: dict[str, list[str | None]] = {}
    for h in rec.history:
        if h.step in AGENT_STEPS:
            trees.setdefault(h.step.value, []).append(h.tree)
    out: list[Attempt] = []
    seen: dict[str, int] = {}
    last: dict[str, int] = {}
    for call in rec.agent_calls:
        step = call.step.value
        if last.get(step) != call.attempt:
            seen[step] = seen.get(step, -1) + 1
            last[step] = call.attempt
        owned = trees.get(step, [])
        tokens = None
        if call.input_tokens is not None or call.output_tokens is not None:
            tokens = (call.input_tokens or 0) + (call.output_tokens or 0)
        out.append(
            Attempt(
                step=step,
                attempt=call.attempt,
                status=call.status,
                seconds=call.seconds,
                message=call.message,
                cost_usd=call.cost_usd,
                tokens=tokens,
                transcript=call.log,
                tree=owned[seen[step]] if seen[step] < len(owned) else None,
            )
        )
    return out


def red_tests(rec: SessionRecord) -> tuple[list[RedTest], int]:
    """RED's tests, each with why it failed (the first `RED_SHOWN`), and how many: the
    session's own (the definitions RED added or changed) when recorded, else the failures
    the runner's report named."""
    from executor.workflows.tdd.session.detail import why_failed

    own = [k for k in rec.red.session or [] if not k.endswith("::<file>")]
    if own:
        shown = [
            RedTest(k, why_failed(rec, k.split("::")[0], k.split("::")[-1]))
            for k in own[:RED_SHOWN]
        ]
        return shown, len(own)
    ids = list(dict.fromkeys([*rec.red.why, *rec.red.failing]))
    return [RedTest(i, rec.red.why.get(i, "failed")) for i in ids[:RED_SHOWN]], len(ids)


def judged(rec: SessionRecord) -> list[str]:
    """What the executor refused or a person decided about the session's work, and why."""
    lines = list(dict.fromkeys(e.strip() for e in rec.errors if e.strip()))
    if rec.weakened:
        lines.append(f"weakened tests waiting for a person: {', '.join(rec.weakened)}")
    if rec.accepted:
        lines.append(f"a person took changed tests into the session: {', '.join(rec.accepted)}")
    if rec.red.deleted:
        lines.append(
            f"tests RED deleted, judged against the code after GREEN: "
            f"{', '.join(rec.red.deleted[:10])}"
        )
    if rec.strength is not None and rec.strength.accepted:
        lines.append(f"a person accepted the test strength {rec.strength.score} as it is")
    return lines


def unverified(rec: SessionRecord, *, no_verify: bool) -> list[Gap]:
    """What no check or no person stood behind, each said for what it is."""
    gaps = []
    for a in rec.answers:
        if a.via == "yes":
            gaps.append(
                Gap(
                    "checkpoints approved by --yes",
                    f"{where(a.step)}: approved by --yes; no person looked",
                )
            )
        elif a.via == "not_asked":
            gaps.append(
                Gap(
                    "checkpoints not asked",
                    f"{where(a.step)}: not asked (--checkpoints leaves it out)",
                )
            )
    skipped = {h.step for h in rec.history if h.outcome == "skip" and h.step in AGENT_STEPS}
    if Step.RED_AGENT in skipped:
        gaps.append(
            Gap(
                "sessions without RED",
                "no RED step: no test was seen failing before the code was written",
            )
        )
    if Step.GREEN_AGENT in skipped:
        gaps.append(
            Gap(
                "sessions without GREEN",
                "no GREEN step: the session's tests are left failing for a later one",
            )
        )
    if rec.tests_counted == "exit_code":
        gaps.append(
            Gap(
                "sessions whose tests were not counted",
                "tests not counted: the test command writes no "
                "report the executor reads; only its exit code was checked",
            )
        )
    passed = passed_in_red(rec)
    if passed:
        gaps.append(
            Gap(
                "sessions with tests passing in RED",
                f"{plural(len(passed), 'test')} "
                f"of the session already passed in RED (proving nothing new): "
                f"{', '.join(passed[:5])}",
            )
        )
    gaps += _strength_gaps(rec)
    if no_verify and rec.commit_hash and not rec.adopted:
        gaps.append(
            Gap(
                "sessions without commit hooks",
                "the repository's commit hooks did not run (--no-verify)",
            )
        )
    return gaps


def passed_in_red(rec: SessionRecord) -> list[str]:
    """The session's own tests (the definitions RED added or changed) that passed in RED;
    the project's tests that passed beside them prove nothing either way."""
    if not rec.red.session:
        return list(rec.red.passed)
    from executor.workflows.tdd.trust.verdicts import matching

    mine = matching(rec.red.session)
    return [t for t in rec.red.passed if mine(t)]


def _strength_gaps(rec: SessionRecord) -> list[Gap]:
    facts = rec.strength
    if facts is not None and facts.partial:
        return [
            Gap(
                "partial mutation runs",
                f"mutation run partial: the budget ran out "
                f"({facts.total} of {facts.made} mutants judged)",
            )
        ]
    if not rec.commit_hash or rec.adopted:
        return []
    if facts is not None and not facts.total:
        why = facts.note or "no mutant of the changed lines could be made"
        return [Gap("sessions without a mutation score", f"test strength not measured: {why}")]
    if facts is None and any(h.step is Step.GREEN_VERIFY for h in rec.history):
        return [
            Gap(
                "sessions without a mutation score",
                "test strength not measured: no mutation step ran",
            )
        ]
    return []
