"""`executor report`, `executor show S` and `executor pr N`: the run's record as a
reviewer reads it (`executor.workflows.tdd.review`), and the summary a run ends with."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from executor import console
from executor.cli.spec import Commands
from executor.params import Param

if TYPE_CHECKING:
    from pathlib import Path

PLAN = Param("plan", "--plan", kind="path", metavar="PLAN",
             help="Plan folder or file (default: found).")  # fmt: skip

commands = Commands()


@commands(
    "report",
    Param("phase", "--phase", kind="int", minimum=1, metavar="N", help="Only phase N."),
    Param("html", "--html", kind="path", metavar="FILE", help="Write the HTML page here."),
    Param("md", "--md", kind="path", metavar="FILE", help="Write the markdown here."),
    PLAN,
)
def report(phase: int | None, html: Path | None, md: Path | None, plan: Path | None) -> None:
    """The run as a reviewer reads it: one HTML page and the same as markdown (with
    neither --html nor --md, both beside the plan's state)."""
    from executor.cli import common

    def body() -> int:
        from executor.workflows.tdd.review.report import write_report

        written = write_report(common.resolve_plan(plan), phase=phase, html=_abs(html), md=_abs(md))
        for path in written.paths:
            console.out(str(path))
        return 0

    common.run(body)


@commands(
    "show",
    Param("session", kind="int", minimum=1, metavar="SESSION", required=True,
          help="Session number."),
    PLAN,
    Param("json_output", "--json", kind="flag", help="One JSON object."),
)  # fmt: skip
def show(session: int, plan: Path | None, json_output: bool) -> None:
    """One session's whole history: every step and attempt, what the executor ran and
    concluded, the test results, each attempt's diff, the answers, the commit."""
    from executor.cli import common

    def body() -> int:
        from executor.errors import UserError
        from executor.workflows.tdd.review.build import review
        from executor.workflows.tdd.review.terminal import show_lines

        run = review(common.resolve_plan(plan), only={session})
        if not run.sessions:
            raise UserError(f"the plan has no session {session}")
        if json_output:
            from pydantic import TypeAdapter

            from executor.workflows.tdd.review.model import SessionReview

            console.out_json(TypeAdapter(SessionReview).dump_python(run.sessions[0], mode="json"))
            return 0
        console.out("\n".join(show_lines(run.sessions[0])))
        return 0

    common.run(body, json_output=json_output)


@commands(
    "pr",
    Param("phase", kind="int", minimum=1, metavar="PHASE", required=True,
          help="A finished phase."),
    PLAN,
    Param("remote", "--remote", default="origin", metavar="NAME",
          help="The remote to push to."),
)  # fmt: skip
def pr(phase: int, plan: Path | None, remote: str) -> None:
    """Push a finished phase's commits to a branch of their own (never forced) and open
    a pull request with gh, the phase's report as its body."""
    from executor.cli import common

    def body() -> int:
        from executor.workflows.tdd.review.pr import open_pr

        opened = open_pr(common.resolve_plan(plan), phase, remote=remote, say=console.out)
        verb = "updated" if opened.updated else "opened"
        console.out(f"pull request {verb}: {opened.url or '(gh printed no address)'}")
        return 0

    common.run(body)


def _abs(path: Path | None) -> Path | None:
    return path.absolute() if path is not None else None


def end_of_run(plan: Path, *, say: Callable[[str], None] = console.out) -> dict[str, Any] | None:
    """The summary a run ends with, and the report it writes (its paths said); None
    when the plan has no run to sum up."""
    from executor.errors import ExecutorError
    from executor.workflows.tdd.review.report import write_report
    from executor.workflows.tdd.review.terminal import summary_lines

    try:
        written = write_report(plan)
    except ExecutorError as e:  # the run's own outcome was said: this one line is all
        console.err(f"(no report: {e})")
        return None
    lines = [*summary_lines(written.run), "Report: " + " and ".join(map(str, written.paths))]
    for line in lines:
        say(line)
    return {"summary": lines[:-1], "report": [str(p) for p in written.paths]}
