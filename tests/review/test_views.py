"""The report's views of one review: everything an agent, a test or a plan wrote is shown as
text (HTML and markdown), the page loads nothing from elsewhere, a long wait is drawn
short, and the markdown fits GitHub's body limit with what was left out said."""

from __future__ import annotations

import re

from executor.strength.facts import StrengthFacts, SurvivorFact
from executor.workflows.tdd.record.session import Answered, Ran
from executor.workflows.tdd.review.markdown import GITHUB_BODY, markdown
from executor.workflows.tdd.review.model import (
    Attempt,
    CommitView,
    Gap,
    RedTest,
    RunReview,
    SessionReview,
    Span,
    Split,
)
from executor.workflows.tdd.review.page import page
from executor.workflows.tdd.review.terminal import show_lines
from executor.workflows.tdd.step import Step

BAD = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def session(number: int, *, patch: str = "", hostile: str = BAD) -> SessionReview:
    return SessionReview(
        number=number, title=f"Title {hostile}", phase=1, phase_name=f"Phase {hostile}",
        status="completed", source=f"plan/{hostile}.md:3", objectives=[f"do {hostile}"],
        plan_checks=[hostile], started_at="2026-01-01T10:00:00.000Z", seconds=7300.0,
        split=Split(agent=10, tests=20, mutation=5, person=3, other=7262),
        spans=[Span("red_agent", "ok", 0, 10, "agent", "2026-01-01T10:00:10.000Z"),
               Span("red_verify", "ok", 7200, 20, "tests", "2026-01-01T12:00:30.000Z")],
        red=[RedTest(f"tests/test_x.py::test_{number}", f"AssertionError: {hostile}")],
        red_count=1, tests="1 passing of 1", verified=f"GREEN verified: {hostile}",
        coverage=90.0,
        strength=StrengthFacts(step="green", tree="t", made=2, killed=1, total=2, survivors=[
            SurvivorFact(file="a.py", line=3, operator="<", diff=f"`{hostile}` -> `x`",
                         why=hostile)]),
        judged=[f"tampering: {hostile}"],
        answers=[Answered(step=Step.AFTER_RED, action="request_changes", via="terminal",
                          at="2026-01-01T10:01:00.000Z", waited=3.0, feedback=hostile)],
        attempts=[Attempt("green_agent", 2, "success", 4.0, f"said {hostile}", 0.5, 100,
                          None, "t2", [f"{hostile}.py"], f"+{hostile}\n")],
        runs=[Ran(step=Step.GREEN_VERIFY, attempt=1, command=f"pytest {hostile}", seconds=2,
                  verdict="green", summary=f"0 failed, 1 passed {hostile}")],
        commit=CommitView("a" * 40, subject=hostile,
                          message=f"feat: {hostile}\n\nX-Note: {hostile}",
                          trailers={"X-Note": hostile}, stat=f" {hostile} | 1 +",
                          patch=patch or f"diff --git a/x b/x\n+{hostile}\n"),
        unverified=[Gap("checkpoints approved by --yes", f"after RED: {hostile}")],
        notes=[hostile], problem=hostile,
    )  # fmt: skip


def run_of(*sessions: SessionReview) -> RunReview:
    return RunReview(
        project=f"proj {BAD}", plan=f"/p/{BAD}", state_file="/p/.agent-state.json",
        run_id="0123456789", status="completed", started_at="2026-01-01T10:00:00.000Z",
        updated_at="2026-01-01T12:00:00.000Z", tool_version="1", sessions=list(sessions),
        options=[f"agent: {BAD}"],
    )  # fmt: skip


def test_the_page_shows_every_untrusted_text_as_text_and_loads_nothing() -> None:
    html = page(run_of(session(1)))
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "onerror=alert(1)&gt;" in html  # shown, as characters
    assert html.count("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;") >= 20
    # self-contained: nothing fetched, and a policy that would refuse it anyway
    assert not re.search(r"\b(src|href)\s*=\s*['\"]?(https?:|//)", html)
    assert "<link" not in html and "@import" not in html and "url(" not in html
    assert "default-src 'none'" in html


def test_the_markdown_shows_every_untrusted_text_as_text() -> None:
    md = markdown(run_of(session(1)))
    outside_code = re.sub(r"```+.*?```+", "", md, flags=re.S)  # fenced diffs are code
    outside_code = re.sub(r"(`+).*?\1", "", outside_code)  # inline code spans are code
    assert '\\<script\\>alert("x")\\</script\\>' in outside_code
    for tag in re.findall(r"(?<!\\)</?([a-z]+)", outside_code):  # no HTML but the folds
        assert tag in {"details", "summary"}, tag


def test_a_long_wait_between_runs_is_drawn_short_and_said() -> None:
    html = page(run_of(session(1)))
    svg = html[
        html.index('<svg class="timeline"') : html.index(
            "</svg>", html.index('<svg class="timeline"')
        )
    ]
    assert "waited 1h59m between runs" in svg
    rects = [float(w) for w in re.findall(r'<rect x="[\d.]+" y="\d+" width="([\d.]+)"', svg)]
    assert len(rects) == 2 and max(rects) > 100  # the steps, not the wait, fill the row


def test_the_markdown_fits_a_pull_requests_body_and_says_what_it_left_out() -> None:
    big = "diff --git a/x b/x\n" + "\n".join(f"+line {i} " + "x" * 60 for i in range(3000))
    run = run_of(*(session(n, patch=big, hostile="h") for n in range(1, 41)))
    whole = markdown(run)
    assert len(whole) > 10 * GITHUB_BODY
    body = markdown(run, limit=GITHUB_BODY)
    assert len(body) <= GITHUB_BODY
    assert all(f"## Session {n}: Title h" in body for n in range(1, 41))  # every session
    assert "longer parts left out to fit the limit" in body
    assert body.count("<details>") == body.count("</details>")
    few = markdown(run_of(session(1, hostile="h")), limit=GITHUB_BODY)
    assert "left out" not in few and "<summary>the diff (" in few


def test_show_says_each_part_of_a_session() -> None:
    lines = show_lines(session(1, hostile="h"))
    text = "\n".join(lines)
    for part in ("Plan: plan/h.md:3", "Stopped: h", "Agent calls:", "GREEN attempt 2: success",
                 "changed since the attempt before: h.py", "Test runs", "RED: 1 test failed",
                 "Test strength: 1/2", "Judged:", "after RED: request_changes at the terminal",
                 "Not verified:", "Commit aaaaaaaaaaaa"):  # fmt: skip
        assert part in text, part
