"""Issue 36: the right environment from the first command, through the real CLI.

The README installs the executor into a venv and activates it; in a person's project that
active environment is the executor's own (as this suite's is, `VIRTUAL_ENV` at
`sys.prefix`), not the project's. The project's own `.venv` holds `fancydep`, which its
code and tests import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests import forkserver
from tests.conftest import git
from tests.engine.helpers import commits, replay_cmd
from tests.engine.test_project_env import _project

pytestmark = pytest.mark.slow

#: A test the project already has, which needs its dependency.
BASE_TEST = "import fancydep\n\n\ndef test_the_dependency():\n    assert fancydep.WORD\n"


def make_venv(where: Path, *, fancydep: bool = True) -> Path:
    """A real virtual environment that sees this suite's pytest (a `.pth` file), with
    `fancydep` installed or not."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    site = next(where.glob("lib/python*/site-packages"))
    (site / "suite.pth").write_text(sysconfig.get_path("purelib") + "\n", "utf-8")
    if fancydep:
        install_fancydep(where)
    return where


def install_fancydep(venv: Path) -> None:
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "fancydep.py").write_text("WORD = 'Ahoy'\n", "utf-8")


def run(plan: Path, repo: Path, agent: str, env: dict[str, str] | None = None) -> str:
    """execute-session 1 unattended, in `env` (default: this suite's, whose active
    environment is the executor's own)."""
    proc = forkserver.run_process(
        [sys.executable, "-m", "executor", "execute-session", "1", "--plan", str(plan),
         "--yes", "--agent-command", agent],
        cwd=repo, env=env or dict(os.environ), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return f"{proc.returncode}\n{proc.stdout}{proc.stderr}"


def with_base_test(repo: Path) -> None:
    (repo / "tests").mkdir(exist_ok=True)
    (repo / "tests" / "test_base.py").write_text(BASE_TEST, "utf-8")
    git(repo, "add", "tests/test_base.py")
    git(repo, "commit", "-qm", "a test that needs fancydep")


def test_36_03_the_projects_venv_wins_over_the_executors_own_active_one(
    git_repo: Path, tmp_path: Path
) -> None:
    """The executor's own environment is active and lacks `fancydep`; the repository's
    `.venv` has it: that one runs the tests, and the run says why."""
    plan, solutions = _project(git_repo, tmp_path)
    with_base_test(git_repo)
    venv = make_venv(git_repo / ".venv")
    out = run(plan, git_repo, replay_cmd(solutions))
    assert out.startswith("0\n"), out
    assert (
        f"tests run with {venv}/bin/python (the repository's .venv; the active environment, "
        f"$VIRTUAL_ENV, is the executor's own)"
    ) in out, out
    assert commits(git_repo)[0] == "feat(greet): Greet"


def test_36_04_an_environment_that_cannot_collect_the_tests_stops_before_any_agent(
    git_repo: Path, tmp_path: Path
) -> None:
    """With no environment of the project's, the executor's own runs the tests, and they
    cannot import `fancydep`: said once, before the first agent call (no attempt spent),
    exit 64. Activating the project's environment and running again uses what `executor
    config` says, and the session goes through."""
    plan, solutions = _project(git_repo, tmp_path)
    with_base_test(git_repo)
    marker = tmp_path / "agent-ran"
    agent = f"sh -c 'touch {marker} && {replay_cmd(solutions)}'"
    out = run(plan, git_repo, agent)
    assert out.startswith("64\n"), out
    assert f"the project's tests do not collect in {sys.prefix}/bin/python" in out, out
    assert "they cannot import 'fancydep'" in out and "No agent was called" in out, out
    assert not marker.exists()

    venv = make_venv(tmp_path / "project-venv")
    env = {**os.environ, "VIRTUAL_ENV": str(venv),
           "PATH": os.pathsep.join([str(venv / "bin"), os.environ["PATH"]])}  # fmt: skip
    config = forkserver.run_process(
        [sys.executable, "-m", "executor", "config", "--json", "--plan", str(plan)],
        cwd=git_repo, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert json.loads(config.stdout)["python"]["path"] == f"{venv}/bin/python", config.stdout
    out = run(plan, git_repo, agent, env)
    assert out.startswith("0\n"), out
    assert f"tests run with {venv}/bin/python (the active virtual environment" in out, out
    assert commits(git_repo)[0] == "feat(greet): Greet"


def test_36_05_a_dependency_missing_in_green_costs_no_retry_and_is_checked_again(
    git_repo: Path, tmp_path: Path
) -> None:
    """GREEN's code needs `fancydep`, which the project's `.venv` lacks: not the agent's
    failure, so no automatic retry asks it again (three attempts were spent on it); the
    person installs it and runs the same command again: checked again, committed, with
    the one GREEN answer there was."""
    plan, solutions = _project(git_repo, tmp_path)
    (solutions / "session-1" / "red" / "tests" / "test_greet.py").write_text(
        "from greet import hello\n\n\ndef test_hello():\n    assert hello('Ada') == 'Ahoy, Ada'\n",
        "utf-8",
    )  # the code needs fancydep; the tests only the code
    venv = make_venv(git_repo / ".venv", fancydep=False)
    out = run(plan, git_repo, replay_cmd(solutions))
    assert out.startswith("16\n"), out
    assert "the tests cannot import 'fancydep'" in out and "a dependency is missing" in out
    assert out.count("GREEN: agent answered") == 1, out
    assert "automatic retry" not in out and "(attempt 2)" not in out

    install_fancydep(venv)
    out = run(plan, git_repo, replay_cmd(solutions))
    assert out.startswith("0\n"), out
    assert "fancydep.py (added)" in out and "taken in" in out, out
    assert "GREEN: asking" not in out, out
    assert commits(git_repo)[0] == "feat(greet): Greet"
