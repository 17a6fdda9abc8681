"""Ctrl+C / SIGTERM: the line printed says what is true. A workflow that saved its run
names the state file and the command that continues it; one interrupted before it saved
anything says so; any other interruption claims nothing. A Ctrl+C in the first moments
of a command (its modules still importing, its first validators being built) stops it
the same way, never with a traceback or an "internal error"."""

from __future__ import annotations

import contextlib
import enum
import shlex
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from executor import interrupts
from executor.cli import common
from executor.errors import Interrupted
from executor.workflows.tdd.record.state import RunState
from tests.conftest import run_cli, terminate_when
from tests.engine.helpers import make_project


def _interrupted(error: BaseException) -> int:
    raise error


def test_a_saved_run_names_its_state_and_the_command_that_continues_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    state = tmp_path / ".state.json"
    error = Interrupted(state=state)
    code = common.outcome(
        lambda: _interrupted(error), json_output=False, rerun="x --resume", resume="x again"
    )
    assert code == 130
    assert capsys.readouterr().err == (
        f"Interrupted: the run so far is saved in {state}; continue it with: x again\n"
    )


def test_the_exit_42_line_continues_a_run_when_no_other_is_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    error = Interrupted(state=tmp_path / "s")
    common.outcome(lambda: _interrupted(error), json_output=False, rerun="x --resume")
    assert capsys.readouterr().err.endswith("; continue it with: x --resume\n")


def test_nothing_saved_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    error = Interrupted(state=None)
    code = common.outcome(lambda: _interrupted(error), json_output=False, rerun="x --resume")
    assert code == 130
    assert capsys.readouterr().err == (
        "Interrupted before this run saved anything: there is nothing of it to resume; run "
        "the command again to start it.\n"
    )


def test_an_interruption_outside_a_workflow_claims_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = common.outcome(lambda: _interrupted(KeyboardInterrupt()), json_output=False, rerun=None)
    assert code == 130
    assert capsys.readouterr().err == "Interrupted.\n"


def test_a_plan_run_interrupted_names_the_command_without_resume(
    git_repo: Path, tmp_path: Path
) -> None:
    """SIGTERM while the agent command runs: the state is saved; re-running the command
    (not `--resume`, which needs a pending request) continues it. A plan the run found
    itself is named in it, as a pause names it (the command works from anywhere)."""
    plan = make_project(git_repo)
    started = tmp_path / "agent-started"
    agent = f"{shlex.quote(sys.executable)} -c " + shlex.quote(
        f"import pathlib, time; pathlib.Path({str(started)!r}).touch(); time.sleep(30)"
    )
    args = ["execute-session", "1", "--yes", "--agent-command", agent]  # the plan: found
    proc = terminate_when(started, *args, cwd=git_repo)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"Interrupted: the run so far is saved in {plan / '.agent-state.json'}; continue it "
        f"with: executor {shlex.join([*args, '--plan', str(plan)])}"
    )


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_signal_at_a_terminal_prompt_interrupts_at_once(git_repo: Path, signal_name: str) -> None:
    """`kill -INT` at a checkpoint's question: prompt_toolkit turns the signal into a key
    nothing was bound to, so the prompt ignored it until a key was pressed."""
    import os
    import select
    import signal
    import subprocess

    plan = make_project(git_repo)
    main, child = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "executor", "execute-session", "1", "--plan", str(plan)],
        cwd=git_repo, stdin=child, stdout=child, stderr=child, start_new_session=True,
        env={**os.environ, "TERM": "xterm", "COLUMNS": "120", "LINES": "40"},
    )  # fmt: skip
    os.close(child)
    shown = b""
    try:
        while b"Use arrow keys" not in shown and proc.poll() is None:
            if select.select([main], [], [], 60)[0]:
                shown += os.read(main, 65536)
            else:
                pytest.fail(f"no prompt appeared: {shown[-2000:]!r}")
        proc.send_signal(getattr(signal, signal_name))
        code = proc.wait(timeout=60)
        while select.select([main], [], [], 0.5)[0]:
            try:
                shown += os.read(main, 65536)
            except OSError:  # the terminal's other end closed
                break
    finally:
        proc.kill()
        os.close(main)
    assert code == 130, shown[-2000:]
    assert b"Interrupted: the run so far is saved" in shown


def test_ctrl_c_as_the_command_starts_is_taken_by_its_boundary(git_repo: Path) -> None:
    """SIGINT before the command line is parsed: it came before any error boundary, and
    the command died of it with a traceback."""
    plan = make_project(git_repo)
    proc = run_cli("status", "--plan", str(plan), cwd=git_repo,
                   env={"EXECUTOR_FAULT": "cli.started:int"})  # fmt: skip
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "", "Interrupted.\n")


@pytest.fixture
def cli_handlers() -> Iterator[None]:
    """The handlers the command line installs, in this process for one test."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    interrupts.install()
    yield
    with contextlib.suppress(KeyboardInterrupt):
        interrupts.started()
    for number, handler in saved.items():
        signal.signal(number, handler)


def test_ctrl_c_while_the_command_line_is_parsed_waits_for_the_commands_boundary(
    cli_handlers: None,
) -> None:
    """A KeyboardInterrupt raised while pydantic-core builds a validator is written off
    as "exception ignored in 'Path'" and the run goes on (typer built one per `Path`
    option as it parsed the command line: 5 in 145 parallel runs Ctrl+C'd in their
    first half second ran on)."""
    signal.raise_signal(signal.SIGINT)  # while the command line is parsed
    assert TypeAdapter(Path).validate_python("plan") == Path("plan")  # nothing raised here
    with pytest.raises(KeyboardInterrupt):
        interrupts.started()  # the command's boundary (`common.run`)


def test_ctrl_c_while_a_validator_is_built_is_raised_once_it_is_built(
    cli_handlers: None,
) -> None:
    """SIGINT at the first Python code pydantic-core calls while it builds the run
    state's validator (an enum member's `.value`): pydantic-core turned the
    KeyboardInterrupt raised there into a SchemaError, and a run stopped in its first
    moments said "internal error" (exit 70)."""
    interrupts.started()
    sent: list[str] = []

    def press_ctrl_c(frame: FrameType, event: str, arg: Any) -> None:
        called_by = frame.f_back.f_code.co_name if frame.f_back else ""
        in_enum = frame.f_code.co_filename == enum.__file__
        if event == "call" and called_by == "create_schema_validator" and in_enum and not sent:
            sent.append(frame.f_code.co_name)
            signal.raise_signal(signal.SIGINT)

    sys.setprofile(press_ctrl_c)
    try:
        with pytest.raises(KeyboardInterrupt):
            RunState.model_rebuild(force=True)
    finally:
        sys.setprofile(None)
    assert sent == ["__get__"]  # `.value`, called from pydantic-core
    with pytest.raises(ValidationError, match="project_name"):  # built whole: it validates
        RunState.model_validate_json(b"{}")
