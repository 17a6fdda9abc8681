"""P26, the last false stops of real history (issue 37), through the real CLI with real
git and pytest, each in the shape the replayed libraries gave it:

- a tox.ini edited while the plan runs `python -m pytest` (click `d73083e3`); pytest's own
  section of it is still infrastructure, and a person who took the tests in can take it
  in too;
- a module-level skip for an old Python taken away;
- a RED whose tests do not fail says so first, before what it weakened;
- xfail tests that pass, counted as pytest counts them;
- a test the session did not touch that fails once and passes when run again;
- a test class moved to a new module (cachetools `86352aed2b`), and earlier sessions'
  tests a person's own commit removed (sessions committed by hand after a skip).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import forkserver
from tests.conftest import git
from tests.engine.helpers import (
    commits,
    host_loop,
    make_project,
    replay_cmd,
    run_unattended,
    session_state,
)

pytestmark = pytest.mark.slow

PLAN = """# Phase 1: Change

## Session 1: Change Things (TDD)

#### Step 1: Write Tests FIRST (RED)
Change `tests/test_lib.py`.

**Run tests**: `python -m pytest tests/test_lib.py -q`

#### Step 2: Implement (GREEN)
Change `lib.py`.

**Run tests**: `python -m pytest tests/test_lib.py -q`

### Files to Create/Modify
- `lib.py`
- `tests/test_lib.py`
"""

LIB = "def double(x):\n    return x * 2\n"
TESTS = (
    "import lib\n\n\n"
    "def test_double():\n    assert lib.double(2) == 4\n\n\n"
    "def test_double_zero():\n    assert lib.double(0) == 0\n"
)
PLUS_ONE = LIB.replace("x * 2", "x * 2 + 1")
#: RED's honest change: an expectation updated with the behaviour
RED = TESTS.replace("lib.double(2) == 4", "lib.double(2) == 5").replace(
    "lib.double(0) == 0", "lib.double(0) == 1"
)
TOX = (
    "[tox]\nenvlist = py310, py311\n\n[testenv]\ndeps = pytest\ncommands = pytest {posargs}\n\n"
    "[pytest]\ntestpaths = tests\n"
)


def _project(
    repo: Path, tmp: Path, red: dict[str, str], green: dict[str, str], *,
    tests: str = TESTS, more: dict[str, str] | None = None, plan: str = PLAN,
) -> tuple[Path, str]:  # fmt: skip
    """The project, the plan, and a replay agent writing `red` in RED, `green` in GREEN."""
    files = {"lib.py": LIB, "tests/test_lib.py": tests, **(more or {})}
    files[".gitignore"] = "__pycache__/\n.pytest_cache/\n"
    files["project-plans/change/PHASE_1_CHANGE.md"] = plan
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the project")
    solutions = tmp / "solutions"
    for step, written in (("red", red), ("green", green)):
        for rel, text in written.items():
            path = solutions / "session-1" / step / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return repo / "project-plans" / "change", replay_cmd(solutions)


# -- 1: what runs the tests decides what is their infrastructure --------------------------


def test_a_tox_ini_edited_while_pytest_runs_the_tests_passes(
    git_repo: Path, tmp_path: Path
) -> None:
    """click `d73083e3` drops Python 3.7 from tox.ini's environments; nothing runs tox."""
    green = {"lib.py": PLUS_ONE, "tox.ini": TOX.replace("py310, py311", "py311, py312")}
    plan, agent = _project(git_repo, tmp_path, {"tests/test_lib.py": RED}, green,
                           more={"tox.ini": TOX})  # fmt: skip
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("0\n"), out
    assert "py312" in git(git_repo, "show", "HEAD:tox.ini")


def test_pytests_section_of_tox_ini_is_infrastructure_a_person_can_take_in(
    git_repo: Path, tmp_path: Path
) -> None:
    """RED marks an existing test (a weakening: a person takes it in) and GREEN changes
    tox.ini's `[pytest]`, which pytest reads: the question after it offered only retry,
    show diff, roll back, skip and pause. It offers to take the change in now."""
    red = RED.replace("def test_double_zero", "@pytest.mark.slow\ndef test_double_zero")
    red = "import pytest\n\n" + red
    tox = TOX + "markers =\n    slow: slow tests\n"
    plan, agent = _project(git_repo, tmp_path, {"tests/test_lib.py": red},
                           {"lib.py": PLUS_ONE, "tox.ini": tox}, more={"tox.ini": TOX})  # fmt: skip
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("16\n") and "weakened during RED" in out, out
    asked: list[list[str]] = []

    def answer(request: dict[str, Any]) -> str:
        options = [o["value"] for o in request["context"]["options"]]
        if request["context"].get("checkpoint") != "escalation":
            return "approve"
        asked.append(options)
        return next(o for o in ("accept_tests", "accept_infra") if o in options)

    args = ["execute-session", "1", "--plan", str(plan), "--agent-command", agent]
    proc = host_loop(args, repo=git_repo, plan=plan, answer=answer)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [("accept_tests" in o, "accept_infra" in o) for o in asked] == [
        (True, False),
        (False, True),
    ]
    assert "slow: slow tests" in git(git_repo, "show", "HEAD:tox.ini")


