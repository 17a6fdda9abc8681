"""`executor execute-plan --agent <preset>` end to end against stand-in CLIs shaped like the
real ones (tests/agents/standins): the work lands, costs and tokens add up in state and
`status --json`, a budget stops the run before the call that would go over it, and a
larger budget finishes it."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from tests.agents.conftest import STANDINS
from tests.conftest import REPO_ROOT, run_cli
from tests.engine.helpers import commits, make_project, records, state

pytestmark = pytest.mark.slow

SOLUTIONS = REPO_ROOT / "plans" / "replay" / "ledger"


def standin_env(tmp_path: Path, cost: str = "0.05") -> dict[str, str]:
    path = os.pathsep.join([str(STANDINS), str(Path(sys.executable).parent), os.environ["PATH"]])
    return {
        "PATH": path,
        "STANDIN_SOLUTIONS": str(SOLUTIONS),
        "STANDIN_LOG": str(tmp_path / "standin.log"),
        "STANDIN_COST_USD": cost,
        "STANDIN_INPUT_TOKENS": "1000",
        "STANDIN_OUTPUT_TOKENS": "200",
    }


def test_execute_phase_with_claude_records_cost_per_call(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    env = standin_env(tmp_path)
    proc = run_cli("execute-phase", "1", "--plan", str(plan), "--agent", "claude", "--yes",
                   cwd=git_repo, env=env, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert commits(git_repo)[:2] == ["feat(ledger): Balances", "feat(ledger): Ledger Models"]
    calls = [c for rec in records(plan).values() for c in rec["agent_calls"]]
    assert len(calls) == 6 and all(c["cost_usd"] == 0.05 for c in calls)
    assert all(Path(c["log"]).is_file() for c in calls)
    status = json.loads(run_cli("status", "--plan", str(plan), "--json", cwd=git_repo).stdout)
    assert status["agent_cost_usd"] == pytest.approx(0.3)
    assert status["agent_tokens"] == 6 * 1200
    first = status["phases"][0]["sessions"][0]
    assert first["agent_cost_usd"] == pytest.approx(0.15) and first["agent_tokens"] == 3600
    assert "$0.0500" in proc.stdout  # each call's usage is shown as it happens
    assert "(agents: $0.30, 7,200 tokens)" in run_cli("status", cwd=git_repo).stdout


@pytest.mark.parametrize("preset", ["codex", "gemini", "aider"])
def test_each_preset_runs_a_session_and_commits_nothing_itself(
    git_repo: Path, tmp_path: Path, preset: str
) -> None:
    plan = make_project(git_repo)
    proc = run_cli("execute-session", "1", "--plan", str(plan), "--agent", preset, "--yes",
                   cwd=git_repo, env=standin_env(tmp_path), timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert commits(git_repo)[:2] == ["feat(ledger): Ledger Models", "add plan"]
    calls = records(plan)["1"]["agent_calls"]
    assert [c["status"] for c in calls] == ["success"] * 3
    assert all(c["input_tokens"] == 1000 and c["output_tokens"] == 200 for c in calls)
    assert_status_shows_usage(plan, git_repo, cost="$0.15" if preset == "aider" else None)


def assert_status_shows_usage(plan: Path, repo: Path, *, cost: str | None) -> None:
    """`executor status` (text) shows the tokens whenever they are known, with the cost
    when the CLI reports one (Codex and Gemini CLI report none)."""
    proc = run_cli("status", "--plan", str(plan), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    title, header, first, *_ = proc.stdout.splitlines()
    usage = ", ".join(filter(None, [cost, "3,600 tokens"]))
    assert title.endswith(f" (agents: {usage})"), title
    assert header.split()[-2:] == ["Cost", "Tokens"]
    assert first.split()[-2:] == [cost or "-", "3,600"]
    transcript = proc.stdout.splitlines()[-2].removeprefix("last agent transcript: ")
    assert transcript.endswith(".log") and Path(transcript).is_file()


def test_a_budget_stops_before_the_call_that_would_go_over_it(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    env = standin_env(tmp_path, cost="0.10")
    args = ["execute-plan", "--plan", str(plan), "--agent", "claude", "--yes"]
    stopped = run_cli(*args, "--budget-usd", "0.25", cwd=git_repo, env=env, timeout=300)
    assert stopped.returncode == 23, stopped.stdout + stopped.stderr
    assert "$0.30 of the $0.25 budget" in stopped.stderr
    calls = [c for rec in records(plan).values() for c in rec["agent_calls"]]
    assert len(calls) == 3  # session 1's three calls; session 2's first was not made
    assert commits(git_repo)[0] == "feat(ledger): Ledger Models"
    printed = stopped.stderr.split("Continue with a larger budget with: ")[1].strip()
    assert printed.startswith("executor execute-plan --plan ")  # the plan goes on
    assert printed.endswith("--yes --budget-usd 0.50")  # runnable as printed, as it ran
    resumed = run_cli(*shlex.split(printed)[1:], cwd=git_repo, env=env, timeout=300)
    assert resumed.returncode == 23, resumed.stdout + resumed.stderr  # two calls further
    assert resumed.stderr.rstrip().endswith("--yes --budget-usd 1.00")
    calls = [c for rec in records(plan).values() for c in rec["agent_calls"]]
    assert len(calls) == 5
    # a larger budget lets it go on (to the end of session 2: the rest of the plan would
    # only repeat what its sessions 1 and 2 showed, at the cost of two more sessions)
    more = run_cli("execute-session", "2", *args[1:], "--budget-usd", "5", cwd=git_repo,
                   env=env, timeout=300)  # fmt: skip
    assert more.returncode == 0, more.stdout + more.stderr
    assert commits(git_repo)[0] == "feat(ledger): Balances"
    assert state(plan)["run"]["options"]["budget_usd"] == 5


def test_an_agent_error_result_is_retried_by_the_policy(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    env = {**standin_env(tmp_path), "STANDIN_FAIL": "error"}
    proc = run_cli("execute-session", "1", "--plan", str(plan), "--agent", "claude", "--yes",
                   cwd=git_repo, env=env, timeout=300)  # fmt: skip
    assert proc.returncode == 16, proc.stdout + proc.stderr
    calls = records(plan)["1"]["agent_calls"]
    assert [c["status"] for c in calls] == ["error"] * 3
    assert "The agent failed for the RED step" in proc.stderr


@pytest.mark.parametrize(
    ("version", "trust"), [("0.45.0", True), ("0.35.0", False)], ids=["current", "no-trust"]
)
def test_gemini_gets_only_the_flags_its_help_lists(
    git_repo: Path, tmp_path: Path, version: str, trust: bool
) -> None:
    plan = make_project(git_repo)
    env = {**standin_env(tmp_path), "STANDIN_GEMINI_VERSION": version}
    proc = run_cli("execute-session", "1", "--plan", str(plan), "--agent", "gemini", "--yes",
                   cwd=git_repo, env=env, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    argv = json.loads((tmp_path / "standin.log").read_text("utf-8").splitlines()[-1])["argv"]
    assert ("--skip-trust" in argv) == trust and "--policy" in argv


def test_a_gemini_too_old_for_the_preset_is_named_with_the_version_needed(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    env = {**standin_env(tmp_path), "STANDIN_GEMINI_VERSION": "0.29.0"}
    proc = run_cli("execute-session", "1", "--plan", str(plan), "--agent", "gemini", "--yes",
                   cwd=git_repo, env=env, timeout=300)  # fmt: skip
    assert proc.returncode == 64, proc.stdout + proc.stderr
    assert "has no --policy" in proc.stderr and "Gemini CLI 0.30 or later" in proc.stderr
    assert "Traceback" not in proc.stderr
