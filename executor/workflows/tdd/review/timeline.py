"""The report's pictures, as inline SVG: the sessions' timeline (one row a session, each
step a bar as long as it took, coloured by what it was) and the run's time split.

A row starts at its session's start. A wait between runs longer than `LONG_WAIT` (a
person away for the night) is drawn shortened, as a dashed gap that says how long it
was, so one long pause does not shrink every other session to a sliver. Every text is
escaped; each bar says its step and duration on hover (`<title>`).
"""

from __future__ import annotations

from html import escape

from executor.workflows.tdd.record.counts import duration
from executor.workflows.tdd.review.model import KIND_WORDS, KINDS, Kind, SessionReview, Split

COLOURS: dict[Kind, str] = {
    "agent": "#6366f1",
    "tests": "#10b981",
    "mutation": "#f59e0b",
    "person": "#ec4899",
    "other": "#94a3b8",
}
#: A wait between runs longer than this is drawn as `DRAWN_WAIT` seconds.
LONG_WAIT = 60.0
DRAWN_WAIT = 8.0
ROW = 22
LABEL = 260
WIDTH = 1100
RIGHT = 70
TOP = 34


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 60 else duration(value)


def _placed(
    s: SessionReview,
) -> tuple[list[tuple[float, float, str, Kind]], list[tuple[float, float]]]:
    """The session's bars (x in drawn seconds, width, title, kind) and its shortened waits
    (x, how long the wait really was)."""
    bars, waits = [], []
    cursor = end = 0.0
    for span in sorted(s.spans, key=lambda p: p.start):
        gap = span.start - end
        if gap > LONG_WAIT:
            waits.append((cursor, gap))
            cursor += DRAWN_WAIT
        elif gap > 0:
            cursor += gap
        title = f"{span.step}: {_seconds(span.seconds)} ({span.outcome})"
        bars.append((cursor, span.seconds, title, span.kind))
        cursor += span.seconds
        end = max(end, span.start + span.seconds)
    return bars, waits


def legend() -> str:
    items = []
    for k in KINDS:
        items.append(
            f'<span class="key"><i style="background:{COLOURS[k]}"></i>'
            f"{escape(KIND_WORDS[k])}</span>"
        )
    return '<div class="legend">' + "".join(items) + "</div>"


def timeline(sessions: list[SessionReview]) -> str:
    """One row a session: its steps as bars, placed by when they ran."""
    rows = [(s, *_placed(s)) for s in sessions]
    longest = max((b[-1][0] + b[-1][1] for _, b, _ in rows if b), default=0.0) or 1.0
    area = WIDTH - LABEL - RIGHT
    scale = area / longest
    height = TOP + ROW * len(rows) + 10
    out = [
        f'<svg class="timeline" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
        f'height="{height}" role="img" xmlns="http://www.w3.org/2000/svg">',
        "<title>Timeline of the sessions: each step as long as it took</title>",
    ]
    out += _axis(longest, scale, height)
    for i, (s, bars, waits) in enumerate(rows):
        y = TOP + i * ROW
        name = f"{s.number}  {s.title}"
        name = name if len(name) <= 34 else name[:33] + "…"
        out.append(
            f'<a href="#s{s.number}"><text x="8" y="{y + 15}" class="row">{escape(name)}</text></a>'
        )
        for x, width, title, kind in bars:
            drawn = max(width * scale, 0.8)
            out.append(
                f'<rect x="{LABEL + x * scale:.1f}" y="{y + 4}" width="{drawn:.1f}" height="14" '
                f'rx="2" fill="{COLOURS[kind]}"><title>{escape(title)}</title></rect>'
            )
        for x, waited in waits:
            left, right = LABEL + x * scale, LABEL + (x + DRAWN_WAIT) * scale
            out.append(
                f'<line x1="{left:.1f}" y1="{y + 11}" x2="{right:.1f}" y2="{y + 11}" '
                f'class="wait"><title>waited {escape(duration(waited))} between runs</title>'
                "</line>"
            )
        if not bars:
            out.append(f'<text x="{LABEL}" y="{y + 15}" class="none">{escape(s.status)}</text>')
        total = duration(s.seconds) if s.seconds else ""
        out.append(f'<text x="{WIDTH - 8}" y="{y + 15}" class="total">{escape(total)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _axis(longest: float, scale: float, height: int) -> list[str]:
    """Ticks every round number of seconds or minutes across the bars' area."""
    step = next(
        (
            t
            for t in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200)
            if longest / t <= 10
        ),
        14400,
    )
    out = []
    tick = 0
    while tick <= longest:
        x = LABEL + tick * scale
        out.append(
            f'<line x1="{x:.1f}" y1="{TOP - 6}" x2="{x:.1f}" y2="{height - 6}" class="tick"/>'
        )
        out.append(f'<text x="{x:.1f}" y="{TOP - 12}" class="tick">{escape(_tick(tick))}</text>')
        tick += step
    return out


def _tick(seconds: int) -> str:
    if seconds == 0:
        return "0"
    return f"{seconds} s" if seconds < 60 else duration(seconds)


def split_bar(split: Split, width: int = 420) -> str:
    """The time split as one stacked bar."""
    total = split.total or 1.0
    out = [
        f'<svg class="split" viewBox="0 0 {width} 18" width="{width}" height="18" '
        f'role="img" xmlns="http://www.w3.org/2000/svg"><title>Where the time went</title>'
    ]
    x = 0.0
    for k in KINDS:
        w = split.of(k) / total * width
        if w <= 0:
            continue
        label = f"{KIND_WORDS[k]}: {_seconds(split.of(k))}"
        out.append(
            f'<rect x="{x:.1f}" y="0" width="{w:.1f}" height="18" fill="{COLOURS[k]}">'
            f"<title>{escape(label)}</title></rect>"
        )
        x += w
    out.append("</svg>")
    return "".join(out)
