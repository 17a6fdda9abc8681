"""The report as one self-contained HTML page: inline CSS and SVG, no script, nothing
loaded from elsewhere (its Content-Security-Policy forbids it too). Every text that came
from an agent, a test run, git or the plan is escaped (`html.escape`): a test named
`<script>` is shown as those characters."""

from __future__ import annotations

from html import escape

from executor import __version__
from executor.stamps import utc_now
from executor.words import plural
from executor.workflows.tdd.record.counts import duration
from executor.workflows.tdd.review import timeline
from executor.workflows.tdd.review.facts import where
from executor.workflows.tdd.review.model import RunReview, SessionReview
from executor.workflows.tdd.review.style import CSS
from executor.workflows.tdd.review.terminal import clock, seconds, split_line, usage
from executor.workflows.tdd.step import Step

#: The most diff text one page holds (a 200-session run stays quick to open): past it,
#: a session's diff is named by its `git show` command.
PAGE_DIFF_CHARS = 3_000_000
_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_HOW = {
    "terminal": "at the terminal",
    "bridge": "through the bridge",
    "yes": "--yes",
    "not_asked": "not asked",
}


def e(text: object) -> str:
    return escape(str(text), quote=True)


def page(run: RunReview) -> str:
    budget = [PAGE_DIFF_CHARS]
    title = f"Run report: {run.project}" + (f", phase {run.phase}" if run.phase else "")
    parts = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}</title><style>{CSS}</style></head><body><main>",
        _header(run),
        _cards(run),
        _gaps(run),
        "<h2>Timeline</h2>",
        f'<div class="panel">{timeline.legend()}{timeline.timeline(run.sessions)}'
        '<p class="caption">One row a session, from its start; each bar a step, as long as '
        "it took (hover for its name and time). A wait of more than a minute between runs "
        "is drawn short and dashed.</p></div>",
        *(_session(s, budget) for s in run.sessions),
        f"<footer>Made by plan-executor {e(__version__)} at {e(clock(utc_now()))} from "
        f"<code>{e(run.state_file)}</code> and the repository's commits.</footer>",
        "</main></body></html>",
    ]
    return "\n".join(parts)


def _header(run: RunReview) -> str:
    phase = f" · phase {run.phase}: {run.phase_names.get(run.phase, '')}" if run.phase else ""
    return (
        f'<header class="run"><div><h1>{e(run.project)}<small>run report{e(phase)}</small>'
        f'</h1><div class="meta">plan <code>{e(run.plan)}</code> · run <code>'
        f"{e(run.run_id[:8])}</code> · {e('; '.join(run.options))}</div></div>"
        f'<div class="meta" style="text-align:right"><span class="badge {e(run.status)}">'
        f"{e(run.status)}</span><br>started {e(clock(run.started_at))}<br>last step "
        f"{e(clock(run.updated_at))}</div></header>"
    )


def _cards(run: RunReview) -> str:
    total = len(run.sessions)
    rest = total - run.done - run.waiting - run.stopped
    sessions = (
        f'<div class="card"><div class="label">Sessions</div><div class="big">{run.done}'
        f"<span> of {total} done</span></div><div>{run.waiting} waiting · {run.stopped} "
        f"stopped{f' · {rest} not started or skipped' if rest else ''}</div></div>"
    )
    time = (
        f'<div class="card time"><div class="label">Time</div><div class="big">'
        f"{e(duration(run.split.total) if run.split.total else '0s')}<span> of session "
        f"time</span></div>{timeline.split_bar(run.split)}{timeline.legend()}"
        f'<div class="meta">{e(split_line(run.split))}</div></div>'
    )
    agents = (
        f'<div class="card"><div class="label">Agents</div><div class="big">'
        f"{run.agent_calls}<span> {'call' if run.agent_calls == 1 else 'calls'}</span></div>"
        f"<div>{e(plural(run.retries, 'retry', 'retries'))}</div>"
        f'<div class="meta">{e(usage(run.cost_usd, run.tokens))}</div></div>'
    )
    return f'<div class="cards">{sessions}{time}{agents}</div>'


def _gaps(run: RunReview) -> str:
    found = [(s, g) for s in run.sessions for g in s.unverified]
    if not found:
        return (
            '<h2>Not verified</h2><div class="panel good">Every step of every session '
            "was checked by a test run or answered by a person.</div>"
        )
    kinds = run.gaps_said()
    items = "".join(
        f'<li><a href="#s{s.number}">session {s.number}</a>: {e(g.text)}</li>' for s, g in found
    )
    return (
        f'<h2>Not verified</h2><div class="panel gaps"><div>{e(kinds)}</div>'
        f'<details><summary>each of them ({len(found)})</summary><ul class="plain">{items}'
        f"</ul></details></div>"
    )


