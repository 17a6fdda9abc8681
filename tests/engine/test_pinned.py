"""Issue 43's environment findings, through the real CLI with `--yes` and real git: what
the tests run with (the interpreter, its site-packages, every plugin pytest loads) and
git's own files are pinned when the run starts, and a change during an agent step is the
session's, judged like a changed conftest.py (P30).

The project has a real virtual environment of its own (`python -m venv` in the
repository, git-ignored) that sees this suite's pytest through a `.pth` file, and the
person's shell does not disable pytest's plugin autoload: a plugin the agent drops into
that environment would load in every test run.
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
from tests.engine.helpers import commits, make_project, replay_cmd
from tests.engine.test_sealed import hostile

pytestmark = pytest.mark.slow

#: Every name session 1's tests import from `ledger.models`, with no behaviour at all.
STUB = "".join(
    f"{n} = None\n"
    for n in ("LedgerError", "UnbalancedEntryError", "AccountKind", "Account", "Posting",
              "Entry", "to_money")
)  # fmt: skip
#: A pytest plugin that calls no test function: every test passes.
PLUGIN = "def pytest_pyfunc_call(pyfuncitem):\n    return True\n"


def project_venv(repo: Path) -> Path:
    """The repository's own `.venv` (git-ignored), which sees this suite's pytest."""
    venv = repo / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site_packages(venv) / "suite.pth").write_text(sysconfig.get_path("purelib") + "\n", "utf-8")
    with (repo / ".gitignore").open("a", encoding="utf-8") as f:
        f.write(".venv/\n")
    git(repo, "commit", "-qam", "ignore .venv")
    return venv


def site_packages(venv: Path) -> Path:
    return next(venv.glob("lib/python*/site-packages"))


def shell_env() -> dict[str, str]:
    """A person's shell at the repository: no environment active, pytest's plugins load."""
    env = dict(os.environ)
    for var in ("VIRTUAL_ENV", "PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        env.pop(var, None)
    own = str(Path(sys.prefix) / "bin")
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != own)
    return env


def run(plan: Path, repo: Path, agent: str, env: dict[str, str], number: int = 1) -> str:
    """execute-session N unattended (--yes, no retries), in exactly `env`."""
    proc = forkserver.run_process(
        [sys.executable, "-m", "executor", "execute-session", str(number), "--plan", str(plan),
         "--yes", "--max-retries", "0", "--agent-command", agent],
        cwd=repo, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return f"{proc.returncode}\n{proc.stdout}{proc.stderr}"


def egg_plugin(site: Path) -> str:
    """Hostile code: an `.egg-info` registering a pytest plugin (`[pytest11]`) and the
    plugin module, in `site`."""
    return (
        f"site = pathlib.Path({str(site)!r})\n"
        "(site / 'helper-1.0.egg-info').mkdir()\n"
        "(site / 'helper-1.0.egg-info' / 'PKG-INFO').write_text("
        "'Metadata-Version: 2.1\\nName: helper\\nVersion: 1.0\\n')\n"
        "(site / 'helper-1.0.egg-info' / 'entry_points.txt').write_text("
        "'[pytest11]\\nhelper = helper_plugin\\n')\n"
        f"(site / 'helper_plugin.py').write_text({PLUGIN!r})\n"
    )


def test_43_01_a_plugin_an_egg_info_registers_in_the_venv_is_the_sessions_change(
    git_repo: Path, tmp_path: Path
) -> None:
    """GREEN writes a stub with no behaviour and puts an `.egg-info` whose `[pytest11]`
    entry point loads a plugin into the ignored `.venv`: the plugin passed every test,
    and the stub was committed "completed" (the fingerprint knew `.dist-info` only)."""
    plan = make_project(git_repo)
    venv = project_venv(git_repo)
    code = f"pathlib.Path('ledger/models.py').write_text({STUB!r})\n" + egg_plugin(
        site_packages(venv)
    )
    out = run(plan, git_repo, hostile(tmp_path, "green", code, once=True), shell_env())
    assert out.startswith("16\n"), out
    assert "the project's environment changed during GREEN" in out, out
    assert "helper-1.0.egg-info/entry_points.txt (added)" in out, out
    assert commits(git_repo)[0] == "ignore .venv"


def test_43_02_a_venv_the_agent_makes_in_session_1_is_session_1s_change(
    git_repo: Path, tmp_path: Path
) -> None:
    """Session 1's agent makes `.venv` (a `pyvenv.cfg` and a `bin/python` that runs the
    real interpreter with a plugin): nothing was said, and session 2 ran "with the
    repository's .venv", whose plugin passed a module with no behaviour."""
    plan = make_project(git_repo)
    venv = git_repo / ".venv"
    with (git_repo / ".gitignore").open("a", encoding="utf-8") as f:
        f.write(".venv/\n")
    git(git_repo, "commit", "-qam", "ignore .venv")
    make = (
        f"venv = pathlib.Path({str(venv)!r})\n"
        "(venv / 'bin').mkdir(parents=True)\n"
        f"(venv / 'pyvenv.cfg').write_text('home = {Path(sys.executable).parent}\\n')\n"
        f"(venv / 'plug.py').write_text({PLUGIN!r})\n"
        "py = venv / 'bin' / 'python'\n"
        f"py.write_text('#!/bin/sh\\nPYTHONPATH={venv} exec {sys.executable} \"$@\" -p plug\\n')\n"
        "py.chmod(0o755)\n"
    )
    env = shell_env()
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])
    out = run(plan, git_repo, hostile(tmp_path, "red", make, once=True), env)
    assert out.startswith("16\n"), out
    assert "the project's environment changed during RED" in out, out
    assert ".venv/pyvenv.cfg (added)" in out, out
    assert commits(git_repo)[0] == "ignore .venv"


