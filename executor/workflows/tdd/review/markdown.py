"""The report as markdown: the same content as the page, for a file, a pull request's body
or a chat. Text from an agent, a test run, git or the plan is escaped (`text`, `code`,
`fenced`): it never becomes a link, a heading, HTML or the end of a block.

With a `limit` (GitHub's 65,536 characters for a pull request's body), what a reviewer
needs first always goes in (the summary, what was not verified, each session's facts);
the long parts (diffs, attempts, test runs), each folded in `<details>`, go in while
they fit, and those left out say so and where to find them.
"""

from __future__ import annotations

import html
import re

from executor.words import plural
from executor.workflows.tdd.record.counts import duration
from executor.workflows.tdd.review.facts import where
from executor.workflows.tdd.review.model import KINDS, RunReview, SessionReview
from executor.workflows.tdd.review.terminal import clock, seconds, split_line, usage
from executor.workflows.tdd.step import Step

#: GitHub's limit on a pull request's body, in characters.
GITHUB_BODY = 65_536
_INLINE = re.compile(r"([\\`*_\[\]<>|~&])")
_HOW = {"terminal": "terminal", "bridge": "bridge", "yes": "--yes", "not_asked": "not asked"}


def text(value: object) -> str:
    """Inline text: one line, the characters markdown and HTML act on escaped (and what
    would start a block at the start of a line: a heading, a quote, a list)."""
    out = _INLINE.sub(r"\\\1", " ".join(str(value).split()))
    out = re.sub(r"^(\d+)([.)])", r"\1\\\2", out)
    return "\\" + out if out.startswith(("#", ">", "+", "-", "=")) else out


def code(value: object) -> str:
    """An inline code span that holds any text (a fence longer than its backticks)."""
    body = " ".join(str(value).split())
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or not body else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


def cell(value: str) -> str:
    """A table cell (a `|` not escaped yet would end it)."""
    return re.sub(r"(?<!\\)\|", r"\\|", value)


def fenced(body: str, info: str = "") -> str:
    fence = "`" * max(3, max((len(m) for m in re.findall(r"`+", body)), default=0) + 1)
    return f"{fence}{info}\n{body.rstrip()}\n{fence}"


def folded(summary: str, body: str) -> str:
    """`body` behind a one-line `summary` (HTML: markdown is not read inside it)."""
    line = html.escape(" ".join(summary.split()), quote=False)
    return f"<details><summary>{line}</summary>\n\n{body}\n\n</details>"


def markdown(run: RunReview, *, limit: int | None = None) -> str:
    head = _head(run)
    cores = [_core(s) for s in run.sessions]
    extras = [_extras(s) for s in run.sessions]
    if limit is None:
        return (
            "\n\n".join(
                [
                    head,
                    *(
                        c + "".join("\n\n" + x for x in xs)
                        for c, xs in zip(cores, extras, strict=True)
                    ),
                ]
            )
            + "\n"
        )
    return _fit(head, cores, extras, limit)


def _fit(head: str, cores: list[str], extras: list[list[str]], limit: int) -> str:
    """The essentials of every session that fits, then the long parts while they fit."""
    room = limit - len(head) - 400  # the notes of what was left out
    kept = 0
    for c in cores:
        if room - len(c) - 2 < 0:
            break
        room -= len(c) + 2
        kept += 1
    blocks = [head]
    for c, xs in zip(cores[:kept], extras[:kept], strict=True):
        parts = [c]
        for x in xs:
            if len(x) + 2 <= room:
                parts.append(x)
                room -= len(x) + 2
            elif "left out" not in parts[-1]:
                parts.append(
                    "_(longer parts left out to fit the limit: the report file and "
                    "`git show` have them)_"
                )
        blocks.append("\n\n".join(parts))
    if kept < len(cores):
        blocks.append(
            f"_{len(cores) - kept} more sessions left out to fit the limit: "
            f"`executor report` writes them all._"
        )
    return "\n\n".join(blocks)[:limit] + "\n"


def _head(run: RunReview) -> str:
    phase = f" (phase {run.phase}: {run.phase_names.get(run.phase, '')})" if run.phase else ""
    total = len(run.sessions)
    lines = [
        f"# {text(run.project)}: run report{' ' + text(phase) if phase else ''}",
        "",
        f"Plan {code(run.plan)} · run {code(run.run_id[:8])} · **{text(run.status)}** · "
        f"started {text(clock(run.started_at))} · last step {text(clock(run.updated_at))}",
        "",
        "| sessions | time | agents |",
        "|---|---|---|",
        f"| {run.done} of {total} done, {run.waiting} waiting, {run.stopped} stopped | "
        f"{cell(text(duration(run.split.total)) if run.split.total else '0s')}: "
        f"{cell(text(split_line(run.split)))} | {cell(text(plural(run.agent_calls, 'call')))}, "
        f"{cell(text(plural(run.retries, 'retry', 'retries')))}; "
        f"{cell(text(usage(run.cost_usd, run.tokens)))} |",
        "",
        f"Options: {text('; '.join(run.options))}",
        "",
        "## Not verified",
        "",
    ]
    found = [(s, g) for s in run.sessions for g in s.unverified]
    if not found:
        lines.append(
            "Every step of every session was checked by a test run or answered by a person."
        )
    else:
        lines.append(text(run.gaps_said()))
        items = "\n".join(f"- session {s.number}: {text(g.text)}" for s, g in found)
        lines += ["", folded(f"each of them ({len(found)})", items)]
    lines += [
        "",
        "## Timeline",
        "",
        "| session | status | time | " + " | ".join(KINDS) + " |",
        "|---|---|---|" + "---|" * len(KINDS),
    ]
    for s in run.sessions:
        kinds = " | ".join(seconds(s.split.of(k)) for k in KINDS)
        lines.append(
            f"| {s.number} {cell(text(s.title))} | {text(s.status)} | "
            f"{duration(s.seconds)} | {kinds} |"
        )
    return "\n".join(lines)


