"""P27: the tests run in the project's own environment, never the executor's by accident.

The executor runs from this suite's venv (as from its own pipx venv); the project's tests
need `fancydep`, a package installed only in the project's environment. Through the real
CLI, each way a person's shell finds that environment -- activated, the repository's
`.venv`, uv's project environment named by `uv.lock` -- takes the session to a commit
with no stop. With no environment of the project's, RED's failure is a missing
dependency, not RED.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests import forkserver
from tests.conftest import git
from tests.engine.helpers import commits, replay_cmd

pytestmark = pytest.mark.slow

PLAN = """# Phase 1: Greeting

## Session 1: Greet (TDD)

### Objectives
- [ ] `greet.hello(name)` says hello in fancydep's words

#### Step 1: Write Tests FIRST (RED)
Create `tests/test_greet.py`.

**Run tests**: `python -m pytest tests/test_greet.py -q`

#### Step 2: Implement (GREEN)
Create `greet/__init__.py`.

**Run tests**: `python -m pytest tests/test_greet.py -q`

### Files to Create/Modify
- `greet/__init__.py`
- `tests/test_greet.py`
"""
TEST = (
    "import fancydep\n\nfrom greet import hello\n\n\n"
    "def test_hello_uses_the_dependency():\n"
    "    assert hello('Ada') == fancydep.WORD + ', Ada'\n"
)
CODE = "import fancydep\n\n\ndef hello(name):\n    return f'{fancydep.WORD}, {name}'\n"


def _project(repo: Path, tmp: Path) -> tuple[Path, Path]:
    """The plan in `repo`, and the replay agent's prepared files."""
    plan = repo / "project-plans" / "greet"
    plan.mkdir(parents=True)
    (plan / "PHASE_1_GREETING.md").write_text(PLAN, encoding="utf-8")
    (repo / ".gitignore").write_text(".venv/\n__pycache__/\n.pytest_cache/\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "add plan")
    solutions = tmp / "solutions"
    for step, rel, text in (("red", "tests/test_greet.py", TEST),
                            ("green", "greet/__init__.py", CODE)):  # fmt: skip
        path = solutions / "session-1" / step / rel
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
    return plan, solutions


def _venv(where: Path) -> Path:
    """A real virtual environment (no pip: quick to make) holding `fancydep`, which sees
    this suite's packages too (pytest) through a .pth file, as a project venv with pytest
    installed would."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    where_site = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = Path(
        subprocess.run([str(where / "bin" / "python"), "-c", where_site],
                       capture_output=True, text=True, check=True).stdout.strip()
    )  # fmt: skip
    (site / "fancydep.py").write_text("WORD = 'Ahoy'\n", encoding="utf-8")
    (site / "suite.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    return where


def _run(plan: Path, repo: Path, agent: str, env: dict[str, str]) -> str:
    """The real CLI from this suite's venv (the executor's own), in exactly `env`."""
    proc = forkserver.run_process(
        [sys.executable, "-m", "executor", "execute-session", "1", "--plan", str(plan),
         "--yes", "--max-retries", "0", "--agent-command", agent],
        cwd=repo, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return f"{proc.returncode}\n{proc.stdout}{proc.stderr}"


def _without_suite_venv() -> dict[str, str]:
    """The environment of a shell where the executor's own venv is not active."""
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    own = str(Path(sys.prefix) / "bin")
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != own)
    return env


@pytest.mark.parametrize("how", ["activated", "repo-venv", "uv-lock"])
def test_a_dependency_only_the_projects_environment_has_reaches_a_commit(
    git_repo: Path, tmp_path: Path, how: str
) -> None:
    plan, solutions = _project(git_repo, tmp_path)
    env = _without_suite_venv()
    if how == "activated":
        venv = _venv(tmp_path / "project-venv")
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = os.pathsep.join([str(venv / "bin"), env["PATH"]])
        expected = "the active virtual environment"
    elif how == "repo-venv":
        venv = _venv(git_repo / ".venv")
        expected = "the repository's .venv"
    else:
        venv = _venv(tmp_path / "uv-env")
        (git_repo / "uv.lock").write_text("version = 1\n", encoding="utf-8")
        git(git_repo, "add", "uv.lock")
        git(git_repo, "commit", "-q", "-m", "uv.lock")
        env["UV_PROJECT_ENVIRONMENT"] = str(venv)
        expected = "uv's project environment (uv.lock)"
    out = _run(plan, git_repo, replay_cmd(solutions), env)
    assert out.startswith("0\n"), out
    assert f"tests run with {venv}/bin/python ({expected}" in out, out
    assert commits(git_repo)[0] == "feat(greet): Greet"


def test_a_dependency_missing_from_the_environment_is_not_red(
    git_repo: Path, tmp_path: Path
) -> None:
    """The executor's own environment has no `fancydep` either: RED's collection error
    is a missing dependency (named, with the environment), not a failing test."""
    plan, solutions = _project(git_repo, tmp_path)
    out = _run(plan, git_repo, replay_cmd(solutions), dict(os.environ))
    assert out.startswith("16\n"), out
    assert "the tests cannot import 'fancydep'" in out
    assert f"not installed in {sys.prefix}/bin/python" in out
    assert commits(git_repo)[0] == "add plan"


def test_a_pytest_plugin_installed_during_the_session_goes_to_a_person(
    git_repo: Path, tmp_path: Path
) -> None:
    """What runs in every test run (a pytest plugin by entry point, a .pth file) decides
    what passes as surely as a conftest.py: an agent that installs one into the
    project's environment during GREEN is stopped."""
    plan, solutions = _project(git_repo, tmp_path)
    venv = _venv(git_repo / ".venv")
    site = next(venv.glob("lib/python*/site-packages"))
    plugin = tmp_path / "agent.py"
    plugin.write_text(
        "import os, pathlib, subprocess, sys\n"
        f"subprocess.run({replay_cmd(solutions)!r}, shell=True, check=True)\n"
        "if os.environ['EXECUTOR_TDD_STEP'] == 'green':\n"
        f"    pathlib.Path({str(site / 'evil.pth')!r}).write_text('import os\\n')\n",
        encoding="utf-8",
    )
    out = _run(plan, git_repo, f"{sys.executable} {plugin}", _without_suite_venv())
    assert out.startswith("16\n"), out
    assert "the project's environment changed during GREEN" in out
    assert "evil.pth (added)" in out
    assert commits(git_repo)[0] == "add plan"
