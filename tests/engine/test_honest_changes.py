"""P26: honest test-first work passes unattended, through the real CLI, in the shapes real
history takes (each seen in ../shared/replay; docs/performance.md has the figures):

- an existing test's expectation updated in RED, so it now fails (more-itertools
  `bf3b6673e4`);
- a test file whose other tests the project skips when a package is missing
  (tabulate's `importorskip("pandas")`): the skips stay the project's;
- a test deleted because the behaviour it described changed (parse `55467d28c2`) or went
  with the code (boltons `289edfcd20`): it fails against the new code; a deleted test
  that still passes there pinned behaviour that is still there: a person's decision.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.engine.helpers import commits, replay_cmd, run_unattended

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

LIB = "OLD_LIMIT = 3\n\n\ndef double(x):\n    return x * 2\n"
TESTS = (
    "import pytest\n\nimport lib\n\n\n"
    "def test_double():\n    assert lib.double(2) == 4\n\n\n"
    "def test_old_limit():\n    assert lib.OLD_LIMIT == 3\n\n\n"
    "def test_with_a_package_not_installed():\n"
    "    pytest.importorskip('no_such_package_here')\n\n\n"
    "@pytest.mark.skip(reason='temporarily disabled')\n"
    "def test_disabled():\n    assert False\n"
)


def _project(repo: Path, tmp: Path, red: str, green: str) -> tuple[Path, str]:
    (repo / "lib.py").write_text(LIB, encoding="utf-8")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_lib.py").write_text(TESTS, encoding="utf-8")
    (repo / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n", encoding="utf-8")
    plan = repo / "project-plans" / "change"
    plan.mkdir(parents=True)
    (plan / "PHASE_1_CHANGE.md").write_text(PLAN, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the project")
    solutions = tmp / "solutions"
    for step, rel, text in (("red", "tests/test_lib.py", red), ("green", "lib.py", green)):
        path = solutions / "session-1" / step / rel
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
    return plan, replay_cmd(solutions)


def test_an_expectation_updated_in_red_beside_the_projects_own_skips_passes(
    git_repo: Path, tmp_path: Path
) -> None:
    red = TESTS.replace("assert lib.double(2) == 4", "assert lib.double(2) == 5")
    plan, agent = _project(git_repo, tmp_path, red, LIB.replace("x * 2", "x * 2 + 1"))
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("0\n"), out
    assert commits(git_repo)[0] == "feat(change): Change Things"


@pytest.mark.parametrize(
    ("deleted", "added", "green", "said"),
    [
        # the code it tested is gone (boltons `289edfcd20`)
        (
            "def test_old_limit():\n    assert lib.OLD_LIMIT == 3\n",
            "def test_triple():\n    assert lib.triple(2) == 6\n",
            LIB.replace("OLD_LIMIT = 3\n", "") + "\n\ndef triple(x):\n    return x * 3\n",
            "the session removed what it tested (lib.py: OLD_LIMIT)",
        ),
        # what it described changed, and the session's new test asks for the change
        # (parse `55467d28c2`)
        (
            "def test_double():\n    assert lib.double(2) == 4\n",
            "def test_double_and_one():\n    assert lib.double(2) == 5\n",
            LIB.replace("x * 2", "x * 2 + 1"),
            "it fails because of the change to lib.py: double, which this session's tests need",
        ),
    ],
    ids=["code-gone", "behaviour-changed"],
)
def test_a_test_deleted_with_what_it_described_passes(
    git_repo: Path, tmp_path: Path, deleted: str, added: str, green: str, said: str
) -> None:
    plan, agent = _project(git_repo, tmp_path, TESTS.replace(deleted, added), green)
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("0\n"), out
    assert f"deleted in RED; {said}; accepted" in out
    assert deleted.split("\n")[0] not in git(git_repo, "show", "HEAD:tests/test_lib.py")


def test_a_test_deleted_while_what_it_tested_stays_goes_to_a_person(
    git_repo: Path, tmp_path: Path
) -> None:
    red = TESTS.replace(
        "def test_old_limit():\n    assert lib.OLD_LIMIT == 3\n",
        "def test_triple():\n    assert lib.triple(2) == 6\n",
    )
    green = LIB + "\n\ndef triple(x):\n    return x * 3\n"
    plan, agent = _project(git_repo, tmp_path, red, green)
    out = run_unattended(plan, git_repo, agent)
    assert out.startswith("16\n"), out
    assert "tests in tests/test_lib.py weakened during GREEN" in out
    assert "test_old_limit (deleted in RED, yet it still passes against the new code" in out
    assert commits(git_repo)[0] == "the project"