def _session(s: SessionReview, budget: list[int]) -> str:
    sha = s.commit.sha[:10] if s.commit else ""
    head = (
        f'<section class="session" id="s{s.number}"><header><h2>Session {s.number}: '
        f'{e(s.title)}</h2><span class="badge {e(s.status)}">{e(s.status)}</span>'
        f'<span class="meta">phase {s.phase}: {e(s.phase_name)}'
        f"{f' · commit <code>{e(sha)}</code>' if sha else ''}"
        f"{f' · {e(duration(s.seconds))}' if s.seconds else ''}</span>"
        + "".join(
            f'<span class="badge warn">{e(_counted(n, kind))}</span>'
            for kind, n in _kinds(s).items()
        )
        + "</header>"
    )
    left = _asked(s) + _red(s) + _verified(s) + _strength(s)
    right = _time(s) + _answers(s) + _judged(s) + _notes(s)
    body = f'<div class="grid"><div>{left}</div><div>{right}</div></div>'
    return head + body + _attempts(s, budget) + _runs(s) + _commit(s, budget) + "</section>"


def _kinds(s: SessionReview) -> dict[str, int]:
    counts: dict[str, int] = {}
    for g in s.unverified:
        counts[g.kind] = counts.get(g.kind, 0) + 1
    return counts


def _counted(n: int, kind: str) -> str:
    """`5 checkpoints approved by --yes`; one of a kind: `approved by --yes`."""
    if n > 1:
        return f"{n} {kind}"
    first, _, rest = kind.partition(" ")
    return rest if first in {"checkpoints", "sessions"} and rest else kind


def _asked(s: SessionReview) -> str:
    where_from = f' <span class="muted">({e(s.source)})</span>' if s.source else ""
    items = (
        "".join(f"<li>{e(o)}</li>" for o in s.objectives) or "<li class='muted'>none listed</li>"
    )
    checks = "".join(f"<li>check: {e(c)}</li>" for c in s.plan_checks)
    problem = f"<p><b>{s.problem_word}:</b> {e(s.problem)}</p>" if s.problem else ""
    return (
        f'<h3>What the plan asked{where_from}</h3>{problem}<ul class="plain">{items}{checks}</ul>'
    )


def _red(s: SessionReview) -> str:
    if not s.red:
        return "<h3>RED</h3><p class='muted'>no failing test recorded</p>"
    rows = ""
    for why, tests in s.red_by_reason().items():  # one reason for many tests is said once
        first = f'<td rowspan="{len(tests)}">{e(why)}</td>'
        rows += "".join(
            f"<tr><td><code>{e(t)}</code></td>{first if i == 0 else ''}</tr>"
            for i, t in enumerate(tests)
        )
    more = s.red_count - len(s.red)
    tail = f"<p class='muted'>and {more} more</p>" if more > 0 else ""
    return (
        f"<h3>RED: {e(plural(s.red_count, 'test'))} failed first</h3><table><tr><th>test"
        f"</th><th>why it failed</th></tr>{rows}</table>{tail}"
    )


def _verified(s: SessionReview) -> str:
    lines = (
        "<br>".join(e(line) for line in s.verified.splitlines()) or "<span class='muted'>-</span>"
    )
    cov = f"<br>Coverage: {s.coverage:g}%" if s.coverage is not None else ""
    head = "<h3>GREEN and the suite (the runner's own report)</h3>"
    return f"{head}<p>Tests: {e(s.tests)}<br>{lines}{cov}</p>"


def _strength(s: SessionReview) -> str:
    if s.strength is None:
        return ""
    rows = "".join(f"<li class='survivor'>{e(v.text())}</li>" for v in s.strength.survivors)
    return f"<h3>Test strength</h3><p>{e(s.strength.headline())}</p>" + (
        f"<ul class='plain'>{rows}</ul>" if rows else ""
    )


def _time(s: SessionReview) -> str:
    if not s.recorded:
        return "<h3>Time</h3><p class='muted'>no record of its steps is kept</p>"
    return (
        f"<h3>Time</h3><p>{e(duration(s.seconds))} from {e(clock(s.started_at))}: "
        f"{e(split_line(s.split))}<br>agents: {e(usage(s.cost_usd, s.tokens))}</p>"
    )


