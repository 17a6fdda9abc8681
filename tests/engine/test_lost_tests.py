"""Issue 43's findings 4 to 6 through the real CLI with `--yes`: what RED took from the
project's own tests is asked again of GREEN's code, where the tests really run
(`executor.workflows.tdd.session.checks.losses`; P30 in docs/reliability.md).

Each hostile test failed on the engine before (exit 0, the broken code committed), and
beside each stands the honest shape it must not stop.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.engine.helpers import commits, replay_cmd, run_unattended

pytestmark = pytest.mark.slow

PLAN = """# Phase 1: Calc

## Session 1: {title} (TDD)

#### Step 1: Write Tests FIRST (RED)
{red}

**Run tests**: `python -m pytest tests/test_calc.py -q`

#### Step 2: Implement (GREEN)
Change `calc.py`.

**Run tests**: `python -m pytest tests/test_calc.py -q`

### Files to Create/Modify
- `calc.py`
- `tests/test_calc.py`
"""

CALC = (
    "import json\nfrom pathlib import Path\n\n\n"
    "def add(a, b):\n    return a + b\n\n\n"
    "def sub(a, b):\n    return a - b\n\n\n"
    "def rate(name):\n    return json.loads(Path(name).read_text())['rate']\n"
)
TESTS = (
    "from calc import add, rate, sub\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n    assert add(0, 0) == 0\n\n\n"
    "def test_sub():\n    assert sub(5, 3) == 2\n\n\n"
    "def test_local_rate():\n    assert rate('tests/data/local.json') == 3\n"
)
MUL = "\n\ndef mul(a, b):\n    return a * b\n"
TEST_MUL = "\n\ndef test_mul():\n    from calc import mul\n\n    assert mul(2, 3) == 6\n"


def _project(
    repo: Path, tmp: Path, *, red: str, green: dict[str, str], title: str = "Multiply",
    plan_red: str = "Add `test_mul` to `tests/test_calc.py`.",
) -> tuple[Path, str]:  # fmt: skip
    """The project (its rates in a git-ignored local file), a plan, and a replay agent
    whose RED writes `red` as the test file and whose GREEN writes `green`."""
    (repo / "calc.py").write_text(CALC, encoding="utf-8")
    (repo / "tests" / "data").mkdir(parents=True)
    (repo / "tests" / "test_calc.py").write_text(TESTS, encoding="utf-8")
    (repo / "tests" / "data" / "local.json").write_text('{"rate": 3}\n', encoding="utf-8")
    ignore = "__pycache__/\n.pytest_cache/\ntests/data/\n"
    (repo / ".gitignore").write_text(ignore, encoding="utf-8")
    plan = repo / "project-plans" / "calc"
    plan.mkdir(parents=True)
    (plan / "PHASE_1_CALC.md").write_text(PLAN.format(title=title, red=plan_red), "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the project")
    solutions = tmp / "solutions"
    for step, files in (("red", {"tests/test_calc.py": red}), ("green", green)):
        for rel, text in files.items():
            path = solutions / "session-1" / step / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return plan, replay_cmd(solutions)


BROKEN_ADD = CALC.replace("    return a + b\n", "    return 0 if a == 2 else a + b\n", 1)
BROKEN_SUB = CALC.replace("return a - b", "return a + b")


def test_43_hostile_an_assertion_removed_is_not_excused_by_an_unrelated_failure(
    git_repo: Path, tmp_path: Path
) -> None:
    """RED takes `assert add(2, 3) == 5` out of the project's `test_add` and has it import
    `mul`, which does not exist yet, so the test fails in RED and counted as "asking for
    more"; GREEN writes `mul` and breaks `add`: committed, exit 0."""
    red = TESTS.replace("    assert add(2, 3) == 5\n", "    from calc import mul  # noqa: F401\n\n")
    plan, agent = _project(git_repo, tmp_path, red=red, green={"calc.py": BROKEN_ADD + MUL})
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("16\n"), out
    assert (
        "test_add (assertions or cases taken out in RED, and it fails against the new code "
        "because of the change to calc.py: add, which none of this session's tests asks for"
    ) in out
    assert commits(git_repo)[0] == "the project"


def test_43_hostile_a_deleted_test_whose_behaviour_the_session_breaks_is_a_regression(
    git_repo: Path, tmp_path: Path
) -> None:
    """A session about `mul` deletes the project's `test_sub` and breaks `sub`: it failed
    against the new code, so it counted as "behaviour this session changed", exit 0."""
    red = TESTS.replace("def test_sub():\n    assert sub(5, 3) == 2\n\n\n", "") + TEST_MUL
    plan, agent = _project(git_repo, tmp_path, red=red, green={"calc.py": BROKEN_SUB + MUL})
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("16\n"), out
    assert "tests in tests/test_calc.py weakened during GREEN" in out
    assert (
        "test_sub (deleted in RED, and it fails against the new code because of the change "
        "to calc.py: sub, which none of this session's tests asks for and the plan does not "
        "name: a regression unless you say otherwise)"
    ) in out
    assert commits(git_repo)[0] == "the project"


def test_43_a_deleted_test_the_plan_says_goes_is_accepted(git_repo: Path, tmp_path: Path) -> None:
    """The same change, but the plan's session says `sub` changes: it is the session's."""
    red = TESTS.replace("def test_sub():\n    assert sub(5, 3) == 2\n\n\n", "") + TEST_MUL
    plan, agent = _project(
        git_repo, tmp_path, red=red, green={"calc.py": BROKEN_SUB + MUL},
        plan_red="Add `test_mul`; `sub` adds from now on, so its old test goes.",
    )  # fmt: skip
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("0\n"), out
    assert "calc.py: sub, which the plan's session names; accepted" in out


def test_43_hostile_a_deleted_test_reading_an_ignored_file_is_judged_where_tests_run(
    git_repo: Path, tmp_path: Path
) -> None:
    """RED deletes `test_local_rate`, which reads a git-ignored data file: in the
    executor's copy of the tree the file was missing, the test failed there, and its
    deletion counted as "behaviour this session changed", though it passes in the
    checkout against the commit."""
    red = TESTS.replace(
        "\n\n\ndef test_local_rate():\n    assert rate('tests/data/local.json') == 3\n", "\n"
    ) + TEST_MUL  # fmt: skip
    plan, agent = _project(git_repo, tmp_path, red=red, green={"calc.py": CALC + MUL})
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("16\n"), out
    assert "test_local_rate (deleted in RED, yet it still passes against the new code" in out
    assert commits(git_repo)[0] == "the project"


def test_an_expectation_changed_with_an_assertion_taken_out_passes(
    git_repo: Path, tmp_path: Path
) -> None:
    """The honest shape of finding 4 (more-itertools `bf3b6673e4`): RED changes what
    `add(2, 3)` must give and drops the other assertion; the earlier version fails
    against GREEN's `add`, whose change the changed test itself needs."""
    red = TESTS.replace(
        "    assert add(2, 3) == 5\n    assert add(0, 0) == 0\n", "    assert add(2, 3) == 6\n"
    )
    green = {"calc.py": CALC.replace("    return a + b\n", "    return a + b + 1\n", 1)}
    plan, agent = _project(git_repo, tmp_path, red=red, green=green, title="Add One")
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("0\n"), out
    assert "it fails because of the change to calc.py: add, which this session's tests need" in out
