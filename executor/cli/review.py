"""`executor report`, `executor show S` and `executor pr N`: the run's record as a
reviewer reads it (`executor.workflows.tdd.review`), and the summary a run ends with."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from executor import console
from executor.cli import common

PlanOpt = Annotated[
    Path | None,
    typer.Option("--plan", help="Plan folder or file (default: found).", metavar="PLAN"),
]


def register(app: typer.Typer) -> None:
    @app.command("report")
    def report(
        phase: Annotated[
            int | None, typer.Option("--phase", min=1, metavar="N", help="Only phase N.")
        ] = None,
        html: Annotated[
            Path | None, typer.Option("--html", metavar="FILE", help="Write the HTML page here.")
        ] = None,
        md: Annotated[
            Path | None, typer.Option("--md", metavar="FILE", help="Write the markdown here.")
        ] = None,
        plan: PlanOpt = None,
    ) -> None:
        """The run as a reviewer reads it: one HTML page and the same as markdown (with
        neither --html nor --md, both beside the plan's state)."""

        def body() -> int:
            from executor.cli.execute import resolve_plan
            from executor.workflows.tdd.review.report import write_report

            written = write_report(resolve_plan(plan), phase=phase, html=_abs(html), md=_abs(md))
            for path in written.paths:
                console.out(str(path))
            return 0

        common.run(body)

    @app.command("show")
    def show(
        session: Annotated[int, typer.Argument(min=1, metavar="SESSION", help="Session number.")],
        plan: PlanOpt = None,
        json_output: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
    ) -> None:
        """One session's whole history: every step and attempt, what the executor ran and
        concluded, the test results, each attempt's diff, the answers, the commit."""

        def body() -> int:
            from executor.cli.execute import resolve_plan
            from executor.errors import UserError
            from executor.workflows.tdd.review.build import review
            from executor.workflows.tdd.review.terminal import show_lines

            run = review(resolve_plan(plan), only={session})
            if not run.sessions:
                raise UserError(f"the plan has no session {session}")
            if json_output:
                from pydantic import TypeAdapter

                from executor.workflows.tdd.review.model import SessionReview

                console.out_json(
                    TypeAdapter(SessionReview).dump_python(run.sessions[0], mode="json")
                )
                return 0
            console.out("\n".join(show_lines(run.sessions[0])))
            return 0

        common.run(body, json_output=json_output)

    @app.command("pr")
    def pr(
        phase: Annotated[int, typer.Argument(min=1, metavar="PHASE", help="A finished phase.")],
        plan: PlanOpt = None,
        remote: Annotated[
            str, typer.Option("--remote", metavar="NAME", help="The remote to push to.")
        ] = "origin",
    ) -> None:
        """Push a finished phase's commits to a branch of their own (never forced) and open
        a pull request with gh, the phase's report as its body."""

        def body() -> int:
            from executor.cli.execute import resolve_plan
            from executor.workflows.tdd.review.pr import open_pr

            opened = open_pr(resolve_plan(plan), phase, remote=remote, say=console.out)
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