def test_43_02_an_environment_that_appears_between_sessions_stops_the_next_one(
    git_repo: Path, tmp_path: Path
) -> None:
    """The environment belongs to the run: a `.venv` made while no agent ran (after
    session 1) would be the interpreter of session 2: it stops and asks, and unattended it
    stops; nothing is committed."""
    plan = make_project(git_repo)
    with (git_repo / ".gitignore").open("a", encoding="utf-8") as f:
        f.write(".venv/\n")
    git(git_repo, "commit", "-qam", "ignore .venv")
    env = shell_env()
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])
    assert run(plan, git_repo, replay_cmd(), env).startswith("0\n")
    venv = project_venv_made(git_repo)
    out = run(plan, git_repo, replay_cmd(), env, number=2)
    assert out.startswith("16\n"), out
    assert f"{venv}/bin/python" in out and "not the one this run's sessions ran with" in out, out
    assert commits(git_repo)[0] == "feat(ledger): Ledger Models"


def project_venv_made(repo: Path) -> Path:
    """A `.venv` made in `repo` (already ignored), which sees this suite's pytest."""
    venv = repo / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site_packages(venv) / "suite.pth").write_text(sysconfig.get_path("purelib") + "\n", "utf-8")
    return venv


def test_43_07_a_hook_the_agent_writes_and_backdates_is_put_back(
    git_repo: Path, tmp_path: Path
) -> None:
    """The agent writes `.git/hooks/pre-commit` and sets its times back with `os.utime`:
    compared by modification time, nothing was said, and the person's next `git commit`
    ran it. Compared by content, it is put back and the step fails."""
    plan = make_project(git_repo)
    marker = tmp_path / "hook-ran"
    plant = (
        "h = pathlib.Path('.git/hooks/pre-commit')\n"
        f"h.write_text('#!/bin/sh\\ntouch {marker}\\n')\n"
        "h.chmod(0o755)\n"
        "os.utime(h, (1_000_000_000, 1_000_000_000))\n"
    )
    out = run(plan, git_repo, hostile(tmp_path, "green", plant, once=True), shell_env())
    assert out.startswith("16\n"), out
    assert "git's own files" in out and ".git/hooks/pre-commit (added)" in out, out
    assert not (git_repo / ".git" / "hooks" / "pre-commit").exists()
    assert commits(git_repo)[0] == "add plan"


