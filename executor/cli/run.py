"""`executor` run commands: execute-phase, execute-session, execute-plan, resume-session,
status, demo. Their run options are declared once, in `executor.runoptions`; what the
commands do is in `execute.py`, the work in `executor.engine`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from executor.cli.spec import Commands
from executor.params import Param
from executor.runoptions import RunOptions

if TYPE_CHECKING:
    from pathlib import Path

commands = Commands()

_PLAN_HELP = (
    "Plan folder (PHASE_*.md, PROJECT_PLAN.md, tasks.md, tasks.json, ...) or file. Default: "
    "the one plan found in the current folder, project-plans/, docs/plans/, "
    "docs/superpowers/plans/, specs/*/, .kiro/specs/*/ or .taskmaster/tasks/."
)
JSON = Param("json_output", "--json", kind="flag", help="Machine-readable output on stdout.")
#: every run command's parameters: the run options, and what is given for this call only
RUN = (
    Param("plan", "--plan", kind="path", metavar="PLAN", help=_PLAN_HELP),
    Param("repo", "--repo", kind="path", metavar="DIR",
          help="Git repository (default: the one holding the plan)."),
    Param("resume", "--resume", kind="flag",
          help="Continue after exit 42: apply the answer written for the pending request."),
    Param("yes", "-y", "--yes", kind="flag",
          help="Approve every checkpoint (CI). A failure that needs a person then stops "
          "with exit 16. Not saved."),
    *RunOptions.OPTIONS,
    Param("solutions", "--solutions", kind="path", metavar="DIR",
          help="With --agent replay: the folder of prepared files (`executor docs replay-agent`)."),
    Param("force_parallel", "--force-parallel", kind="flag",
          help="With --parallel: the sessions' test runs do not take turns on the "
          "machine's cores (each runs when its session gets there). Not saved."),
    JSON,
)  # fmt: skip


def _number(name: str, help: str) -> Param:
    return Param(name, kind="int", minimum=1, required=True, help=help)


@commands("execute-phase", _number("phase", "Phase number."), *RUN)
def execute_phase(phase: int, **values: Any) -> None:
    """Run every session of phase N in dependency order (/execute-phase-N)."""
    from executor.cli import common
    from executor.cli.execute import run_scope
    from executor.workflows.tdd.runner.scope import PhaseScope

    run_scope(PhaseScope(phase), values, common.argv())


@commands(
    "execute-session",
    _number("session", "Session number (numbered across the plan)."),
    Param("phase", "--phase", kind="int", minimum=1, metavar="P",
          help="The session's phase (checked)."),
    Param("redo", "--redo", kind="flag",
          help="A finished session runs again: its commit (the last one) is undone by a "
               "new commit first; history keeps both."),
    *RUN,
)  # fmt: skip
def execute_session(session: int, phase: int | None, redo: bool, **values: Any) -> None:
    """Run one session (/execute-session S)."""
    from executor.cli import common
    from executor.cli.execute import run_scope
    from executor.workflows.tdd.runner.scope import SessionScope

    run_scope(SessionScope(session, phase, redo), values, common.argv())


@commands("execute-plan", *RUN)
def execute_plan(**values: Any) -> None:
    """Run every session of the plan in dependency order (/execute-plan)."""
    from executor.cli import common
    from executor.cli.execute import run_scope
    from executor.workflows.tdd.runner.scope import PlanScope

    run_scope(PlanScope(), values, common.argv())


@commands("resume-session", _number("session", "Session number."), *RUN)
def resume_session(session: int, **values: Any) -> None:
    """Continue session S from where it stopped, with the run's saved options."""
    from executor.cli import common
    from executor.cli.execute import run_scope
    from executor.workflows.tdd.runner.scope import SessionScope

    run_scope(SessionScope(session), values, common.argv())


@commands(
    "lane",
    Param("session", kind="int", minimum=1, required=True, metavar="SESSION"),
    Param("plan", "--plan", kind="path", required=True, help="The plan inside the worktree."),
    Param("watch_fd", "--watch-fd", kind="int"),
    Param("report_fd", "--report-fd", kind="int"),
    Param("continue_with", "--continue-with", default="[]"),
    Param("resume", "--resume", kind="flag"),
    Param("yes", "--yes", kind="flag"),
    hidden=True,
)
def lane(
    session: int,
    plan: Path,
    watch_fd: int | None,
    report_fd: int | None,
    continue_with: str,
    resume: bool,
    yes: bool,
) -> None:
    """One session of a parallel run, in its worktree (started by that run)."""
    import json
    import shlex

    from executor import console
    from executor.cli import common
    from executor.workflows.tdd.runner.scope import SessionScope

    again = [str(a) for a in json.loads(continue_with)]

    def body() -> int:
        from executor.errors import Resumable
        from executor.workflows.tdd.parallel.children import report_end, watch_parent
        from executor.workflows.tdd.runner.opening import RunRequest
        from executor.workflows.tdd.runner.run import Runner

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


@commands(
    "status",
    Param("plan", "--plan", kind="path", metavar="PLAN",
          help="Plan folder or file (default: found)."),
    JSON,
)  # fmt: skip
def status(plan: Path | None, json_output: bool) -> None:
    """Phases, sessions, status, measured tests and commits (/show-progress)."""
    from executor import console
    from executor.cli import common

    def body() -> int:
        from executor.cli.status_view import render_status
        from executor.workflows.tdd.views.status import load_for_status, status_data

        common.no_cycle_collection()
        named = common.resolve_plan(plan)
        data = status_data(load_for_status(named), named)
        if json_output:
            console.out_json(data)
        else:
            render_status(data, rich=console.is_tty())
        return 0

    common.run(body, json_output=json_output)


@commands(
    "demo",
    Param("target", "--dir", kind="path", metavar="DIR",
          help="Where to create the demo repository (default: a new temp folder)."),
    Param("interactive", "-i", "--interactive", kind="flag",
          help="Stop at every checkpoint for you to decide."),
    JSON,
)  # fmt: skip
def demo(target: Path | None, interactive: bool, json_output: bool) -> None:
    """Run the example plan end to end with the replay agent (no LLM, no network)."""
    from executor import console, fsutil
    from executor.cli import common
    from executor.cli.execute import report_fn

    def body() -> int:
        from pathlib import Path

        from executor.cli.review import end_of_run
        from executor.cli.status_view import render_status
        from executor.errors import UserError
        from executor.workflows.tdd.demo import run_demo
        from executor.workflows.tdd.views.status import status_data

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