def test_a_file_the_plan_says_goes_is_checked_gone(git_repo: Path, tmp_path: Path) -> None:
    """click `d73083e3` deletes `requirements/tests37.txt`, which its plan lists as
    "(delete)": the evidence check wanted it to exist."""
    listed = PLAN.replace(
        "- `tests/test_lib.py`\n", "- `tests/test_lib.py`\n- `old.txt` (delete)\n"
    )
    plan, agent = _project(git_repo, tmp_path, {"tests/test_lib.py": RED}, {"lib.py": PLUS_ONE},
                           more={"old.txt": "x\n"}, plan=listed)  # fmt: skip
    removes = 'if [ "$EXECUTOR_TDD_STEP" = green ]; then rm old.txt; fi'
    out = run_unattended(plan, git_repo, f"sh -c {shlex.quote(agent + ' && ' + removes)}")
    assert out.startswith("0\n"), out
    assert "old.txt" not in git(git_repo, "ls-files")


# -- 2: a skip taken away makes the suite stronger ------------------------------------------


def test_a_module_level_skip_for_an_old_python_taken_away_passes(
    git_repo: Path, tmp_path: Path
) -> None:
    skipped = (
        "import sys\n\nimport pytest\n\n"
        "if sys.version_info < (3, 0):\n    pytest.skip('Python 2', allow_module_level=True)\n\n"
    )
    plan, agent = _project(git_repo, tmp_path, {"tests/test_lib.py": RED},
                           {"lib.py": PLUS_ONE}, tests=skipped + TESTS)  # fmt: skip
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("0\n"), out
    assert "allow_module_level" not in git(git_repo, "show", "HEAD:tests/test_lib.py")


# -- 3: the deciding reason first ---------------------------------------------------------


def test_a_red_that_does_not_fail_says_so_before_what_it_weakened(
    git_repo: Path, tmp_path: Path
) -> None:
    red = "import pytest\n\n" + TESTS.replace(
        "def test_double_zero", "@pytest.mark.skip(reason='later')\ndef test_double_zero"
    )
    plan, agent = _project(git_repo, tmp_path, {"tests/test_lib.py": red}, {"lib.py": LIB})
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("16\n"), out
    reason = out.split("Session 1 RED check failed: ", 1)[1]
    first = "the tests did not fail, so this is not RED: 0 failed, 1 passed, 1 skipped; "
    assert reason.startswith(first + "tests in tests/test_lib.py weakened during RED"), reason


# -- 4: counts as the runner counts them ----------------------------------------------------


def test_xfail_tests_that_pass_are_counted_as_pytest_counts_them(
    git_repo: Path, tmp_path: Path
) -> None:
    later = (
        "\n\n@pytest.mark.xfail(reason='not yet')\ndef test_later():\n"
        "    assert lib.double(3) > 0\n"
    )
    red = {"tests/test_lib.py": "import pytest\n\n" + RED + later}
    plan, agent = _project(git_repo, tmp_path, red, {"lib.py": PLUS_ONE},
                           tests="import pytest\n\n" + TESTS + later)  # fmt: skip
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("0\n"), out
    assert "running: python -m pytest tests/test_lib.py -q: 2 failed, 0 passed, 1 xpassed" in out
    assert "0 failed, 2 passed, 1 xpassed" in out


# -- flaky: fails, then passes on the same tree ----------------------------------------------


