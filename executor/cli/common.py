"""The one error boundary: run a core call, map what it raises to an exit code.

The core never formats executor command lines; the commands to continue (re-run with
`--resume` after exit 42, `resume-session` after a pause or an abort, the command given
by the caller after an interruption that saved the run) are rendered here from the data
the exceptions carry.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from executor import console, interrupts
from executor.errors import (
    BudgetSpent,
    ExecutorError,
    Interrupted,
    NeedAgent,
    NeedAgents,
    Paused,
    Resumable,
    RunStopped,
    UserError,
)
from executor.exitcodes import ExitCode
from executor.fsutil import quote

#: `executor --verbose`: tracebacks of internal errors.
state: dict[str, bool] = {"verbose": False}
#: The command line being run (without `executor`): the run commands make the commands
#: that continue them from it (a run continued in-process by `bridge respond --resume`
#: has its own, not the process's sys.argv).
_argv: list[list[str]] = [[]]


def argv() -> list[str]:
    """The command line being run (without `executor`)."""
    return list(_argv[-1])


@contextlib.contextmanager
def running(args: Sequence[str]) -> Iterator[None]:
    """While `args` run (calls nest: `bridge respond --resume` runs the run command)."""
    _argv.append(list(args))
    try:
        yield
    finally:
        _argv.pop()


def no_cycle_collection() -> None:
    """For a command that reads a whole plan and ends (`plan validate`, `status`): the
    cycle collector off for the rest of the process. A plan's objects hold no reference
    cycles, yet each full pass of the collector walks them all (~5% of the CPU of a
    10,000-session plan, benchmarks/large_plan.py); what little the process leaves
    goes with it."""
    import gc

    gc.disable()


class Exit(Exception):
    """Raised by `run` with the exit code; `main` returns it."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def run(
    fn: Callable[[], int | None],
    *,
    json_output: bool = False,
    rerun: str | None = None,
    resume: str | None = None,
    after: Callable[[int, BaseException | None], None] | None = None,
    waiting: Callable[[NeedAgent], str | None] | None = None,
) -> None:
    """Run `fn`; translate its result or exception into `Exit(code)`.

    `rerun`: the command line that continues this one after exit 42; `resume`: the one
    that continues it after an interruption that saved the run (default: `rerun`).
    `after(code, error)`: called once the outcome is said, with the exit code and what
    `fn` raised (None when it returned), before the process exits (a run's
    notifications: `executor.cli.callback`). `waiting(e)`: the one line to say after
    exit 42 instead of the host's NEED_AGENT lines (None: those).
    """
    raised: list[BaseException] = []

    def watched() -> int | None:
        try:
            interrupts.started()  # a Ctrl+C held while the command line was parsed
            return fn()
        except BaseException as e:
            raised.append(e)
            raise

    code = outcome(watched, json_output=json_output, rerun=rerun, resume=resume, waiting=waiting)
    if after is not None:
        after(code, raised[0] if raised else None)
    raise Exit(code)


def outcome(
    fn: Callable[[], int | None],
    *,
    json_output: bool,
    rerun: str | None,
    resume: str | None = None,
    waiting: Callable[[NeedAgent], str | None] | None = None,
) -> int:
    try:
        rv = fn()
        return int(rv) if rv is not None else int(ExitCode.SUCCESS)
    except NeedAgent as e:
        if json_output:
            console.out_json({**e.as_dict(), "resume": rerun})
        said = waiting(e) if waiting is not None else None
        for line in [said] if said else need_agent_lines(e, rerun):
            console.err(line)
        return int(ExitCode.NEED_AGENT)
    except Resumable as e:
        line = str(e)
        command = continue_command(e)
        if command is not None:
            verb = {Paused: "Continue", BudgetSpent: "Continue with a larger budget"}.get(
                type(e), "Start it again"
            )
            line += f" {verb} with: {command}"
        _stopped(e, line, json_output)
        return int(e.exit_code)
    except Interrupted as e:
        _stopped(e, interrupted_line(e, resume or rerun), json_output)
        return int(e.exit_code)
    except RunStopped as e:
        _stopped(e, str(e), json_output)
        return int(e.exit_code)
    except UserError as e:
        if json_output:
            console.out_json(
                {"exit_code": int(e.exit_code), "error": e.exit_code.name, "message": str(e)}
            )
        console.err(f"error: {e}")
        return int(e.exit_code)
    except KeyboardInterrupt:  # not inside a workflow: nothing is known to be saved
        console.err("Interrupted.")
        return int(ExitCode.INTERRUPTED)
    except ExecutorError as e:
        _internal(e)
        return int(e.exit_code)
    except BrokenPipeError:
        return _closed_pipe()
    except OSError as e:
        console.err(f"error: storage I/O failed: {e}. Previous state is intact.")
        return int(ExitCode.STORAGE_ERROR)
    except Exception as e:  # the boundary: a bug must still never exit 0 or 42
        _internal(e)
        return int(ExitCode.INTERNAL_ERROR)


