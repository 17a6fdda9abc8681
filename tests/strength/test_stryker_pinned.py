"""Stryker is the program that was there when the session started, run by the executor,
its report read from a socket (docs/test-strength.md): the real CLI, real git, real
`node --test` runs, a replay agent that also writes into the project's ignored
`node_modules` during GREEN, `--yes` and `--min-mutation-score 100`.

Most of these need no Stryker: the program an agent brings is refused before it runs,
and a stand-in of ours (`STAND_IN`, at Stryker's entry: it loads the reporter the
executor names and reports three mutants, one killed) shows which program ran. The last
needs the real one (PE_TEST_STRYKER_MODULES, as tests/strength/test_stryker.py)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from executor.exitcodes import ExitCode
from executor.strength import program
from tests.conftest import git, run_cli
from tests.engine.helpers import host_loop, session_state
from tests.starter.test_node_counts import node_project

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("node") is None, reason="node missing"),
]
MODULES = os.environ.get("PE_TEST_STRYKER_MODULES", "")
#: Stryker's own start takes seconds, and each kill runs the tests twice (its sham): a
#: loaded machine needs more than the default budget (30 s for a sub-second suite).
SLOW = ("--mutation-budget", "300")


@pytest.fixture(autouse=True)
def _mutation_step_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EXECUTOR_MUTATION_BUDGET", raising=False)


#: What an agent writes for Stryker: a report of every mutant killed, where the
#: configuration it is given says (Stryker 9's `jsonReporter.fileName`), having run none.
FORGER = """#!/usr/bin/env node
const fs = require('fs');
const config = JSON.parse(fs.readFileSync(process.argv[process.argv.length - 1], 'utf8'));
const mutants = [];
for (let i = 0; i < 16; i++) {
  const at = { line: 1, column: 1 };
  mutants.push({ id: String(i), mutatorName: 'X', replacement: '', status: 'Killed',
                 location: { start: at, end: { line: 1, column: 2 } } });
}
const report = { schemaVersion: '2', thresholds: { high: 80, low: 60 },
                 files: { 'src/shop.js': { language: 'javascript', source: 'x', mutants } } };
const where = (config.jsonReporter || {}).fileName || 'reports/mutation/mutation.json';
fs.mkdirSync(require('path').dirname(where), { recursive: true });
fs.writeFileSync(where, JSON.stringify(report));
"""

#: A program at Stryker's entry that does what the executor asks of Stryker, without
#: mutating: it loads the reporter the configuration appends and hands it a report of
#: three mutants of src/shop.js, one killed.
STAND_IN = """#!/usr/bin/env node
const fs = require('fs');
const config = JSON.parse(fs.readFileSync(process.argv[process.argv.length - 1], 'utf8'));
const at = (line) => ({ start: { line, column: 1 }, end: { line, column: 2 } });
const mutants = [
  { id: '1', mutatorName: 'EqualityOperator', replacement: 'p <= 0', status: 'Killed',
    location: at(2) },
  { id: '2', mutatorName: 'StringLiteral', replacement: '""', status: 'Survived',
    location: at(2) },
  { id: '3', mutatorName: 'ArithmeticOperator', replacement: 'sum - p', status: 'Survived',
    location: at(3) },
];
const source = fs.readFileSync('src/shop.js', 'utf8');
const report = { schemaVersion: '2', thresholds: { high: 80, low: 60 },
                 files: { 'src/shop.js': { language: 'javascript', source, mutants } } };
for (const plugin of config.appendPlugins || []) {
  for (const p of require(plugin).strykerPlugins) {
    if (p.kind === 'Reporter' && (config.reporters || []).includes(p.name)) {
      new p.injectableClass().onMutationTestReportReady(report);
    }
  }
}
"""


def _executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _stand_in(modules: Path) -> None:
    """Our stand-in at Stryker's entry under `modules`, with the `.bin` link npm makes."""
    core = modules / "@stryker-mutator" / "core"
    _executable(core.joinpath("bin", "stryker.js"), STAND_IN)
    (core / "package.json").write_text(
        json.dumps({"name": "@stryker-mutator/core", "version": "0.0.0-stand-in"}), "utf-8"
    )
    (modules / ".bin").mkdir(exist_ok=True)
    (modules / ".bin" / "stryker").symlink_to("../@stryker-mutator/core/bin/stryker.js")


