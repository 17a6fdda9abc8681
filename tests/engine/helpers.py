"""Helpers for engine end-to-end tests: a real repo with the demo plan, the replay agent."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests import forkserver
from tests.conftest import REPO_ROOT, git, run_cli

PLAN_SRC = REPO_ROOT / "plans" / "examples" / "ledger"
SOLUTIONS = REPO_ROOT / "plans" / "replay" / "ledger"


def make_project(repo: Path) -> Path:
    """Put the demo plan under project-plans/ledger in `repo` and commit it."""
    (repo / ".gitignore").write_text("__pycache__/\n*.pyc\n.pytest_cache/\n", encoding="utf-8")
    plan = repo / "project-plans" / "ledger"
    plan.mkdir(parents=True)
    for md in PLAN_SRC.glob("*.md"):
        shutil.copy2(md, plan / md.name)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "add plan")
    return plan


def solutions_copy(tmp: Path) -> Path:
    dest = tmp / "solutions"
    shutil.copytree(SOLUTIONS, dest)
    return dest


#: The replay agent without the CLI around it (tests/replay_agent.py says why).
REPLAY_AGENT = Path(__file__).resolve().parents[1] / "replay_agent.py"


def replay_cmd(solutions: Path = SOLUTIONS) -> str:
    return shlex.join([sys.executable, str(REPLAY_AGENT), "--solutions", str(solutions)])


def run_replay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The replay agent as a host's subagent runs it (`executor replay-agent ARGS`)."""
    return subprocess.run(
        [sys.executable, str(REPLAY_AGENT), *args], cwd=cwd, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip


def commits(repo: Path) -> list[str]:
    return git(repo, "log", "--format=%s").splitlines()


def state(plan: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((plan / ".agent-state.json").read_text("utf-8"))
    return data


def records(plan: Path) -> dict[str, dict[str, Any]]:
    """Every started session's record, by number: those in progress from
    `.agent-state.json` (`run.sessions`, and `run.parked`: set aside while a question
    waits), finished ones from `.agent-sessions/`."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted((plan / ".agent-sessions").glob("session-*.json")):
        found[path.stem.removeprefix("session-")] = json.loads(path.read_text("utf-8"))
    if (plan / ".agent-state.json").exists():
        run = state(plan)["run"]
        found.update({n: p["record"] for n, p in run.get("parked", {}).items()})
        found.update(run["sessions"])
    return found


def session_state(plan: Path, number: int) -> dict[str, Any]:
    """The session's record (KeyError: it has not started)."""
    return dict(records(plan)[str(number)])


def respond(plan: Path, repo: Path, text: str) -> subprocess.CompletedProcess[str]:
    """Answer the pending request the way a host does: `executor bridge respond`."""
    return run_cli(
        "bridge", "respond", "--dir", str(plan), "--status", "success", "--response", text, cwd=repo
    )


def host_loop(
    args: list[str],
    *,
    repo: Path,
    plan: Path,
    solutions: Path = SOLUTIONS,
    answer: Any = None,
    max_iterations: int = 60,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Drive `args` the way a host does: on 42, answer via `bridge respond`, re-run --resume."""
    cmd = list(args)
    for _ in range(max_iterations):
        proc = run_cli(*cmd, cwd=repo, env=env)
        if proc.returncode != 42:
            return proc
        show = run_cli("bridge", "show", "--dir", str(plan), "--json", cwd=repo)
        assert show.returncode == 0, show.stderr
        req = json.loads(show.stdout)
        if req["kind"] == "human":
            text = answer(req) if answer else "approve"
            out = respond(plan, repo, text)
        else:
            agent = run_replay(
                "--solutions", str(solutions), "--request", req["request_file"], "--repo",
                str(repo), cwd=repo,
            )  # fmt: skip
            assert agent.returncode == 0, agent.stderr
            out = respond(plan, repo, agent.stdout.strip() or "done")
        assert out.returncode == 0, out.stderr
        if "--resume" not in cmd:
            cmd.append("--resume")
    raise AssertionError("host loop did not finish")


def run_unattended(plan: Path, repo: Path, agent: str) -> str:
    """`execute-session 1 --yes --max-retries 0` through the real CLI: its exit code on
    the first line, then what it said."""
    proc = forkserver.run_process(
        [sys.executable, "-m", "executor", "execute-session", "1", "--plan", str(plan),
         "--yes", "--max-retries", "0", "--agent-command", agent],
        cwd=repo, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return f"{proc.returncode}\n{proc.stdout}{proc.stderr}"