def _core(s: SessionReview) -> str:
    sha = f", commit {code(s.commit.sha[:12])}" if s.commit else ""
    lines = [
        f"## Session {s.number}: {text(s.title)}",
        "",
        f"**{text(s.status)}**{sha} · phase {s.phase} · {text(duration(s.seconds))}",
    ]
    if s.problem:
        lines += ["", f"**{s.problem_word}:** {text(s.problem)}"]
    lines += ["", f"**The plan asked** ({code(s.source) if s.source else 'not in the plan now'}):"]
    lines += [f"- {text(o)}" for o in s.objectives] or ["- (no objectives listed)"]
    lines += [f"- check: {text(c)}" for c in s.plan_checks]
    lines += ["", f"**RED:** {plural(s.red_count, 'test')} failed first"]
    for why, tests in s.red_by_reason().items():
        lines.append(f"- {', '.join(code(t) for t in tests)}: {text(why)}")
    if s.red_count > len(s.red):
        lines.append(f"- and {s.red_count - len(s.red)} more")
    lines += ["", f"**GREEN and the suite** (the runner's own report): {text(s.tests)}"]
    lines += [f"- {text(line)}" for line in s.verified.splitlines() if line.strip()]
    if s.coverage is not None:
        lines.append(f"- coverage: {s.coverage:g}%")
    if s.strength is not None:
        lines += ["", f"**Test strength:** {text(s.strength.headline())}"]
        lines += [f"- {code(v.text())}" for v in s.strength.survivors]
    lines += ["", "**Judged:** " + ("nothing refused" if not s.judged else "")]
    lines += [f"- {text(j)}" for j in s.judged]
    if s.answers:
        lines += [
            "",
            "**Answers:**",
            "",
            "| when | where | answer | how | waited |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {text(clock(a.at))} | {text(where(Step(a.step)))} | {cell(text(a.action))}"
            f"{cell(' (' + text(a.feedback[:200]) + ')') if a.feedback else ''} | "
            f"{text(_HOW[a.via])} | {seconds(a.waited)} |"
            for a in s.answers
        ]
    if s.unverified:
        lines += ["", "**Not verified:**"] + [f"- {text(g.text)}" for g in s.unverified]
    lines += [f"_{text(n)}_" for n in s.notes]
    if s.commit is not None and not s.commit.missing:
        lines += ["", f"**Commit** {code(s.commit.sha[:12])}: {text(s.commit.subject)}"]
        lines += [f"- {text(k)}: {code(v)}" for k, v in s.commit.trailers.items()]
    return "\n".join(lines)


def _extras(s: SessionReview) -> list[str]:
    """The session's long parts, each folded."""
    out = []
    if s.attempts:
        rows = ["| step | attempt | answer | time | it said |", "|---|---|---|---|---|"]
        rows += [
            f"| {a.step.removesuffix('_agent').upper()} | {a.attempt} | {text(a.status)} | "
            f"{seconds(a.seconds)} | {cell(text(a.message[:200]))} |"
            for a in s.attempts
        ]
        out.append(folded(f"agent calls ({len(s.attempts)})", "\n".join(rows)))
        for a in s.attempts:
            if a.patch is not None:
                what = ", ".join(a.changed) if a.changed else "nothing"
                out.append(
                    folded(
                        f"{a.step.removesuffix('_agent').upper()} attempt {a.attempt} "
                        f"changed since the one before: {what}",
                        fenced(a.patch, "diff"),
                    )
                )
    if s.runs:
        rows = ["| step | attempt | command | result | time |", "|---|---|---|---|---|"]
        rows += [
            f"| {r.step.value} | {r.attempt} | {cell(code(r.command))} | {cell(text(r.summary))}"
            f" | {seconds(r.seconds)} |"
            for r in s.runs
        ]
        out.append(folded(f"test runs ({len(s.runs)})", "\n".join(rows)))
    c = s.commit
    if c is not None and not c.missing and (c.patch or c.stat):
        cut = f"\n... [{c.cut} more characters: git show {c.sha[:12]}]" if c.cut else ""
        last = c.stat.splitlines()[-1].strip() if c.stat else "the diff"
        out.append(folded(f"the diff ({last})", fenced(c.stat + "\n\n" + c.patch + cut, "diff")))
    return out