def _shop(tmp: Path, modules: Path | None = None) -> tuple[Path, Path, str]:
    """The shop project of tests/starter, `node_modules` ignored (and `modules` there
    when given), committed."""
    plan, repo, agent = node_project(tmp, "node --test")
    (repo / ".gitignore").write_text("node_modules\n", "utf-8")
    if modules is not None:
        shutil.copytree(modules, repo / "node_modules", symlinks=True)
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-qm", "ignore node_modules")
    return plan, repo, agent


def _planting(tmp: Path, agent: str, files: dict[str, str]) -> str:
    """`agent`, and after its GREEN step `files` (paths in the repository: text)
    written, executable, as an agent's `npm install` or its own hand would."""
    script = tmp / "agent.py"
    script.write_text(
        "import os, pathlib, stat, subprocess\n"
        f"subprocess.run({agent!r}, shell=True, check=True)\n"
        "if os.environ['EXECUTOR_TDD_STEP'] == 'green':\n"
        f"    for rel, text in {files!r}.items():\n"
        "        path = pathlib.Path(rel)\n"
        "        path.parent.mkdir(parents=True, exist_ok=True)\n"
        "        if path.is_symlink():\n"
        "            path.unlink()\n"
        "        path.write_text(text)\n"
        "        path.chmod(0o755)\n",
        encoding="utf-8",
    )
    return f"{sys.executable} {script}"


def _execute(plan: Path, repo: Path, agent: str, *extra: str) -> tuple[int, str]:
    proc = run_cli("execute-plan", "--plan", str(plan), "--yes", "--agent-command", agent,
                   "--max-retries", "0", *extra, cwd=repo, timeout=900)  # fmt: skip
    return proc.returncode, proc.stdout + proc.stderr


#: Issue 43, finding 10: the agent's Stryker, at `.bin` and at Stryker's entry.
PLANTED = {"node_modules/.bin/stryker": FORGER,
           "node_modules/@stryker-mutator/core/bin/stryker.js": FORGER}  # fmt: skip


def _taken_in(plan: Path, repo: Path, agent: str) -> list[str]:
    """A person takes in the environment the agent changed (over the bridge, as a host
    asks them), then pauses at the next question: the texts they were asked."""
    asked: list[str] = []

    def answer(req: dict[str, Any]) -> str:
        asked.append(json.dumps(req))
        values = [o["value"] for o in req["context"]["options"]]
        return "accept_environment" if "accept_environment" in values else "pause"

    done = host_loop(["execute-plan", "--plan", str(plan), "--max-retries", "0",
                      "--min-mutation-score", "100", "--agent-command", agent],
                     repo=repo, plan=plan, answer=answer)  # fmt: skip
    assert done.returncode == ExitCode.PAUSED, done.stdout + done.stderr
    return asked


#: What the run pinned before any agent step stops first: the agent's packages changed.
_ENVIRONMENT = "the project's environment changed during GREEN (its agent step)"


def test_a_stryker_the_agent_brings_is_not_run(tmp_path: Path) -> None:
    plan, repo, agent = _shop(tmp_path)
    planting = _planting(tmp_path, agent, PLANTED)
    code, out = _execute(plan, repo, planting, "--min-mutation-score", "100")
    assert code == ExitCode.VERIFICATION_FAILED, out
    assert _ENVIRONMENT in out and "node_modules/.bin/stryker (added)" in out
    # a person who takes that environment in still gets no score from the agent's Stryker
    asked = _taken_in(plan, repo, planting)
    assert any("Stryker's program (node_modules/@stryker-mutator and the packages it " \
               "loads) appeared during the session" in q for q in asked), asked  # fmt: skip
    assert "Mutation-Score" not in git(repo, "log", "--format=%B")
    assert session_state(plan, 1)["strength"]["total"] == 0


def test_without_stryker_a_minimum_score_is_not_passed(tmp_path: Path) -> None:
    """Not measured is not passed: with a minimum the session stops, saying why; without
    one it is committed, saying it was not measured (tests/strength/test_stryker.py)."""
    plan, repo, agent = _shop(tmp_path)
    code, out = _execute(plan, repo, agent, "--min-mutation-score", "100")
    assert code == ExitCode.VERIFICATION_FAILED, out
    assert (
        "test strength was not measured (JavaScript/TypeScript mutants are made by Stryker, "
        "which this project does not have (npm install --save-dev @stryker-mutator/core)), "
        "and a minimum that was not measured has not passed (--min-mutation-score 100)"
    ) in out
    assert "Mutation-Score" not in git(repo, "log", "--format=%B")


