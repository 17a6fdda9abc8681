"""Test strength of a JavaScript session: Stryker's mutants of the changed lines.

`stryker-report.json` is the report Stryker 9.6.1 wrote for `tests/starter`'s shop
(`src/shop.js` with its three `node --test` tests): two mutants survive, `p < 0` ->
`p <= 0` (no test has a price of 0) and the error's message emptied. The end-to-end
test with Stryker itself runs where a `node_modules` holding `@stryker-mutator/core` is
named by PE_TEST_STRYKER_MODULES (the suite installs nothing from the network); the one
without it runs everywhere node does."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from executor.strength import stryker
from executor.strength.runner import Measured
from tests.conftest import git, run_cli
from tests.engine.helpers import session_state
from tests.starter.test_node_counts import node_project

REPORT = Path(__file__).with_name("stryker-report.json")
MODULES = os.environ.get("PE_TEST_STRYKER_MODULES", "")


@pytest.fixture(autouse=True)
def _mutation_step_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EXECUTOR_MUTATION_BUDGET", raising=False)


def test_a_report_is_read_as_killed_survivors_and_their_lines() -> None:
    made = Measured(made=0)
    stryker.read_report(made, json.loads(REPORT.read_text("utf-8")))
    assert (made.made, made.killed, len(made.survivors), made.errors) == (12, 10, 2, 0)
    shown = [(s.mutant.diff(), s.why) for s in made.survivors]
    assert shown[0] == (
        "src/shop.js:2: `if (prices.some((p) => p < 0)) throw new Error('a negative price');`"
        " -> `if (prices.some((p) => p <= 0)) throw new Error('a negative price');`",
        "the tests pass with it",
    )
    assert shown[1][0].endswith('-> `if (prices.some((p) => p < 0)) throw new Error("");`')


def test_changed_lines_become_stryker_ranges() -> None:
    assert stryker.ranges({7, 1, 2, 3, 9, 10}) == [(1, 3), (7, 7), (9, 10)]


needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node missing")


@needs_node
def test_a_node_session_without_stryker_says_what_it_needs(tmp_path: Path) -> None:
    plan, repo, agent = node_project(tmp_path, "node --test")
    run = run_cli("execute-plan", "--plan", str(plan), "--yes", "--agent-command", agent,
                  cwd=repo)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    said = run.stdout + run.stderr
    assert (
        "Test strength: not measured: JavaScript/TypeScript mutants are made by Stryker, "
        "which this project does not have" in said
    )
    assert stryker.INSTALL in said
    assert "Mutation-Score" not in git(repo, "log", "-1", "--format=%B")


@needs_node
@pytest.mark.skipif(not MODULES, reason="PE_TEST_STRYKER_MODULES names no node_modules")
def test_a_node_session_with_stryker_scores_its_changed_lines(tmp_path: Path) -> None:
    plan, repo, agent = node_project(tmp_path, "node --test")
    (repo / "node_modules").symlink_to(MODULES, target_is_directory=True)
    (repo / ".gitignore").write_text("node_modules\n", "utf-8")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-qm", "ignore node_modules")
    run = run_cli("execute-plan", "--plan", str(plan), "--yes", "--agent-command", agent,
                  "--mutation-budget", "300", cwd=repo, timeout=900)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    said = run.stdout + run.stderr
    assert ("Stryker's mutants of the changed lines, against `node --test test/shop.test.js`"
            in said)  # fmt: skip
    # the plan's session changed all five lines of src/shop.js: 13 mutants, 2 survive
    assert "Test strength: 11/13 mutants of the changed lines killed (85%" in said
    assert "Mutation-Score: 11/13" in git(repo, "log", "-1", "--format=%B")
    strength = session_state(plan, 1)["strength"]
    assert (strength["made"], strength["killed"], strength["total"]) == (13, 11, 13)
    diffs = [f"{v['file']}:{v['line']}: {v['diff']}" for v in strength["survivors"]]
    assert any(d.startswith("src/shop.js:2: ") and "p <= 0" in d for d in diffs), diffs
