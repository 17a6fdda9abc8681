"""A Node project from `executor init` to its first commit, through the real CLI with a
replay agent, real git and real `node --test` runs: its tests are counted when its test
script is a runner the executor reads, and said to be uncounted when it is not (never
"0 passing of 0"), in the checkpoint, the commit message and `executor status`."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import git, run_cli
from tests.engine.helpers import replay_cmd, respond, session_state

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or shutil.which("npm") is None, reason="node/npm missing"
)

TEST_JS = """const test = require('node:test');
const assert = require('node:assert');
const { total } = require('../src/shop.js');
test('adds the prices', () => assert.strictEqual(total([1, 2]), 3));
test('an empty cart is zero', () => assert.strictEqual(total([]), 0));
test('refuses a negative price', () => assert.throws(() => total([-1])));
"""
CODE_JS = """function total(prices) {
  if (prices.some((p) => p < 0)) throw new Error('a negative price');
  return prices.reduce((sum, p) => sum + p, 0);
}
module.exports = { total };
"""


def node_project(tmp: Path, script: str) -> tuple[Path, Path, str]:
    """A git repository holding a package.json whose test script is `script`, with the
    plan `executor init` wrote committed; the plan folder and the replay agent command."""
    repo = tmp / "shop"
    repo.mkdir()
    package = {"name": "shop", "version": "1.0.0", "scripts": {"test": script}}
    (repo / "package.json").write_text(json.dumps(package), "utf-8")
    git(repo, "init", "-q", "-b", "main")
    init = run_cli("init", "--yes", cwd=repo)
    assert init.returncode == 0, init.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a plan")
    solutions = tmp / "solutions" / "session-1"
    for step, rel, text in (("red", "test/shop.test.js", TEST_JS), ("green", "src/shop.js",
                                                                     CODE_JS)):  # fmt: skip
        (solutions / step / rel).parent.mkdir(parents=True)
        (solutions / step / rel).write_text(text, "utf-8")
    return repo / "project-plans" / "shop", repo, replay_cmd(tmp / "solutions")


def status_row(plan: Path, repo: Path) -> str:
    shown = run_cli("status", "--plan", str(plan), cwd=repo)
    assert shown.returncode == 0, shown.stderr
    return next(line for line in shown.stdout.splitlines() if "First Feature" in line)


def test_node_test_from_the_test_script_is_counted(tmp_path: Path) -> None:
    plan, repo, agent = node_project(tmp_path, "node --test")
    run = run_cli("execute-plan", "--plan", str(plan), "--yes", "--agent-command", agent,
                  cwd=repo)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    message = git(repo, "log", "-1", "--format=%B")
    assert "Tests (measured by the executor): 3 passing of 3 in `node --test" in message
    assert " 3/3 " in status_row(plan, repo)
    assert "tests run with" not in run.stdout  # no Python interpreter runs `node --test`
    # RED's file that cannot load yet says why, as node printed it
    assert "collection error: Error: Cannot find module '../src/shop.js'" in run.stdout
    # GREEN: the suite's report names each test's file, so it holds the session's tests
    # and one run judges both
    green = run.stdout.split("GREEN, attempt 1")[1]
    assert "running: node --test: 0 failed, 3 passed" in green
    assert "node --test test/shop.test.js" not in green
    assert "does not collect" not in run.stdout
    assert "does not say which file" not in run.stdout
    assert len(list((plan / ".agent-logs").glob("s1.green_verify.*.tests.log"))) == 1
    assert session_state(plan, 1)["green_passed"] == [
        "test/shop.test.js::adds the prices",
        "test/shop.test.js::an empty cart is zero",
        "test/shop.test.js::refuses a negative price",
    ]


#: A `node` that runs the real one with the executor's reporter given no test's file, as
#: a Node whose test events name none would.
NO_FILE_NODE = """#!{python}
import base64, os, sys
PREFIX = "--test-reporter=data:text/javascript;base64,"
args = []
for arg in sys.argv[1:]:
    if arg.startswith(PREFIX):
        code = base64.b64decode(arg[len(PREFIX):]).decode()
        assert "file: data.file" in code
        code = code.replace("file: data.file", "file: undefined")
        arg = PREFIX + base64.b64encode(code.encode()).decode()
    args.append(arg)
os.execv({node!r}, [{node!r}, *args])
"""


def test_a_node_whose_events_name_no_file_runs_the_sessions_tests_too(tmp_path: Path) -> None:
    """Without a file per test the suite cannot show it holds the session's tests: GREEN
    says so and runs them on their own too, and the verdict is the same."""
    plan, repo, agent = node_project(tmp_path, "node --test")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    node = bin_dir / "node"
    node.write_text(NO_FILE_NODE.format(python=sys.executable, node=shutil.which("node")))
    node.chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    run = run_cli("execute-plan", "--plan", str(plan), "--yes", "--agent-command", agent,
                  cwd=repo, env={"PATH": path})  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    green = run.stdout.split("GREEN, attempt 1")[1]
    assert "the suite's report does not say which file each test is in" in green
    assert "running: node --test test/shop.test.js: 0 failed, 3 passed" in green
    assert len(list((plan / ".agent-logs").glob("s1.green_verify.*.tests.log"))) == 2
    message = git(repo, "log", "-1", "--format=%B")
    assert "Tests (measured by the executor): 3 passing of 3 in `node --test" in message


def test_an_uncounted_test_script_is_said_to_be_not_measured(tmp_path: Path) -> None:
    """`npm test` around more than a runner: judged by its exit code alone, and said so
    at the checkpoint after RED, in the commit message and in status."""
    plan, repo, agent = node_project(tmp_path, "node --test && echo done")
    args = ["execute-plan", "--plan", str(plan), "--agent-command", agent]
    assert run_cli(*args, cwd=repo).returncode == 42  # before_start
    assert respond(plan, repo, "approve").returncode == 0
    waiting = run_cli(*args, "--resume", cwd=repo)
    assert waiting.returncode == 42, waiting.stderr  # after_red, RED judged by exit 1
    request = json.loads((plan / ".agent-request.json").read_text("utf-8"))
    detail = request["context"]["detail"]
    assert "RED verified: `npm test` exited 1" in detail
    assert "Tests: not measured (exit code only): the command writes no report" in detail
    assert "not measured (exit code only)" in status_row(plan, repo)
    assert respond(plan, repo, "approve").returncode == 0
    done = run_cli(*args, "--resume", "--yes", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    message = git(repo, "log", "-1", "--format=%B")
    assert "Tests (measured by the executor): not measured (exit code only) in `npm test`" in (
        message
    )
    assert "passing of" not in message
    assert "not measured (exit code only)" in status_row(plan, repo)
