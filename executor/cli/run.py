"""`executor` run commands: execute-phase, execute-session, execute-plan, resume-session,
status, demo (typer). The run options are declared once, in `options.py`; what the
commands do is in `execute.py`, the work in `executor.engine`."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from executor import console, fsutil
from executor.cli import common
from executor.cli.execute import report_fn, resolve_plan, run_scope
from executor.cli.options import RUN_OPTIONS, RunOpt


def _typer_annotation(opt: RunOpt) -> Any:
    import typer

    kind: Any = opt.kind
    if opt.choices:
        kind = Literal[opt.choices]  # typer lists the choices and rejects anything else
    if opt.kind is not bool:
        kind = kind | None
    extra: dict[str, Any] = {"metavar": opt.metavar}
    if opt.minimum is not None:
        extra["min"] = opt.minimum
    if opt.envvar is not None:
        extra["envvar"] = opt.envvar
    return Annotated[kind, typer.Option(*opt.flags, help=opt.help, show_default=False, **extra)]


def with_run_options(
    leading: list[inspect.Parameter],
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Give a command `leading` parameters plus every run option, as keyword arguments."""

    def decorate(fn: Callable[..., None]) -> Callable[..., None]:
        params = list(leading)
        annotations = {p.name: p.annotation for p in leading}
        for opt in RUN_OPTIONS:
            ann = _typer_annotation(opt)
            default = False if opt.kind is bool else None
            params.append(
                inspect.Parameter(
                    opt.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=ann
                )
            )
            annotations[opt.name] = ann
        fn.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        fn.__annotations__ = annotations
        return fn

    return decorate


def _number(name: str, help: str) -> inspect.Parameter:
    return inspect.Parameter(
        name,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        annotation=Annotated[int, typer.Argument(help=help, min=1, metavar=name.upper())],
    )


