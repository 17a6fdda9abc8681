"""The review on a terminal: the summary at the end of a run, and `executor show S` (one
session's whole history). Plain lines; the CLI prints them through `console`, which
escapes the control characters an agent's or a test's text may hold."""

from __future__ import annotations

from executor.words import plural
from executor.workflows.tdd.record.counts import duration
from executor.workflows.tdd.review.facts import parsed, where
from executor.workflows.tdd.review.model import KIND_WORDS, KINDS, RunReview, SessionReview, Split
from executor.workflows.tdd.step import Step


def seconds(value: float) -> str:
    """`0.4 s`, `12 s`, `3m15s`: a step's time (under a minute with a decimal)."""
    if value < 10:
        return f"{value:.1f} s"
    return f"{value:.0f} s" if value < 60 else duration(value)


def split_line(split: Split) -> str:
    parts = [f"{KIND_WORDS[k]} {seconds(split.of(k))}" for k in KINDS if split.of(k) >= 0.05]
    return ", ".join(parts) or "nothing recorded"


def usage(cost: float | None, tokens: int | None) -> str:
    """Cost and tokens where the agents reported them."""
    parts = [f"${cost:.2f}" if cost is not None else "cost not reported"]
    parts.append(f"{tokens:,} tokens" if tokens is not None else "tokens not reported")
    return ", ".join(parts)


def summary_lines(run: RunReview) -> list[str]:
    """What the end of a run says: sessions done, where the time went, retries, cost."""
    total = len(run.sessions)
    lines = [
        f"Summary: {run.done} of {plural(total, 'session')} done, {run.waiting} waiting, "
        f"{run.stopped} stopped; {duration(run.split.total) if run.split.total else '0s'} "
        f"of session time",
        f"  time: {split_line(run.split)}",
        f"  agents: {plural(run.agent_calls, 'call')}, {plural(run.retries, 'retry', 'retries')}"
        f"; {usage(run.cost_usd, run.tokens)}",
    ]
    if run.gaps():
        lines.append("  not verified: " + run.gaps_said())
    return lines


def clock(stamp: str | None) -> str:
    """An ISO UTC stamp as local `YYYY-MM-DD HH:MM:SS`."""
    at = parsed(stamp)
    return at.astimezone().strftime("%Y-%m-%d %H:%M:%S") if at else "-"


def show_lines(s: SessionReview) -> list[str]:
    """One session's whole history, in the order a person asks about it."""
    head = f"Session {s.number}: {s.title} (phase {s.phase}: {s.phase_name}): {s.status}"
    lines = [head, "=" * min(len(head), 100)]
    if s.source:
        lines.append(f"Plan: {s.source}")
    lines += [f"  - {o}" for o in s.objectives]
    lines += [f"  check before the commit: {c}" for c in s.plan_checks]
    if s.problem:
        lines.append(f"{s.problem_word}: {s.problem}")
    lines += [f"Note: {n}" for n in s.notes]
    if not s.recorded:
        return [*lines, "", "No record of its steps is kept (not started, or adopted)."]
    lines += [
        f"Started {clock(s.started_at)}; {duration(s.seconds)} in all: {split_line(s.split)}",
        f"Tests: {s.tests}; agents: {usage(s.cost_usd, s.tokens)}",
        "",
        "Steps (each step's own time; the gaps are waits between runs):",
    ]
    lines += [
        f"  {clock(p.at)}  {p.step:<18} {p.outcome:<21} {seconds(p.seconds):>8}" for p in s.spans
    ]
    lines += ["", "Agent calls:"] + (_attempts(s) or ["  none"])
    lines += ["", "Test runs (counted from the runner's own report):"]
    lines += [
        f"  {r.step.value} attempt {r.attempt}: `{r.command}`: {r.summary} "
        f"({seconds(r.seconds)})" + (f"\n      output: {r.log}" if r.log else "")
        for r in s.runs
    ] or ["  none recorded"]
    lines += ["", *red_lines(s)]
    if s.verified:
        lines += ["", "Verified:", *(f"  {line}" for line in s.verified.splitlines())]
    if s.coverage is not None:
        lines.append(f"  coverage: {s.coverage:g}%")
    if s.strength is not None:
        lines += ["", s.strength.headline()]
        lines += [f"  {v.text()}" for v in s.strength.survivors]
    lines += ["", "Judged:"] + ([f"  - {j}" for j in s.judged] or ["  nothing refused"])
    lines += ["", "Answers:"] + (_answers(s) or ["  none"])
    lines += ["", "Not verified:"] + ([f"  - {g.text}" for g in s.unverified] or ["  nothing"])
    return lines + _commit(s)


def red_lines(s: SessionReview) -> list[str]:
    if not s.red:
        return ["RED: no failing test recorded"]
    out = [f"RED: {plural(s.red_count, 'test')} failed before the code was written:"]
    more = [f"  ... and {s.red_count - len(s.red)} more"] if s.red_count > len(s.red) else []
    for why, tests in s.red_by_reason().items():
        out += [f"  {why}:", *(f"    - {t}" for t in tests)]
    return out + more


def _attempts(s: SessionReview) -> list[str]:
    out = []
    for a in s.attempts:
        role = a.step.removesuffix("_agent").upper()
        line = f"  {role} attempt {a.attempt}: {a.status}, {seconds(a.seconds)}"
        if a.cost_usd is not None or a.tokens is not None:
            line += f" ({usage(a.cost_usd, a.tokens)})"
        out.append(line)
        if a.message.strip():
            out.append(f"      said: {' '.join(a.message.split())[:300]}")
        if a.transcript:
            out.append(f"      transcript: {a.transcript}")
        if a.patch is not None:
            what = ", ".join(a.changed) if a.changed else "nothing"
            out.append(f"      changed since the attempt before: {what}")
            out += [f"      {line}" for line in a.patch.splitlines()]
    return out


def _answers(s: SessionReview) -> list[str]:
    how = {
        "terminal": "at the terminal",
        "bridge": "through the bridge",
        "yes": "by --yes",
        "not_asked": "not asked (--checkpoints)",
    }
    out = []
    for a in s.answers:
        waited = f", after {seconds(a.waited)}" if a.waited >= 0.05 else ""
        out.append(f"  {clock(a.at)}  {where(Step(a.step))}: {a.action} {how[a.via]}{waited}")
        if a.feedback:
            out.append(f"      feedback: {' '.join(a.feedback.split())[:300]}")
    return out


def _commit(s: SessionReview) -> list[str]:
    c = s.commit
    if c is None:
        return []
    if c.missing:
        return ["", f"Commit {c.sha[:12]}: not in this repository (rewritten or elsewhere)"]
    out = ["", f"Commit {c.sha}", *(f"  {line}" for line in c.message.splitlines())]
    out += ["", c.stat, "", c.patch.rstrip()]
    if c.cut:
        out.append(f"... [{c.cut} more characters of the diff: git show {c.sha[:12]}]")
    return out
