"""The one error boundary: run a core call, map what it raises to an exit code."""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable

import typer

from executor import console
from executor.errors import ExecutorError, NeedAgent, RunStopped, UserError
from executor.exitcodes import ExitCode

#: Set when a command body ran, so `main` can tell our exit 2 from a usage error.
state: dict[str, bool] = {"ran": False, "verbose": False, "json": False}


def run(fn: Callable[[], int | None], *, json_output: bool = False) -> None:
    """Run `fn`; translate its result or exception into `typer.Exit(code)`."""
    state["ran"] = True
    code = _run(fn, json_output=json_output)
    raise typer.Exit(int(code))


def _run(fn: Callable[[], int | None], *, json_output: bool) -> int:
    try:
        rv = fn()
        return int(rv) if rv is not None else int(ExitCode.SUCCESS)
    except NeedAgent as e:
        if json_output:
            console.out_json(e.as_dict())
        console.err(str(e))
        return int(ExitCode.NEED_AGENT)
    except RunStopped as e:
        console.err(str(e))
        return int(e.exit_code)
    except UserError as e:
        if json_output:
            console.out_json(
                {"exit_code": int(e.exit_code), "error": e.exit_code.name, "message": str(e)}
            )
        console.err(f"error: {e}")
        return int(e.exit_code)
    except KeyboardInterrupt:
        console.err("Interrupted: state saved; re-run the same command to resume.")
        return int(ExitCode.INTERRUPTED)
    except ExecutorError as e:
        _internal(e)
        return int(e.exit_code)
    except OSError as e:
        console.err(f"error: storage I/O failed: {e}. Previous state is intact.")
        return int(ExitCode.STORAGE_ERROR)
    except Exception as e:  # the boundary: a bug must still never exit 0 or 42
        _internal(e)
        return int(ExitCode.INTERNAL_ERROR)


def _internal(e: BaseException) -> None:
    if state["verbose"] or os.environ.get("EXECUTOR_DEBUG"):
        console.err("".join(traceback.format_exception(e)))
    console.err(
        f"internal error: {type(e).__name__}: {e} (re-run with --verbose for the traceback)"
    )