def test_the_stryker_the_session_started_with_runs_whatever_bin_holds(tmp_path: Path) -> None:
    """The agent replaces `node_modules/.bin/stryker`: the program at Stryker's entry
    runs (ours: one of three killed), its report comes over the socket, and the forger's
    report is never asked for."""
    modules = tmp_path / "modules"
    _stand_in(modules)
    plan, repo, agent = _shop(tmp_path, modules)
    planted = {"node_modules/.bin/stryker": FORGER}
    planting = _planting(tmp_path, agent, planted)
    code, out = _execute(plan, repo, planting, "--min-mutation-score", "100")
    assert code == ExitCode.VERIFICATION_FAILED, out
    assert _ENVIRONMENT in out
    asked = "\n".join(_taken_in(plan, repo, planting))
    assert "test strength 1/3 (33%) is below the minimum 100% (--min-mutation-score)" in asked


def test_a_stryker_changed_during_the_session_is_not_run(tmp_path: Path) -> None:
    modules = tmp_path / "modules"
    _stand_in(modules)
    plan, repo, agent = _shop(tmp_path, modules)
    before = program.pin(repo)
    planted = {"node_modules/@stryker-mutator/core/bin/stryker.js": FORGER}
    planting = _planting(tmp_path, agent, planted)
    code, out = _execute(plan, repo, planting, "--min-mutation-score", "100")
    assert code == ExitCode.VERIFICATION_FAILED, out
    assert _ENVIRONMENT in out
    asked = _taken_in(plan, repo, planting)
    assert any("Stryker's program (node_modules/@stryker-mutator and the packages it " \
               "loads) changed during the session" in q for q in asked), asked  # fmt: skip
    assert program.pin(repo) != before
    assert "Mutation-Score" not in git(repo, "log", "--format=%B")


@pytest.mark.skipif(not MODULES, reason="PE_TEST_STRYKER_MODULES names no node_modules")
def test_the_real_stryker_scores_a_session_whose_bin_the_agent_replaced(tmp_path: Path) -> None:
    """Issue 43, finding 10 as found: with Stryker installed, the agent's `.bin/stryker`
    wrote 16/16 for tests that kill 11 of 13. Stryker itself runs: 11/13, stopped."""
    modules = tmp_path / "modules"
    modules.mkdir()
    for entry in Path(MODULES).iterdir():  # the install shared, `.bin` the project's own
        if entry.name != ".bin":
            (modules / entry.name).symlink_to(entry)
    shutil.copytree(Path(MODULES) / ".bin", modules / ".bin", symlinks=True)
    plan, repo, agent = _shop(tmp_path, modules)
    planted = {"node_modules/.bin/stryker": FORGER}
    code, out = _execute(plan, repo, _planting(tmp_path, agent, planted),
                         "--min-mutation-score", "100", *SLOW)  # fmt: skip
    assert code == ExitCode.VERIFICATION_FAILED, out
    assert "Test strength: 11/13 mutants of the changed lines killed (85%" in out


#: A test that checks nothing, and fails whenever Stryker names an active mutant.
ACTIVE_MUTANT_TEST = """const test = require('node:test');
const assert = require('node:assert');
const { total } = require('../src/shop.js');
if (process.env.__STRYKER_ACTIVE_MUTANT__) process.exit(1);
test('adds the prices', () => assert.ok(total([1, 2]) !== undefined));
test('refuses a negative price', () => assert.throws(() => total([-1])));
"""


@pytest.mark.skipif(not MODULES, reason="PE_TEST_STRYKER_MODULES names no node_modules")
def test_tests_that_fail_whenever_a_mutant_is_active_kill_nothing(tmp_path: Path) -> None:
    """Stryker tells the test command which mutant is active (`__STRYKER_ACTIVE_MUTANT__`):
    one line made every mutant "killed". Each kill is run again with an id that names no
    mutant: these tests fail there too, so none counts."""
    plan, repo, agent = _shop(tmp_path)
    (repo / "node_modules").symlink_to(MODULES, target_is_directory=True)
    red = tmp_path / "solutions" / "session-1" / "red" / "test" / "shop.test.js"
    red.write_text(ACTIVE_MUTANT_TEST, encoding="utf-8")
    code, out = _execute(plan, repo, agent, "--min-mutation-score", "100", *SLOW)
    assert code == ExitCode.VERIFICATION_FAILED, out
    strength = session_state(plan, 1)["strength"]
    assert strength["total"] == 13 and strength["killed"] <= 2, strength
