"""`executor` run commands: execute-phase, execute-session, execute-plan, resume-session,
status, demo. Flags are parsed here; the work is in executor.engine."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from executor import console
from executor.cli import common

if TYPE_CHECKING:
    from executor.engine.runner import RunResult

PlanOpt = Annotated[
    Path, typer.Option("--plan", help="Plan folder (PHASE_*.md, PROJECT_PLAN.md) or file.")
]
RepoOpt = Annotated[
    Path | None,
    typer.Option(
        "--repo", help="Git repository (default: the one containing the current directory)."
    ),
]
ResumeOpt = Annotated[
    bool,
    typer.Option(
        "--resume",
        help="Continue after exit 42: apply the response written for the pending request.",
    ),
]
YesOpt = Annotated[
    bool,
    typer.Option(
        "--yes",
        "-y",
        help="Approve every checkpoint (CI). Escalations without a terminal stop with exit 16.",
    ),
]
CheckOpt = Annotated[
    str, typer.Option("--checkpoints", help="Where to stop for a human: all | session | none.")
]
AgentOpt = Annotated[
    str | None,
    typer.Option(
        "--agent-command",
        help="Run each agent request with this command instead of the exit-42 bridge "
        "(docs/agent-command.md).",
    ),
]
TestOpt = Annotated[
    str | None,
    typer.Option(
        "--test-command",
        help="Project-level test command: fallback for sessions without one, and the "
        "whole-suite regression check.",
    ),
]
RetriesOpt = Annotated[
    int,
    typer.Option(
        "--max-retries", min=0, help="Automatic GREEN/REFACTOR retries before asking a human."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output on stdout.")]


def _report_fn(json_output: bool) -> Any:
    if json_output:
        return console.err
    if console.is_tty():
        return lambda m: console.rich_console().print(m, markup=False, highlight=False)
    return console.out


def _run(
    scope: str,
    *,
    plan: Path,
    number: int | None,
    phase: int | None = None,
    repo: Path | None,
    resume: bool,
    yes: bool,
    checkpoints: str,
    agent_command: str | None,
    test_command: str | None,
    max_retries: int,
    json_output: bool,
) -> int:
    from executor.engine.runner import Runner, RunOptions
    from executor.errors import UserError

    if checkpoints not in {"all", "session", "none"}:
        raise UserError(f"--checkpoints must be all, session or none (got {checkpoints!r})")
    opts = RunOptions(
        plan=plan.resolve(),
        scope=scope,
        number=number,
        phase=phase,
        repo=repo.resolve() if repo else None,
        resume=resume,
        yes=yes,
        checkpoints=checkpoints,
        agent_command=agent_command,
        test_command=test_command,
        max_retries=max_retries,
        command_line="executor " + shlex.join(_argv_with_abs_plan(plan)),
    )
    result = Runner(opts, report=_report_fn(json_output)).execute()
    _finish(result, json_output)
    return 0


def _argv_with_abs_plan(plan: Path) -> list[str]:
    """This invocation's argv with --plan made absolute, for the printed resume command."""
    argv = list(sys.argv[1:])
    for i, a in enumerate(argv):
        if a == "--plan" and i + 1 < len(argv):
            argv[i + 1] = str(plan.resolve())
        elif a.startswith("--plan="):
            argv[i] = f"--plan={plan.resolve()}"
    return argv


def _finish(result: RunResult, json_output: bool) -> None:
    from executor.engine.status import render_status, status_data

    data = status_data(result.plan)
    if json_output:
        console.out_json({"exit_code": 0, "sessions_run": result.sessions, **data})
        return
    render_status(data, rich=console.is_tty())


