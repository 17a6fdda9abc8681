"""The format C and D examples parse into sessions whose RED command fails before the
prepared implementation and whose GREEN (and REFACTOR) commands pass after it.

The replayed files are the ones `executor replay-agent --solutions plans/replay/<name>`
copies; each command is the one the plan gives, run for real by `run_tests`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from executor.plan import lint, load_plan
from executor.replay import ReplayTarget, replay
from executor.resources import data_path
from executor.testrun import run_tests

#: example -> (format, {session: (tdd, has refactor)})
EXAMPLES = {
    "textstats": ("superpowers", {1: (True, False), 2: (True, True)}),
    "pantry": ("speckit", {1: (False, False), 2: (True, False), 3: (True, False)}),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_goes_red_then_green_session_by_session(name: str, tmp_path: Path) -> None:
    fmt, sessions = EXAMPLES[name]
    plan = load_plan(data_path("plans", "examples", name))
    assert plan.format == fmt and lint(plan) == []
    assert {s.number: (s.tdd, s.refactor is not None) for s in plan.sessions()} == sessions
    repo = tmp_path / "repo"
    shutil.copytree(plan.folder, repo / "plans" / name)
    solutions = data_path("plans", "replay", name)
    env = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    for session in plan.sessions():
        n = session.number
        if session.tdd:
            replay(solutions, repo, ReplayTarget(n, "red"))
            command = session.test_command("red")
            assert command is not None
            red = run_tests(command, cwd=repo, env=env)
            assert red.verdict == "red", f"session {n} RED did not fail: {red.output_tail}"
            assert red.collection_error, red.summary()
        replay(solutions, repo, ReplayTarget(n, "green"))
        for role in ("green", "refactor"):
            if role == "refactor":
                if session.refactor is None:
                    continue
                assert replay(solutions, repo, ReplayTarget(n, "refactor")).written
            command = session.test_command(role)
            assert command is not None
            run = run_tests(command, cwd=repo, env=env)
            assert run.verdict == "green", f"session {n} {role}: {run.output_tail}"
    suite = run_tests("python -m pytest -q", cwd=repo, env=env)
    assert suite.verdict == "green" and suite.passed >= 7
