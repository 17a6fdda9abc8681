"""A mutation score the session's tests forge is not believed (docs/test-strength.md,
"Who decides a mutant's fate"): the real CLI, real git, the replay agent, `--yes`.

Each test is session 1 of the ledger with its tests' assertions loosened (they score
low: tests/engine/test_strength.py) and a few lines more in the test module, run with
`--min-mutation-score 100`: what those lines write or do may not lift the score."""

from __future__ import annotations

from pathlib import Path

import pytest

from executor.exitcodes import ExitCode
from tests.conftest import git, run_cli
from tests.engine.helpers import make_project, replay_cmd, session_state
from tests.engine.test_strength import loosened

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def mutation_step_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite turns the step off where it is not the subject (tests/conftest.py)."""
    monkeypatch.delenv("EXECUTOR_MUTATION_BUDGET", raising=False)


def _with(tmp: Path, lines: str) -> Path:
    """The loosened solutions, `lines` appended to session 1's test module."""
    solutions = loosened(tmp)
    test = solutions / "session-1" / "red" / "tests" / "test_models.py"
    test.write_text(test.read_text("utf-8") + "\n" + lines, encoding="utf-8")
    return solutions


def _held(git_repo: Path, solutions: Path, *extra: str) -> str:
    """Run session 1 unattended with a minimum of 100%: it stops below it (exit 16), and
    nothing is committed; what it said."""
    plan = make_project(git_repo)
    proc = run_cli("execute-session", "1", "--plan", str(plan), "--yes", "--agent-command",
                   replay_cmd(solutions), "--max-retries", "0", "--min-mutation-score", "100",
                   "--checkpoints", "none", *extra, cwd=git_repo, timeout=300)  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == ExitCode.VERIFICATION_FAILED, out
    assert "Mutation-Score" not in git(git_repo, "log", "--format=%B")
    strength = session_state(plan, 1)["strength"]
    assert strength["killed"] < strength["total"] + strength["unrun"] or not strength["total"]
    return out


#: Issue 43, finding 3: the results file the spec names, written by the test module.
RESULTS_FILE = """
import json as _json, os as _os

_SPEC = _os.environ.get("EXECUTOR_MUTATION_SPEC")
if _SPEC:
    with open(_SPEC, encoding="utf-8") as _f:
        _spec = _json.load(_f)
    with open(_spec["results"], "a", encoding="utf-8") as _out:
        _out.write(_json.dumps({"baseline": {"tests": 1, "failing": 0, "others": 0}}) + "\\n")
        for _m in _spec["mutants"]:
            _out.write(_json.dumps({"key": _m["key"], "status": "killed", "tests": 1}) + "\\n")
    _os._exit(0)
"""


#: A whole stream of records as the judge writes them (the plugin's spec in hand), every
#: mutant killed, written to every socket the test module's process holds, and to those
#: of its parent (the judge) opened again through /proc.
SOCKETS = """
import json as _json, os as _os, stat as _stat, sys as _sys

_plugin = _sys.modules.get("executor_mutation")
_spec = getattr(_plugin, "_WORKER", None)
_n = len(_spec[0]["mutants"]) if _spec else 13
_forged = [{"baseline": {"tests": 1, "failing": 0, "others": 0}}]
_forged += [{"i": i, "status": "killed", "why": "", "tests": 1, "suite": False, "seconds": 0}
            for i in range(_n)]
_forged.append({"end": {"records": _n}})
_data = "".join(_json.dumps(r) + "\\n" for r in _forged).encode()
for _pid in ("self", str(_os.getppid())) if _spec else ():
    try:
        _fds = _os.listdir(f"/proc/{_pid}/fd")
    except OSError:
        continue
    for _fd in _fds:
        try:
            if not _stat.S_ISSOCK(_os.stat(f"/proc/{_pid}/fd/{_fd}").st_mode):
                continue
            if _pid == "self":
                _os.write(int(_fd), _data)
            else:
                with open(f"/proc/{_pid}/fd/{_fd}", "wb") as _f:
                    _f.write(_data)
        except OSError:
            pass
"""

#: The test process answers every question of the judge "killed", running nothing.
KILLED = """
import sys as _sys

_worker = _sys.modules.get("executor_mutation.worker")
if _worker is not None:
    _worker.Worker.attempt = lambda self, nodeids, codes, limit: ("killed", "0")
"""

#: The test process ends the judge (its parent) once it has the baseline, at the first
#: mutant it is asked about.
JUDGE_KILLED = """
import os as _os, signal as _signal, sys as _sys

_worker = _sys.modules.get("executor_mutation.worker")
if _worker is not None:
    _worker.Worker.attempt = lambda self, nodeids, codes, limit: (
        _os.kill(_os.getppid(), _signal.SIGKILL), ("killed", "0"))[1]
"""


#: The test process says "killed" to the first question, taking the budget's seconds to
#: say it, then answers as it should (the sham that follows included): the budget ends
#: after one mutant, killed.
STALLED = """
import sys as _sys, time as _time

_worker = _sys.modules.get("executor_mutation.worker")
if _worker is not None:
    _honest, _asked = _worker.Worker.attempt, []

    def _attempt(self, nodeids, codes, limit):
        _asked.append(1)
        if len(_asked) > 1:
            return _honest(self, nodeids, codes, limit)
        _time.sleep(8)
        return "killed", "0"

    _worker.Worker.attempt = _attempt
"""


def test_a_test_module_cannot_write_the_mutation_results(git_repo: Path, tmp_path: Path) -> None:
    out = _held(git_repo, _with(tmp_path, RESULTS_FILE))
    assert "is below the minimum 100% (--min-mutation-score)" in out


def test_a_test_module_cannot_reach_the_judges_channel(git_repo: Path, tmp_path: Path) -> None:
    out = _held(git_repo, _with(tmp_path, SOCKETS))
    assert "is below the minimum 100% (--min-mutation-score)" in out, out


def test_a_test_process_that_answers_killed_fails_the_shams(git_repo: Path, tmp_path: Path) -> None:
    """The same tests with the code as it is (a sham) are "killed" too: no kill of
    theirs counts."""
    out = _held(git_repo, _with(tmp_path, KILLED))
    assert "not judged: the tests that reach them fail without them too" in out


def test_a_judge_killed_mid_run_measures_nothing(git_repo: Path, tmp_path: Path) -> None:
    out = _held(git_repo, _with(tmp_path, JUDGE_KILLED))
    assert "test strength was not measured (the mutation run's results are not whole: " \
        "no end)" in out  # fmt: skip
    assert "a minimum that was not measured has not passed (--min-mutation-score 100)" in out


def test_a_minimum_counts_what_the_budget_left_unrun(git_repo: Path, tmp_path: Path) -> None:
    """A partial score of 1/1 is not 100%: the mutants the budget left unrun count as not
    killed against a minimum."""
    out = _held(git_repo, _with(tmp_path, STALLED), "--mutation-budget", "6")
    assert "partial: the mutation budget ran out, 12 not run" in out, out
    assert "test strength 1/1 (8%, 12 more not run within the budget) is below the minimum " \
        "100%" in out  # fmt: skip