def test_a_flaky_test_the_session_did_not_touch_neither_stops_it_nor_counts(
    git_repo: Path, tmp_path: Path
) -> None:
    """A timing test of the project's fails on every other run (the machine under load):
    RED's run and the whole suite in GREEN each meet it failing once."""
    count = tmp_path / "timing-runs"
    timing = (
        "\n\ndef test_timing():\n    import pathlib\n\n"
        f"    runs = pathlib.Path({str(count)!r})\n"
        "    n = int(runs.read_text()) + 1 if runs.exists() else 1\n"
        "    runs.write_text(str(n))\n"
        "    assert n % 2 == 0, 'too slow under load'\n"
    )
    plan, agent = _project(git_repo, tmp_path, {"tests/test_lib.py": RED + timing},
                           {"lib.py": PLUS_ONE}, tests=TESTS + timing)  # fmt: skip
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("0\n"), out
    assert out.count("1 failing test(s) this session did not touch: running them again") == 2
    record = session_state(plan, 1)
    assert record["flaky"] == ["tests.test_lib::test_timing"]
    # what the checkpoint said: the suite counts it neither as failing nor as passing
    assert "The whole suite (`pytest`): 0 failed, 2 passed, 1 flaky" in record["last_summary"]
    assert (
        "Flaky here (1 test(s) the session did not touch failed, then passed when run again "
        "on the same tree; counted neither as failing nor as passing): tests.test_lib::test_timing"
    ) in record["last_summary"]
    # RED's failures are its own tests only
    assert record["red"]["failing"] == [
        "tests.test_lib::test_double",
        "tests.test_lib::test_double_zero",
    ]


# -- tests moved, and tests a person's commit removed ---------------------------------------


def test_a_test_moved_to_a_new_module_is_the_same_test(git_repo: Path, tmp_path: Path) -> None:
    """cachetools `86352aed2b` moves a test class to a new module as it changes the code."""
    moved = "import lib\n\n\ndef test_double_zero():\n    assert lib.double(0) == 1\n"
    red = {"tests/test_lib.py": RED.split("\n\n\ndef test_double_zero")[0] + "\n",
           "tests/test_zero.py": moved}  # fmt: skip
    plan, agent = _project(git_repo, tmp_path, red, {"lib.py": PLUS_ONE})
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("0\n"), out


def test_a_test_moved_and_renamed_whose_assertions_live_on_passes(
    git_repo: Path, tmp_path: Path
) -> None:
    """cachetools `86352aed2b` again: `test_typedmethod` became `test_typed` in the new
    module, the same assertions on methods of new names. Deleted, it still passes
    against the new code; its assertions live on in the test RED wrote."""
    half = "\n\ndef half(x):\n    return x / 2\n"
    tests = TESTS + "\n\ndef test_half():\n    assert lib.half(4) == 2\n"
    moved = "from lib import half\n\n\ndef test_halves():\n    assert half(4) == 2\n"
    red = {"tests/test_lib.py": RED, "tests/test_half.py": moved}
    plan, agent = _project(git_repo, tmp_path, red, {"lib.py": PLUS_ONE + half},
                           tests=tests, more={"lib.py": LIB + half})  # fmt: skip
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("0\n"), out
    assert (
        "tests/test_lib.py::test_half: deleted in RED; its assertions live on in "
        "tests/test_half.py::test_halves; accepted"
    ) in out


def test_a_test_moved_and_emptied_is_still_weakened(git_repo: Path, tmp_path: Path) -> None:
    emptied = "def test_double_zero():\n    pass\n"
    red = {"tests/test_lib.py": RED.split("\n\n\ndef test_double_zero")[0] + "\n",
           "tests/test_zero.py": emptied}  # fmt: skip
    plan, agent = _project(git_repo, tmp_path, red, {"lib.py": PLUS_ONE})
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("16\n"), out
    assert "test_double_zero (its body emptied)" in out


def test_earlier_tests_a_persons_commit_removed_are_not_the_next_sessions_loss(
    git_repo: Path, tmp_path: Path
) -> None:
    """A session is skipped and its real change committed by hand (the replay's person
    does this): it removed a test an earlier session wrote, and every later session
    stopped: "tests that passed when earlier sessions were committed are gone"."""
    plan = make_project(git_repo)
    assert _run_number(plan, git_repo, replay_cmd(), 1).startswith("0\n")
    models = git_repo / "tests" / "test_models.py"
    text = models.read_text("utf-8")
    start = text.index("def test_to_money_rejects_floats")
    end = text.find("\ndef ", start + 1)
    models.write_text(text[:start] + (text[end + 1 :] if end != -1 else ""), "utf-8")
    git(git_repo, "commit", "-qam", "by hand: drop a test")
    out = _run_number(plan, git_repo, replay_cmd(), 2)
    assert out.startswith("0\n"), out
    assert commits(git_repo)[0] == "feat(ledger): Balances"


def _run_number(plan: Path, repo: Path, agent: str, number: int) -> str:
    proc = forkserver.run_process(
        [sys.executable, "-m", "executor", "execute-session", str(number), "--plan", str(plan),
         "--yes", "--max-retries", "0", "--agent-command", agent],
        cwd=repo, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return f"{proc.returncode}\n{proc.stdout}{proc.stderr}"