def _answers(s: SessionReview) -> str:
    if not s.answers:
        return ""
    rows = "".join(
        f"<tr><td class='num' title='{e(clock(a.at))}'>{e(clock(a.at)[11:])}</td>"
        f"<td>{e(where(Step(a.step)))}</td><td><b>{e(a.action)}</b>"
        f"{f'<br><span class=muted>{e(a.feedback[:400])}</span>' if a.feedback else ''}</td>"
        f"<td class='nowrap'>{e(_HOW[a.via])}</td><td class='num'>{e(seconds(a.waited))}</td></tr>"
        for a in s.answers
    )
    return (
        "<h3>Answers</h3><table><tr><th>when</th><th>where</th><th>answer</th><th>how</th>"
        f"<th>waited</th></tr>{rows}</table>"
    )


def _judged(s: SessionReview) -> str:
    if not s.judged:
        return "<h3>Judged</h3><p class='muted'>nothing refused</p>"
    return (
        "<h3>Judged</h3><ul class='plain'>"
        + "".join(f"<li>{e(j)}</li>" for j in s.judged)
        + "</ul>"
    )


def _notes(s: SessionReview) -> str:
    return "".join(f"<p class='meta'>{e(n)}</p>" for n in s.notes)


def _attempts(s: SessionReview, budget: list[int]) -> str:
    if not s.attempts:
        return ""
    rows = []
    for a in s.attempts:
        said = " ".join(a.message.split())[:300]
        changed = ""
        if a.patch is not None:
            what = ", ".join(a.changed) if a.changed else "nothing"
            changed = (
                f"<details><summary>changed since the attempt before: {e(what)}"
                f"</summary>{diff(a.patch, budget)}</details>"
            )
        reported = a.cost_usd is not None or a.tokens is not None
        cost = e(usage(a.cost_usd, a.tokens)) if reported else "-"
        rows.append(
            f"<tr><td>{e(a.step.removesuffix('_agent').upper())}</td>"
            f"<td class='num'>{a.attempt}</td><td>{e(a.status)}</td>"
            f"<td class='num'>{e(seconds(a.seconds))}</td><td>{cost}</td>"
            f"<td>{e(said)}{changed}</td></tr>"
        )
    return (
        "<h3>Agent calls</h3><table><tr><th>step</th><th>attempt</th><th>answer</th>"
        "<th>time</th><th>cost</th><th>it said</th></tr>" + "".join(rows) + "</table>"
    )


def _runs(s: SessionReview) -> str:
    if not s.runs:
        return ""
    rows = "".join(
        f"<tr><td>{e(r.step.value)}</td><td class='num'>{r.attempt}</td><td><code>{e(r.command)}"
        f"</code></td><td>{e(r.summary)}</td><td class='num'>{e(seconds(r.seconds))}</td></tr>"
        for r in s.runs
    )
    return (
        "<h3>Test runs</h3><table><tr><th>step</th><th>attempt</th><th>command</th>"
        f"<th>result</th><th>time</th></tr>{rows}</table>"
    )


def _commit(s: SessionReview, budget: list[int]) -> str:
    c = s.commit
    if c is None:
        return ""
    if c.missing:
        return f"<h3>Commit</h3><p>{e(c.sha)}: not in this repository (rewritten or elsewhere)</p>"
    cut = f"\n... [{c.cut} more characters: git show {c.sha[:12]}]" if c.cut else ""
    files = c.stat.splitlines()[-1].strip() if c.stat else "no files"
    return (
        f"<h3>Commit <code>{e(c.sha[:12])}</code></h3><pre class='msg'>{e(c.message)}</pre>"
        f"<details><summary>the diff ({e(files)})</summary><pre>{e(c.stat)}</pre>"
        f"{diff(c.patch + cut, budget, c.sha)}</details>"
    )


def diff(text: str, budget: list[int], sha: str = "") -> str:
    """A diff with its lines coloured; past the page's budget, the command that shows it."""
    if len(text) > budget[0]:
        where_ = f"git show {sha[:12]}" if sha else "git"
        return f"<p class='muted'>left out to keep the page quick to open: {e(where_)}</p>"
    budget[0] -= len(text)
    out = []
    for line in text.splitlines():
        kind = (
            "file"
            if line.startswith("diff --git")
            else "hunk"
            if line.startswith("@@")
            else "add"
            if line.startswith("+")
            else "del"
            if line.startswith("-")
            else ""
        )
        out.append(f'<span class="{kind}">{e(line)}</span>' if kind else e(line))
    return "<pre>" + "\n".join(out) + "</pre>"