def register(app: typer.Typer) -> None:
    from executor.workflows.tdd.scope import PhaseScope, PlanScope, SessionScope

    @app.command("execute-phase")
    @with_run_options([_number("phase", "Phase number.")])
    def execute_phase(phase: int, **values: Any) -> None:
        """Run every session of phase N in dependency order (/execute-phase-N)."""
        run_scope(PhaseScope(phase), values, common.argv())

    phase_opt = inspect.Parameter(
        "phase",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[
            int | None,
            typer.Option("--phase", help="The session's phase (checked).", min=1, metavar="P"),
        ],
    )

    @app.command("execute-session")
    @with_run_options([_number("session", "Session number (numbered across the plan)."), phase_opt])
    def execute_session(session: int, phase: int | None = None, **values: Any) -> None:
        """Run one session (/execute-session S)."""
        run_scope(SessionScope(session, phase), values, common.argv())

    @app.command("execute-plan")
    @with_run_options([])
    def execute_plan(**values: Any) -> None:
        """Run every session of the plan in dependency order (/execute-plan)."""
        run_scope(PlanScope(), values, common.argv())

    @app.command("resume-session")
    @with_run_options([_number("session", "Session number.")])
    def resume_session(session: int, **values: Any) -> None:
        """Continue session S from where it stopped, with the run's saved options."""
        run_scope(SessionScope(session), values, common.argv())

    @app.command("lane", hidden=True)
    def lane(
        session: Annotated[int, typer.Argument(min=1, metavar="SESSION")],
        plan: Annotated[Path, typer.Option("--plan", help="The plan inside the worktree.")],
        watch_fd: Annotated[int | None, typer.Option("--watch-fd")] = None,
        report_fd: Annotated[int | None, typer.Option("--report-fd")] = None,
        continue_with: Annotated[str, typer.Option("--continue-with")] = "[]",
        resume: Annotated[bool, typer.Option("--resume")] = False,
        yes: Annotated[bool, typer.Option("--yes")] = False,
    ) -> None:
        """One session of a parallel run, in its worktree (started by that run)."""
        import json
        import shlex

        again = [str(a) for a in json.loads(continue_with)]

        def body() -> int:
            from executor.errors import Resumable
            from executor.workflows.tdd.parallel.children import report_end, watch_parent
            from executor.workflows.tdd.run import Runner, RunRequest

            if watch_fd is not None:
                watch_parent(watch_fd)
            req = RunRequest(
                plan=plan.absolute(), scope=SessionScope(session), resume=resume, yes=yes,
                resume_argv=again,
            )  # fmt: skip
            try:
                result = Runner(req, report=console.out).execute()
            except Resumable as e:
                e.session = None  # the parallel run says how to continue, not its lane
                raise
            entry = result.state.entry(session)
            if report_fd is not None and entry is not None:
                report_end(report_fd, entry.status, entry.commit_hash, adopted=bool(entry.adopted))
            return 0

        common.run(body, rerun="executor " + shlex.join(again))

    @app.command("status")
    def status(
        plan: Annotated[
            Path | None, typer.Option("--plan", help="Plan folder or file (default: found).")
        ] = None,
        json_output: Annotated[
            bool, typer.Option("--json", help="Machine-readable output on stdout.")
        ] = False,
    ) -> None:
        """Phases, sessions, status, measured tests and commits (/show-progress)."""

        def body() -> int:
            from executor.cli.status_view import render_status
            from executor.workflows.tdd.status import load_for_status, status_data

            named = resolve_plan(plan)
            data = status_data(load_for_status(named), named)
            if json_output:
                console.out_json(data)
            else:
                render_status(data, rich=console.is_tty())
            return 0

        common.run(body, json_output=json_output)

    @app.command("demo")
    def demo(
        target: Annotated[
            Path | None,
            typer.Option(
                "--dir",
                metavar="DIR",
                help="Where to create the demo repository (default: a new temp folder).",
            ),
        ] = None,
        interactive: Annotated[
            bool,
            typer.Option("--interactive", "-i", help="Stop at every checkpoint for you to decide."),
        ] = False,
        json_output: Annotated[
            bool, typer.Option("--json", help="Machine-readable output on stdout.")
        ] = False,
    ) -> None:
        """Run the example plan end to end with the replay agent (no LLM, no network)."""

        def body() -> int:
            from executor.cli.review import end_of_run
            from executor.cli.status_view import render_status
            from executor.errors import UserError
            from executor.workflows.tdd.demo import run_demo
            from executor.workflows.tdd.status import status_data

            if target is not None and target.exists() and any(target.iterdir()):
                raise UserError(f"--dir {target.absolute()} exists and is not empty")
            if interactive and not (console.is_tty() and sys.stdin.isatty()):
                raise UserError("--interactive needs a terminal to ask you at each checkpoint")
            if not (interactive or json_output):
                console.out(
                    "The demo approves every checkpoint for you (like --yes). To decide at "
                    "each one yourself: executor demo --interactive"
                )
            result, root, log = run_demo(
                target.absolute() if target else None,
                report=report_fn(json_output),
                interactive=interactive,
                activity=console.stderr_activity if json_output else console.activity,
            )
            data = status_data(result.plan)
            plan_dir = Path(result.plan.folder)
            if json_output:
                ended = end_of_run(plan_dir, say=console.err) or {}
                console.out_json({"exit_code": 0, "repository": str(root), "commits": log,
                                  **data, **ended})  # fmt: skip
                return 0
            console.out("")
            console.out("Commit log:")
            console.out("\n".join(log))
            console.out("")
            render_status(data, rich=console.is_tty())
            where = root.parent if target is None else root  # the temporary folder it made
            console.out(
                f"\nThe demo repository is at {root}; it stays there until you remove it "
                f"(rm -rf {fsutil.quote(where)})"
            )
            console.out(
                "Next: look at a session's whole history (executor show 2 --plan "
                f"{fsutil.quote(plan_dir)}), add Claude Code commands to a project of yours "
                "(executor install-claude --plan PLAN), or check a plan of your own "
                "(executor plan validate PLAN), then run it: executor execute-plan --plan "
                "PLAN --agent claude (executor agents lists the agents)."
            )
            console.out("")
            end_of_run(plan_dir)  # the demo ends with its summary and names its report
            return 0

        common.run(body, json_output=json_output)
