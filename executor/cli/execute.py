"""What the run commands do once their flags are read (`run.py`): build the request, run
it, render the result."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from executor import console
from executor.cli import common
from executor.cli.callback import Callback

if TYPE_CHECKING:
    from executor.errors import NeedAgent
    from executor.workflows.tdd.runner.run import RunResult
    from executor.workflows.tdd.runner.scope import Scope


def report_fn(json_output: bool) -> Any:
    if json_output:
        return console.err
    if console.is_tty():
        return console.rich_line
    return console.out


def run_scope(scope: Scope, values: dict[str, Any], argv: list[str]) -> None:
    """Run `scope` with the parsed run options; `argv`: this command line (without
    `executor`), from which the commands that continue the run are made."""
    json_output = bool(values.get("json_output"))
    if values.get("plan") is None:  # found now, so every command that continues names it
        import contextlib

        from executor.errors import ExecutorError

        with contextlib.suppress(ExecutorError):  # none or several: the run says so
            values["plan"] = common.resolve_plan(None)
    # after an interruption the saved run continues by running the command again; after
    # exit 42 by running it with --resume (which needs a pending request)
    again = _with_abs_plan([a for a in argv if a != "--resume"], values)
    resume_argv = [*again, "--resume"]
    callback = Callback("executor " + shlex.join(again))

    def body() -> int:
        try:
            return _execute(scope, values, resume_argv, callback)
        except BaseException as e:  # its summary, then what stopped it and what to do next
            if _stopped_in_a_session(callback, e) and not json_output:
                from executor.cli.review import end_of_run

                end_of_run(Path(values["plan"]), say=console.err)
            raise

    common.run(
        body,
        json_output=json_output,
        rerun="executor " + shlex.join(resume_argv),
        resume="executor " + shlex.join(again),
        after=callback.after,
        waiting=lambda e: _no_agent(e, callback, again),
    )


def _stopped_in_a_session(callback: Callback, error: BaseException) -> bool:
    """The run stopped for a person once it drove a session (a pause, a failure, a
    budget): it ends with its summary too. Not after exit 42 (a host answers and goes
    on) or an interruption (the person stopped it)."""
    from executor.errors import Interrupted, NeedAgent

    runner = callback.runner
    if runner is None or runner.session is None:
        return False
    return not isinstance(error, (NeedAgent, Interrupted, KeyboardInterrupt))


def _no_agent(e: NeedAgent, callback: Callback, again: list[str]) -> str | None:
    """On a terminal, a run given no agent that stops for one (exit 42) says so in one
    line, with the command that continues it with an agent; None: a host runs it (or
    the person chose the bridge: `--agent bridge`), which reads the NEED_AGENT lines."""
    options = callback.runner.options if callback.runner is not None else None
    if e.agent_name == "human" or options is None or options.agent or options.agent_command:
        return None
    if not (sys.stdin.isatty() and console.is_tty()):
        return None
    with_agent = "executor " + shlex.join([*again, "--agent", "claude"])
    return (
        f"No agent was given, so the run stopped where one is needed (state saved; exit "
        f"42). Continue with one: {with_agent} (`executor agents` lists them)"
    )


def _with_abs_plan(argv: list[str], values: dict[str, Any]) -> list[str]:
    """This invocation's argv with --plan absolute (added when it was discovered)."""
    plan = values.get("plan")
    out = list(argv)
    for i, a in enumerate(out):
        if a == "--plan" and i + 1 < len(out):
            out[i + 1] = str(Path(out[i + 1]).absolute())
            return out
        if a.startswith("--plan="):
            out[i] = "--plan=" + str(Path(a.split("=", 1)[1]).absolute())
            return out
    if plan is not None:
        out += ["--plan", str(Path(plan).absolute())]
    return out