def continue_command(e: Resumable) -> str | None:
    """The command that continues a run a pause, a budget or an abort stopped."""
    if e.session is None or e.plan is None:
        return None
    words = e.continue_with or ["resume-session", str(e.session)]
    return " ".join(["executor", *words, "--plan", quote(e.plan), *e.resume_flags])


def need_agent_lines(e: NeedAgent, rerun: str | None = None) -> list[str]:
    """What a host reads after exit 42: one NEED_AGENT line per waiting request (a
    parallel run may wait on several), the last one the first of them, after a line
    that says how several are answered."""
    if not isinstance(e, NeedAgents) or not e.others:
        return [need_agent_line(e, rerun)]
    waiting = e.all()
    again = rerun or "the same command with --resume"
    head = (
        f"{len(waiting)} requests are waiting, one per session (executor bridge show --all "
        f"--dir {quote(e.folder)} lists them): answer each with `executor bridge "
        f"respond --dir DIR ...` without --resume, then continue them all with one: {again}"
    )
    return [head, *(need_agent_line(w, rerun) for w in reversed(waiting))]


def need_agent_line(e: NeedAgent, rerun: str | None = None) -> str:
    """The one line a host reads after exit 42: who answers, where, and how: one
    `bridge respond ... --resume` answers and continues the run in one process."""
    human = e.agent_name == "human"
    who = "ask the person" if human else f"run agent {e.agent_name!r}"
    brief = f" (brief: {quote(e.prompt_file)})" if e.prompt_file else ""
    answer = "--response CHOICE" if human else "--response-file ANSWER"
    again = rerun or "the same command with --resume"
    return (
        f"NEED_AGENT: {who} for request {e.request_id} in {quote(e.request_file)}"
        f"{brief}; answer and continue with `executor bridge respond --dir "
        f"{quote(e.request_file.parent)} --status success {answer} --resume` (or --status "
        f"error --error-message M); without --resume, re-run: {again}"
    )


def interrupted_line(e: Interrupted, resume: str | None) -> str:
    """What an interruption leaves: the saved run and how to continue it, or nothing."""
    if e.state is None:
        return (
            "Interrupted before this run saved anything: there is nothing of it to resume; "
            "run the command again to start it."
        )
    then = f"; continue it with: {resume}" if resume else ""
    return f"Interrupted: the run so far is saved in {e.state}{then}"


def _stopped(e: ExecutorError, line: str, json_output: bool) -> None:
    if json_output:
        console.out_json(
            {"exit_code": int(e.exit_code), "status": e.exit_code.name.lower(), "message": line}
        )
    console.err(line)


def _closed_pipe() -> int:
    """stdout was closed by the reader (`executor status --json | head -1`): not our
    failure and not a storage error. Point stdout at /dev/null so the interpreter's
    final flush does not fail again, and exit as a program killed by SIGPIPE would."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    return int(ExitCode.OUTPUT_CLOSED)


def _internal(e: BaseException) -> None:
    if state["verbose"] or os.environ.get("EXECUTOR_DEBUG"):
        import traceback

        console.err("".join(traceback.format_exception(e)))
    console.err(
        f"internal error: {type(e).__name__}: {e} (re-run with --verbose for the traceback)"
    )


def resolve_plan(plan: Path | None) -> Path:
    """`--plan`, else the one plan found from the current folder."""
    if plan is not None:
        return plan.absolute()
    from executor.plan import discover_plan

    return discover_plan(Path.cwd())
