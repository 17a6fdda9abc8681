"""`--agent bridge`: no agent process. Saved like any run option, it replaces a saved
`--agent-command` or `--agent`; `--agent` names every choice it has."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests import forkserver
from tests.conftest import run_cli
from tests.engine.helpers import make_project, respond, state


def _request(plan: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((plan / ".agent-request.json").read_text("utf-8"))
    return data


def test_agent_bridge_replaces_a_saved_agent_command(git_repo: Path) -> None:
    plan = make_project(git_repo)
    args = ["execute-session", "1", "--plan", str(plan)]
    first = run_cli(*args, "--agent-command", "/nonexistent/agent", cwd=git_repo)
    assert first.returncode == 42, first.stderr  # before_start: ask the person
    assert respond(plan, git_repo, "approve").returncode == 0
    failed = run_cli(*args, "--resume", cwd=git_repo)  # the saved command cannot run
    assert failed.returncode == 42, failed.stderr
    escalation = _request(plan)
    assert escalation["agent_name"] == "human"
    assert "cannot run agent command /nonexistent/agent" in escalation["context"]["detail"]
    assert respond(plan, git_repo, "retry").returncode == 0
    switched = run_cli(*args, "--resume", "--agent", "bridge", cwd=git_repo)
    assert switched.returncode == 42, switched.stderr
    red = _request(plan)
    assert (red["agent_name"], red["context"]["tdd_step"]) == ("backend-builder", "red")
    assert state(plan)["run"]["options"]["agent"] == "bridge"
    assert state(plan)["run"]["options"]["agent_command"] is None
    again = run_cli(*args, "--resume", cwd=git_repo)  # saved: still the bridge
    assert again.returncode == 42, again.stderr
    assert _request(plan)["request_id"] == red["request_id"]
    assert _request(plan)["emission"] == 2
    assert "cannot run agent command" not in again.stdout + again.stderr


def test_a_preset_given_later_replaces_a_saved_bridge(git_repo: Path) -> None:
    plan = make_project(git_repo)
    args = ["execute-session", "1", "--plan", str(plan)]
    assert run_cli(*args, "--agent", "bridge", cwd=git_repo).returncode == 42
    assert state(plan)["run"]["options"]["agent"] == "bridge"
    assert respond(plan, git_repo, "approve").returncode == 0
    proc = run_cli(*args, "--resume", "--agent-command", "/nonexistent/agent", cwd=git_repo)
    assert proc.returncode == 42, proc.stderr
    assert "cannot run agent command /nonexistent/agent" in proc.stdout
    assert state(plan)["run"]["options"]["agent"] is None
    assert state(plan)["run"]["options"]["agent_command"] == "/nonexistent/agent"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--agent", "bogus"], "--agent 'bogus' is not a preset; known: aider, bridge, claude, "
         "codex, gemini, replay"),
        (["--agent", "bridge", "--agent-command", "x"], "give --agent or --agent-command, "
         "not both"),
        (["--agent", "bridge", "--solutions", "."], "--solutions goes with --agent replay"),
        (["--agent-command", ""], "--agent-command is empty; give a command, or --agent bridge"),
    ],
)  # fmt: skip
def test_agent_choices_and_misuse_exit_64(git_repo: Path, extra: list[str], message: str) -> None:
    plan = make_project(git_repo)
    for command in (["execute-plan"], ["resume-session", "1"]):
        proc = run_cli(*command, "--plan", str(plan), *extra, cwd=git_repo)
        assert proc.returncode == 64, proc.stderr
        assert message in proc.stderr
    assert not (plan / ".agent-state.json").exists()


def test_agents_lists_replay_and_bridge() -> None:
    proc = run_cli("agents", "--json")
    assert proc.returncode == 0, proc.stderr
    names = [row["name"] for row in json.loads(proc.stdout)]
    assert names == ["claude", "codex", "gemini", "aider", "replay", "bridge"]
    assert "bridge: no agent process" in run_cli("agents").stdout
    help_text = run_cli("execute-plan", "--help").stdout
    assert "bridge: no agent process, the exit-42 bridge" in " ".join(help_text.split())


def _on_a_terminal(*args: str, cwd: Path) -> tuple[int, str]:
    """The real CLI with a pseudo-terminal as stdin, stdout and stderr: its exit code and
    what the terminal showed."""
    import os
    import pty
    import sys

    leader, follower = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "200"}
    proc = forkserver.popen([sys.executable, "-m", "executor", *args], cwd=cwd, env=env,
                            stdin=follower, stdout=follower, stderr=follower)  # fmt: skip
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the process ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return proc.wait(timeout=120), shown.decode("utf-8", "replace")


def test_a_terminal_run_given_no_agent_says_so_in_one_line(git_repo: Path) -> None:
    """A person at a terminal who gave no --agent gets, at the first agent step, one line
    saying so and the command that continues with one, not the host's NEED_AGENT lines."""
    plan = make_project(git_repo)
    code, shown = _on_a_terminal("execute-session", "1", "--plan", str(plan), "--checkpoints",
                                 "none", cwd=git_repo)  # fmt: skip
    assert code == 42, shown
    assert "NEED_AGENT" not in shown
    lines = [line for line in shown.splitlines() if "No agent was given" in line]
    assert lines == [
        "No agent was given, so the run stopped where one is needed (state saved; exit 42). "
        f"Continue with one: executor execute-session 1 --plan {plan} --checkpoints none "
        "--agent claude (`executor agents` lists them)"
    ]
    assert _request(plan)["agent_name"] != "human"  # a host could still answer it
