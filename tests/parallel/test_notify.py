"""A parallel run calls a person back as a sequential one does: one notification when the
whole run ends (never one per lane), and one when its sessions wait on the bridge."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_notify import Hook
from tests.conftest import run_cli
from tests.parallel.helpers import PLAN, agent, make_project, make_solutions, simple

pytestmark = pytest.mark.slow


@pytest.fixture
def hook() -> Iterator[Hook]:
    h = Hook()
    yield h
    h.close()


def test_a_parallel_run_posts_its_end_once(git_repo: Path, tmp_path: Path, hook: Hook) -> None:
    specs = [simple(1, "alpha"), simple(2, "beta")]
    plan = make_project(git_repo, specs)
    proc = run_cli(
        "execute-plan", "--plan", PLAN, "--parallel", "2", "--force-parallel", "--yes",
        "--agent-command", agent(make_solutions(tmp_path, specs)), "--notify", hook.url,
        cwd=git_repo,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [end] = hook.bodies
    assert (end["event"], end["exit_code"], end["project"]) == ("completed", 0, "tools")
    assert end["session"] in (1, 2)
    assert "the run is complete (2 sessions done now)" in end["text"]
    assert end["next"] == f"executor status --plan {plan}"


def test_sessions_waiting_on_the_bridge_are_posted(git_repo: Path, hook: Hook) -> None:
    specs = [simple(1, "alpha"), simple(2, "beta")]
    make_project(git_repo, specs)
    proc = run_cli(
        "execute-plan", "--plan", PLAN, "--parallel", "2", "--force-parallel",
        "--notify", hook.url, cwd=git_repo,
    )  # fmt: skip
    assert proc.returncode == 42, proc.stdout + proc.stderr
    assert sorted(b["session"] for b in hook.bodies) == [1, 2]  # each session's question
    for body in hook.bodies:
        assert (body["event"], body["checkpoint"], body["exit_code"]) == (
            "checkpoint", "before_start", 42,
        )  # fmt: skip
        assert f"session-{body['session']}" in body["next"]  # answered in its lane's folder


def test_a_parallel_run_stopped_on_its_budget_is_posted(
    git_repo: Path, tmp_path: Path, hook: Hook
) -> None:
    """A lane stops on the budget before any session was integrated: still called back."""
    specs = [simple(1, "alpha"), simple(2, "beta")]
    plan = make_project(git_repo, specs)
    proc = run_cli(
        "execute-plan", "--plan", PLAN, "--parallel", "2", "--force-parallel", "--yes",
        "--agent-command", agent(make_solutions(tmp_path, specs)), "--budget-minutes", "0",
        "--notify", hook.url, cwd=git_repo,
    )  # fmt: skip
    assert proc.returncode == 23, proc.stdout + proc.stderr
    [stop] = hook.bodies
    assert (stop["event"], stop["exit_code"]) == ("budget", 23)
    assert stop["session"] in (1, 2) and stop["next"].startswith("executor ")
    assert str(plan) in stop["next"]
