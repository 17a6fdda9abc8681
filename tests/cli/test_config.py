"""Run options from the project's config: precedence (a flag > the saved run > the config
> the default), through the real CLI, and `executor config` showing where each comes from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests import forkserver
from tests.conftest import git, run_cli
from tests.engine.helpers import make_project, state


def shown(repo: Path, plan: Path) -> dict[str, Any]:
    proc = run_cli("config", "--plan", str(plan), "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    options: dict[str, Any] = json.loads(proc.stdout)["options"]
    return options


def test_config_then_saved_run_then_flag(git_repo: Path) -> None:
    plan = make_project(git_repo)
    (git_repo / ".executor.toml").write_text('checkpoints = "none"\nmax_retries = 5\n', "utf-8")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "config")
    before = shown(git_repo, plan)
    assert before["checkpoints"] == {"value": "none", "from": ".executor.toml"}
    assert before["max_retries"] == {"value": 5, "from": ".executor.toml"}
    # the limits a run applies when none is set, not `None`
    assert before["agent_timeout"] == {"value": 1200, "from": "default"}
    assert before["test_timeout"] == {"value": 3600, "from": "default"}

    first = run_cli("execute-session", "1", "--plan", str(plan), "--max-retries", "1", cwd=git_repo)
    assert first.returncode == 42, first.stderr
    request = json.loads((plan / ".agent-request.json").read_text("utf-8"))
    assert request["agent_name"] != "human"  # checkpoints none, from the config: no question
    assert state(plan)["run"]["options"]["max_retries"] == 1  # the flag beat the config
    # EXECUTOR_MUTATION_BUDGET gives the option as a flag would (tests/conftest.py sets it)
    assert state(plan)["run"]["options"]["mutation_budget"] == 0
    after = shown(git_repo, plan)
    assert after["max_retries"] == {"value": 1, "from": "saved run"}
    assert after["checkpoints"] == {"value": "none", "from": "saved run"}


def test_a_bad_config_value_names_the_file_and_key(git_repo: Path) -> None:
    (git_repo / ".executor.toml").write_text('checkpoints = "sometimes"\n', "utf-8")
    proc = run_cli("config", "--json", cwd=git_repo)
    assert proc.returncode == 64, proc.stderr
    assert ".executor.toml: checkpoints: expected one of all, session, none" in proc.stderr


def test_the_sandbox_setting_and_whether_bubblewrap_works_are_shown(git_repo: Path) -> None:
    from executor.sandbox import bubblewrap

    (git_repo / ".executor.toml").write_text('sandbox = "off"\n', "utf-8")
    proc = run_cli("config", "--json", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["options"]["sandbox"] == {"value": "off", "from": ".executor.toml"}
    assert data["bubblewrap"] == bubblewrap()
    (git_repo / ".executor.toml").write_text('sandbox = "always"\n', "utf-8")
    bad = run_cli("config", cwd=git_repo)
    assert bad.returncode == 64 and "sandbox: expected one of auto, off" in bad.stderr


def test_the_configs_test_command_is_shown_where_it_comes_from(git_repo: Path) -> None:
    """`executor init` writes `test_command` into `[tool.executor]`; `executor config` said
    `None (default)` beside it although every run used it."""
    plan = make_project(git_repo)
    (git_repo / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.executor]\ntest_command = "python -m pytest -q"\n', "utf-8"
    )
    assert shown(git_repo, plan)["test_command"] == {
        "value": "python -m pytest -q",
        "from": "pyproject.toml",
    }


def test_which_python_runs_the_tests_and_how_counts_are_measured_are_shown(
    git_repo: Path,
) -> None:
    """P27: the project's environment (here the repository's .venv, over no active one)
    and whether the test command's counts are measured."""
    import os
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(git_repo / ".venv")],
                   check=True)  # fmt: skip
    (git_repo / ".executor.toml").write_text('test_command = "make check"\n', "utf-8")
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    proc = forkserver.run_process(
        [sys.executable, "-m", "executor", "config", "--json"], cwd=git_repo, env=env,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    python = json.loads(proc.stdout)["python"]
    assert python["path"] == str(git_repo / ".venv" / "bin" / "python")
    assert python["source"] == "the repository's .venv" and python["pytest"] is False
    assert "its exit code only (not measured" in python["runner"]


def test_notify_is_on_by_default_as_help_says_and_a_saved_null_is_the_default(
    git_repo: Path,
) -> None:
    """`--help` says notify is on by default; `config` showed `None`. A run saved before
    notify had a default of its own saved null for it: that reads as the default."""
    from executor.store import seal

    plan = make_project(git_repo)
    helped = run_cli("execute-session", "--help", cwd=git_repo)
    assert "on (the default" in " ".join(helped.stdout.split())
    assert shown(git_repo, plan)["notify"] == {"value": "on", "from": "default"}
    text = run_cli("config", "--plan", str(plan), cwd=git_repo)
    assert any(line.split()[:2] == ["notify", "on"] for line in text.stdout.splitlines())

    first = run_cli("execute-session", "1", "--plan", str(plan), cwd=git_repo)
    assert first.returncode == 42, first.stderr
    assert state(plan)["run"]["options"]["notify"] == "on"
    old = state(plan)
    old["run"]["options"]["notify"] = None
    old["checksum"] = ""
    body = json.dumps(old, separators=(",", ":"), ensure_ascii=False).encode()
    (plan / ".agent-state.json").write_bytes(seal(body))
    assert shown(git_repo, plan)["notify"] == {"value": "on", "from": "saved run"}
    status = run_cli("status", "--plan", str(plan), cwd=git_repo)
    assert status.returncode == 0, status.stderr
    assert not list(plan.glob(".agent-state.json.corrupt-*"))
