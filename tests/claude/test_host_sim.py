"""The simulated host completes phase 1 of the demo plan, and a template-create run,
purely through the bridge.

No `--yes`: every checkpoint is a human request answered with `bridge respond`, every
agent step is the replay agent run on the request file (template-create's
architectural-reviewer: a stand-in that answers each brief with the JSON it asks for,
piped to `bridge respond --response-file -`), and every round is a real
`executor ... --resume` subprocess.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from executor.claude import AGENT_NAMES
from executor.resources import data_path
from tests.claude import host_sim
from tests.claude.host_sim import AgentAnswer, choose, request_dir, run_host
from tests.conftest import git, run_cli
from tests.templates.projects import PYTHON_SERVICE, write_project
from tests.templates.test_agents import RECOMMENDED
from tests.templates.test_analysis import AGENT_ANSWER
from tests.templates.workflow import golden, made

PLAN = "project-plans/ledger"

pytestmark = pytest.mark.slow


def _sessions(node: Any) -> Iterator[dict[str, Any]]:
    """Every object in the status JSON that looks like a session (number + status)."""
    if isinstance(node, dict):
        if isinstance(node.get("number"), int) and isinstance(node.get("status"), str):
            yield node
        for value in node.values():
            yield from _sessions(value)
    elif isinstance(node, list):
        for value in node:
            yield from _sessions(value)


@pytest.fixture(autouse=True)
def _forked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's executor calls as the suite's others: each a process of its own,
    forked from the server that has imported the CLI (tests/forkserver.py)."""

    def executor(
        args: Sequence[str], *, cwd: Path, env: dict[str, str], stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, cwd=cwd, env=env, input=stdin, timeout=600)

    monkeypatch.setattr(host_sim, "_executor", executor)


@pytest.fixture
def ledger_repo(git_repo: Path) -> Path:
    shutil.copytree(data_path("plans", "examples", "ledger"), git_repo / PLAN)
    git(git_repo, "add", "project-plans")
    git(git_repo, "commit", "-q", "-m", "Add the ledger plan")
    return git_repo


def test_host_completes_phase_1_through_the_bridge(ledger_repo: Path) -> None:
    base = git(ledger_repo, "rev-parse", "HEAD").strip()

    result = run_host(["execute-phase", "1", "--plan", PLAN], repo=ledger_repo)

    assert result.exit_code == 0, result.stderr
    assert result.rounds[0].argv == ["execute-phase", "1", "--plan", PLAN]
    assert all(r.argv[-1] == "--resume" for r in result.rounds[1:])
    assert all(r.exit_code == 42 for r in result.rounds[:-1])
    # Without --yes a person answered checkpoints, and builders did each TDD step.
    assert result.human_rounds, "no human checkpoint went through the bridge"
    assert all(r.answer for r in result.human_rounds)
    assert len(result.agent_rounds) >= 2 * 3  # two sessions x red, green (refactor optional)
    # Every agent the executor asked for is a subagent that install-claude ships.
    assert {r.agent_name for r in result.agent_rounds} <= set(AGENT_NAMES)
    # One commit per session of phase 1, on the current branch.
    subjects = git(ledger_repo, "log", "--format=%s", f"{base}..HEAD").splitlines()
    assert len(subjects) == 2, subjects
    assert all(s.startswith("feat(") for s in subjects), subjects
    # The status the executor measured says so too.
    status = run_cli("status", "--plan", PLAN, "--json", cwd=ledger_repo)
    assert status.returncode == 0, status.stderr
    by_number = {s["number"]: s for s in _sessions(json.loads(status.stdout))}
    assert by_number[1]["status"] == "completed"
    assert by_number[2]["status"] == "completed"


def test_request_dir_comes_from_the_need_agent_line() -> None:
    stderr = (
        "something first\n"
        "NEED_AGENT: run agent 'backend-builder' for request abc in "
        "/tmp/x y/plan/.agent-request.json (brief: /tmp/x y/plan/.agent-briefs/abc.md); "
        "answer and continue with `executor bridge respond --dir /tmp/x y/plan --resume`\n"
    )
    assert request_dir(stderr) == Path("/tmp/x y/plan")


def test_choose_prefers_the_requested_answer_when_offered() -> None:
    options = [{"value": "approve", "label": "Approve"}, {"value": "pause", "label": "Pause"}]
    assert choose(options, "approve") == "approve"
    assert choose(options, "pause") == "pause"
    assert choose([{"value": "continue", "label": "Continue"}], "approve") == "continue"
    assert choose([], "approve") == "approve"


def test_a_person_who_pauses_ends_the_loop_with_exit_20(ledger_repo: Path) -> None:
    base = git(ledger_repo, "rev-parse", "HEAD").strip()

    result = run_host(
        ["execute-session", "1", "--phase", "1", "--plan", PLAN],
        repo=ledger_repo,
        answer="pause",
    )

    assert result.exit_code == 20, result.stderr
    assert [r.kind for r in result.rounds] == ["human", None]
    assert result.rounds[0].answer == "pause"
    assert git(ledger_repo, "rev-parse", "HEAD").strip() == base


def reviewer(request: dict[str, Any], repo: Path) -> AgentAnswer:
    """The architectural-reviewer: reads the brief, answers with the JSON it asks for."""
    brief = Path(request["prompt_file"]).read_text("utf-8")
    if "# Codebase analysis for template-create" in brief:
        return AgentAnswer(json.dumps(AGENT_ANSWER, indent=2))
    assert "# Specialist agents for a project template" in brief
    return AgentAnswer(json.dumps(RECOMMENDED, indent=2))


def test_host_creates_a_template_through_the_bridge(tmp_path: Path) -> None:
    source = write_project(tmp_path / "library-service", PYTHON_SERVICE)
    dest = tmp_path / "templates" / "python-service-agent"
    argv = ["template-create", "--path", ".", "--output", str(dest), "--validate"]

    result = run_host(argv, repo=source, agent=reviewer)

    assert result.exit_code == 0, result.stderr
    assert [(r.exit_code, r.agent_name) for r in result.rounds] == [
        (42, "architectural-reviewer"), (42, "architectural-reviewer"), (0, None),
    ]  # fmt: skip
    last = result.rounds[-1].argv  # the answer that let the run finish, in one process
    assert last[:2] == ["bridge", "respond"] and last[-1] == "--resume"
    assert f"Template 'library-service' written to {dest}: 22 files" in result.stdout
    assert made(dest, source) == golden("python-service-agent")  # the answers are in it
    assert sorted(p.name for p in source.iterdir() if p.name.startswith(".")) == []
