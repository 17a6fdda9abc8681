"""A person's edit made while the run is stopped is theirs (P31): Ctrl+C or SIGTERM in an
agent step, an edit, the same command again. The plan as the person left it is the plan;
any other file is never committed as the agent's work without a person saying so; and
what the executor puts back is saved under a ref its message names. Real CLI, real agent
processes, real git."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

from tests.conftest import git, run_cli, terminate_when
from tests.engine.helpers import commits, make_project, replay_cmd, session_state
from tests.engine.test_sealed import hostile, run

MINE = "- [ ] Reports list the person's own extra line"


def _stalled_at(started: Path, step: str) -> str:
    """The replay agent, except that at `step` it says it started and waits to be stopped."""
    code = (
        "import os, pathlib, subprocess, sys, time\n"
        f"if os.environ['EXECUTOR_TDD_STEP'] == {step!r}:\n"
        f"    pathlib.Path({str(started)!r}).touch(); time.sleep(60)\n"
        f"sys.exit(subprocess.call({shlex.split(replay_cmd())!r}))\n"
    )
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


def _stopped_in_green(repo: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    plan = make_project(repo)
    started = tmp_path / "started"
    args = ["execute-session", "1", "--plan", str(plan), "--yes"]
    stalled = _stalled_at(started, "green")
    proc = terminate_when(started, *args, "--agent-command", stalled, cwd=repo)
    assert proc.returncode == 130, proc.stdout + proc.stderr
    assert session_state(plan, 1)["stopped"]  # the tree at the stop
    return plan, args


def test_a_plan_edit_made_after_a_stop_in_an_agent_step_is_kept(
    git_repo: Path, tmp_path: Path
) -> None:
    plan, args = _stopped_in_green(git_repo, tmp_path)
    phase = plan / "PHASE_2_REPORTING.md"  # a session that has not started
    phase.write_text(phase.read_text("utf-8") + f"\n{MINE}\n", "utf-8")
    again = run_cli(*args, "--agent-command", replay_cmd(), cwd=git_repo)
    out = again.stdout + again.stderr
    assert again.returncode == 0, out
    assert MINE in phase.read_text("utf-8")
    assert "tampering" not in out
    assert "the plan as you changed it while the run was stopped is the plan" in out
    assert commits(git_repo)[0] == "feat(ledger): Ledger Models"


def test_a_file_added_after_a_stop_stops_an_unattended_run_and_is_never_the_agents(
    git_repo: Path, tmp_path: Path
) -> None:
    _, args = _stopped_in_green(git_repo, tmp_path)
    notes = git_repo / "notes.txt"
    notes.write_text("mine\n", "utf-8")
    again = run_cli(*args, "--agent-command", replay_cmd(), cwd=git_repo)
    out = again.stdout + again.stderr
    assert again.returncode == 19, out
    assert "notes.txt" in out and "not committed as the session's work" in out
    assert notes.read_text("utf-8") == "mine\n"
    assert commits(git_repo) == ["add plan", "initial"]
    # asked again, not forgotten: the same stop until the person settles it
    assert run_cli(*args, "--agent-command", replay_cmd(), cwd=git_repo).returncode == 19
    notes.unlink()  # the person takes it back
    done = run_cli(*args, "--agent-command", replay_cmd(), cwd=git_repo)
    assert done.returncode == 0, done.stdout + done.stderr
    committed = git(git_repo, "show", "--name-only", "--format=", "HEAD").split()
    assert "notes.txt" not in committed


def test_a_plan_file_an_agent_changed_is_put_back_after_a_backup_the_message_names(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    rel = "project-plans/ledger/PHASE_2_REPORTING.md"
    edit = f"p = pathlib.Path({rel!r})\np.write_text(p.read_text() + {MINE!r})\n"
    out = run(plan, git_repo, hostile(tmp_path, "green", edit))
    assert out.startswith("16\n"), out
    assert "the agent changed the plan" in out
    found = re.search(r"saved under (refs/executor/\S+): `git checkout", out)
    assert found is not None, out
    assert MINE in git(git_repo, "show", f"{found.group(1)}:{rel}")
    assert MINE not in (git_repo / rel).read_text("utf-8")