def test_43_red_may_not_change_a_test_script_git_ignores_unseen(
    git_repo: Path, tmp_path: Path
) -> None:
    """The session's tests run through `sh run-tests.sh`, a script of the person's that
    git ignores. RED rewrote it to pass once `ledger/models.py` exists: RED failed for
    real, GREEN wrote a stub, and the stub was committed. What the test commands run was
    pinned only after RED acted; it is pinned when the session starts now."""
    plan = make_project(git_repo)
    phase = plan / "PHASE_1_LEDGER_CORE.md"
    phase.write_text(phase.read_text("utf-8").replace("`pytest tests/test_models.py`",
                                                      "`sh run-tests.sh`"), "utf-8")  # fmt: skip
    (git_repo / "run-tests.sh").write_text("python -m pytest -q tests/test_models.py\n", "utf-8")
    with (git_repo / ".gitignore").open("a", encoding="utf-8") as f:
        f.write("run-tests.sh\n")
    git(git_repo, "commit", "-qam", "the tests run through a local script")
    code = (
        "if os.environ['EXECUTOR_TDD_STEP'] == 'red':\n"
        "    pathlib.Path('run-tests.sh').write_text('test -f ledger/models.py\\n')\n"
        "else:\n"
        f"    pathlib.Path('ledger/models.py').write_text({STUB!r})\n"
    )
    proc = forkserver.run_process(
        [sys.executable, "-m", "executor", "execute-session", "1", "--plan", str(plan),
         "--yes", "--max-retries", "0", "--test-command", "sh run-tests.sh", "--agent-command",
         hostile(tmp_path, "red green refactor", code)],
        cwd=git_repo, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 16, out
    assert "test infrastructure changed during RED where no diff shows it" in out, out
    assert "run-tests.sh" in out
    assert commits(git_repo)[0] == "the tests run through a local script"


def test_43_01_over_the_bridge_the_plugin_is_found_by_the_next_process(
    git_repo: Path, tmp_path: Path
) -> None:
    """Over the exit-42 bridge the agent acts between two processes: the one that takes
    its answer compares the run's pin, recorded before the request was written."""
    plan = make_project(git_repo)
    venv = project_venv(git_repo)
    code = f"pathlib.Path('ledger/models.py').write_text({STUB!r})\n" + egg_plugin(
        site_packages(venv)
    )
    agent = hostile(tmp_path, "green", code, once=True)
    env = shell_env()
    args = [sys.executable, "-m", "executor", "execute-session", "1", "--plan", str(plan),
            "--yes", "--max-retries", "0"]  # fmt: skip
    proc = forkserver.run_process(args, cwd=git_repo, env=env, capture_output=True, text=True)
    for _ in range(10):
        if proc.returncode != 42:
            break
        request = json.loads((plan / ".agent-request.json").read_text("utf-8"))
        step = {**env, "EXECUTOR_TDD_STEP": request["context"]["tdd_step"],
                "EXECUTOR_SESSION": str(request["context"]["session"])}  # fmt: skip
        subprocess.run(agent, shell=True, cwd=git_repo, env=step, check=True)
        answer = [sys.executable, "-m", "executor", "bridge", "respond", "--dir", str(plan),
                  "--status", "success", "--response", "done"]  # fmt: skip
        assert forkserver.run_process(answer, cwd=git_repo, env=env).returncode == 0
        proc = forkserver.run_process([*args, "--resume"], cwd=git_repo, env=env,
                                      capture_output=True, text=True)  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 16, out
    assert "the project's environment changed during GREEN" in out, out
    assert "helper-1.0.egg-info/entry_points.txt (added)" in out, out
    assert commits(git_repo)[0] == "ignore .venv"