def _execute(
    scope: Scope, values: dict[str, Any], resume_argv: list[str], callback: Callback
) -> int:
    from executor.engine.agents import BRIDGE_AGENT
    from executor.errors import UserError
    from executor.runoptions import Overrides, RunOptions
    from executor.workflows.tdd.runner.opening import RunRequest
    from executor.workflows.tdd.runner.run import Runner

    given = {o.name: values[o.name] for o in RunOptions.OPTIONS}
    agent_command, agent = given["agent_command"], given["agent"] = agent_choice(values)
    if agent_command is not None or agent not in (None, BRIDGE_AGENT):
        from executor.engine.process import AgentProcess

        # a usage error now, not mid-run (replay was turned into a command above)
        AgentProcess.from_options(agent_command, agent, others=("replay",))
    if values.get("repo") is not None and not Path(values["repo"]).is_dir():
        raise UserError(f"--repo {values['repo']} is not a folder")
    plan = common.resolve_plan(values.get("plan"))
    values["plan"] = plan
    if values.get("pr"):  # asked now: gh must work before anything runs
        from executor.workflows.tdd.review.pr import gh_program

        gh_program(plan if plan.is_dir() else plan.parent)
    req = RunRequest(
        plan=plan,
        scope=scope,
        repo=Path(values["repo"]).absolute() if values.get("repo") else None,
        resume=bool(values.get("resume")),
        yes=bool(values.get("yes")),
        resume_argv=resume_argv,
        overrides=Overrides(**given),
    )
    json_output = bool(values.get("json_output"))
    req.activity = console.stderr_activity if json_output else console.activity
    req.on_ask = callback.on_ask
    req.on_phase_done = lambda phase: _pull_request(plan, phase, report_fn(json_output))
    from executor.workflows.tdd.parallel.orchestrator import Parallel, wanted

    if wanted(req):
        force = bool(values.get("force_parallel"))
        callback.runner = Parallel(req, report=report_fn(json_output), force=force)
    else:
        callback.runner = Runner(req, report=report_fn(json_output))
    result = callback.result = callback.runner.execute()
    if isinstance(callback.runner, Parallel) and result.state.run.options.pr:
        # its sessions finish in their worktrees: the phases it completed, once it is over
        for phase in result.state.phases:
            if phase.status == "completed" and {e.number for e in phase.sessions} & set(
                result.sessions
            ):
                _pull_request(plan, phase.number, report_fn(json_output))
    finish(result, json_output, plan)
    return 0


def _pull_request(plan: Path, phase: int, say: Any) -> None:
    """`--pr`: phase N is finished; push it and open its pull request. A refusal is said
    and the run goes on (the commits are safe; `executor pr N` tries again)."""
    from executor.errors import UserError
    from executor.workflows.tdd.review.pr import open_pr

    try:
        opened = open_pr(plan, phase, say=say)
    except UserError as e:
        console.err(f"pull request of phase {phase} not opened: {e}")
        return
    verb = "updated" if opened.updated else "opened"
    say(f"pull request of phase {phase} {verb}: {opened.url or '(gh printed no address)'}")


def agent_choice(values: dict[str, Any]) -> tuple[str | None, str | None]:
    """(agent command, preset) from --agent-command / --agent / --solutions. The replay
    agent is a command (`executor replay-agent --solutions DIR`); `--agent bridge` is
    kept as a preset name (no process), so it is saved and replaces a saved agent."""
    from executor.errors import UserError

    agent, solutions = values.get("agent"), values.get("solutions")
    command = values.get("agent_command")
    if solutions is not None and agent != "replay":
        raise UserError("--solutions goes with --agent replay")
    if agent != "replay":
        return command, agent
    if command is not None:
        raise UserError("give --agent or --agent-command, not both")
    if solutions is None:
        raise UserError("--agent replay needs --solutions DIR (prepared files per step)")
    folder = Path(solutions).absolute()
    if not folder.is_dir():
        raise UserError(f"--solutions {folder} is not a folder")
    return shlex.join([sys.executable, "-m", "executor", "replay-agent", "--solutions",
                       str(folder)]), None  # fmt: skip


def finish(result: RunResult, json_output: bool, plan: Path) -> None:
    """The end of a run that finished what it was asked: the status, the summary and the
    report (written beside the state)."""
    from executor.cli.review import end_of_run
    from executor.cli.status_view import render_status
    from executor.workflows.tdd.views.status import status_data

    data = status_data(result.plan)
    if json_output:  # stdout holds the JSON alone; the summary's lines go to stderr too
        ended = end_of_run(plan, say=console.err)
        console.out_json({"exit_code": 0, "sessions_run": result.sessions, **data,
                          **(ended or {})})  # fmt: skip
        return
    render_status(data, rich=console.is_tty())
    end_of_run(plan)