def register(app: typer.Typer) -> None:
    @app.command("execute-phase")
    def execute_phase(
        phase: Annotated[int, typer.Argument(help="Phase number.")],
        plan: PlanOpt,
        repo: RepoOpt = None,
        resume: ResumeOpt = False,
        yes: YesOpt = False,
        checkpoints: CheckOpt = "all",
        agent_command: AgentOpt = None,
        test_command: TestOpt = None,
        max_retries: RetriesOpt = 2,
        json_output: JsonOpt = False,
    ) -> None:
        """Run every session of phase N (/execute-phase-N)."""
        common.run(
            lambda: _run(
                "phase",
                plan=plan,
                number=phase,
                repo=repo,
                resume=resume,
                yes=yes,
                checkpoints=checkpoints,
                agent_command=agent_command,
                test_command=test_command,
                max_retries=max_retries,
                json_output=json_output,
            ),
            json_output=json_output,
        )

    @app.command("execute-session")
    def execute_session(
        plan: PlanOpt,
        session: Annotated[int, typer.Option("--session", help="Session number.")],
        phase: Annotated[
            int | None, typer.Option("--phase", help="Phase the session belongs to (checked).")
        ] = None,
        repo: RepoOpt = None,
        resume: ResumeOpt = False,
        yes: YesOpt = False,
        checkpoints: CheckOpt = "all",
        agent_command: AgentOpt = None,
        test_command: TestOpt = None,
        max_retries: RetriesOpt = 2,
        json_output: JsonOpt = False,
    ) -> None:
        """Run one session (/execute-session phase=P session=S)."""
        common.run(
            lambda: _run(
                "session",
                plan=plan,
                number=session,
                phase=phase,
                repo=repo,
                resume=resume,
                yes=yes,
                checkpoints=checkpoints,
                agent_command=agent_command,
                test_command=test_command,
                max_retries=max_retries,
                json_output=json_output,
            ),
            json_output=json_output,
        )

    @app.command("execute-plan")
    def execute_plan(
        plan: PlanOpt,
        repo: RepoOpt = None,
        resume: ResumeOpt = False,
        yes: YesOpt = False,
        checkpoints: CheckOpt = "all",
        agent_command: AgentOpt = None,
        test_command: TestOpt = None,
        max_retries: RetriesOpt = 2,
        json_output: JsonOpt = False,
    ) -> None:
        """Run every session of the plan in dependency order (/execute-plan)."""
        common.run(
            lambda: _run(
                "plan",
                plan=plan,
                number=None,
                repo=repo,
                resume=resume,
                yes=yes,
                checkpoints=checkpoints,
                agent_command=agent_command,
                test_command=test_command,
                max_retries=max_retries,
                json_output=json_output,
            ),
            json_output=json_output,
        )

    @app.command("resume-session")
    def resume_session(
        session: Annotated[int, typer.Argument(help="Session number.")],
        plan: PlanOpt,
        repo: RepoOpt = None,
        resume: ResumeOpt = False,
        yes: YesOpt = False,
        checkpoints: CheckOpt = "all",
        agent_command: AgentOpt = None,
        test_command: TestOpt = None,
        max_retries: RetriesOpt = 2,
        json_output: JsonOpt = False,
    ) -> None:
        """Continue session N from its last checkpoint (/resume-session N)."""
        common.run(
            lambda: _run(
                "resume",
                plan=plan,
                number=session,
                repo=repo,
                resume=resume,
                yes=yes,
                checkpoints=checkpoints,
                agent_command=agent_command,
                test_command=test_command,
                max_retries=max_retries,
                json_output=json_output,
            ),
            json_output=json_output,
        )

    @app.command("status")
    def status(plan: PlanOpt, json_output: JsonOpt = False) -> None:
        """Phases, sessions, status, measured tests and commits (/show-progress)."""

        def body() -> int:
            from executor.engine.status import render_status, status_data
            from executor.plan import load_plan

            data = status_data(load_plan(plan.resolve()))
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
                "--dir", help="Where to create the demo repository (default: a new temp folder)."
            ),
        ] = None,
    ) -> None:
        """Run the example plan end to end with the replay agent (no LLM, no network)."""

        def body() -> int:
            from executor.engine.demo import run_demo
            from executor.engine.status import render_status, status_data

            report = _report_fn(False)
            if target is not None and target.exists() and any(target.iterdir()):
                from executor.errors import UserError

                raise UserError(f"--dir {target.resolve()} exists and is not empty")
            result, root = run_demo(target.resolve() if target else None, report=report)
            console.out("")
            console.out("Commit log:")
            import subprocess

            log = subprocess.run(
                ["git", "log", "--oneline", "--decorate=no"],
                cwd=root,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            console.out(log.rstrip())
            console.out("")
            render_status(status_data(result.plan), rich=console.is_tty())
            console.out(f"\nThe demo repository is at {root}")
            return 0

        common.run(body)
