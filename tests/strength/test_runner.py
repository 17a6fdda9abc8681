"""A mutation run for real: the project's pytest with the executor's plugin, in a copy of
a git tree, weak tests against strong ones, a hanging mutant, the budget, the sweep."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from executor.strength.mutants import mutants_of
from executor.strength.runner import PREFIX, Measured, measure, sweep
from executor.testrun import TestRun, run_tests
from executor.vcs import GitRepo
from tests.conftest import git

CODE = """def grade(n):
    if n >= 50:
        return "pass"
    return "fail"


def count(n):
    i = 0
    while i < n:
        i += 1
    return i
"""
STRONG = """from calc import count, grade


def test_grade_at_the_boundary():
    assert grade(50) == "pass"
    assert grade(49) == "fail"


def test_count():
    assert count(3) == 3
    assert count(0) == 0
"""
WEAK = """from calc import count, grade


def test_grade():
    assert grade(70)
"""


def project(root: Path, tests: str) -> tuple[GitRepo, str, str]:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "commit", "-q", "--allow-empty", "-m", "base")
    (root / "calc.py").write_text(CODE, encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(tests, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "work")
    repo = GitRepo(root)
    return repo, repo.tree_of("HEAD~1"), repo.tree_of("HEAD")


def run(
    repo: GitRepo, base: str, tree: str, *, budget: float = 120, also: Sequence[str] = ()
) -> Measured:
    lines = repo.changed_lines(base, tree, ["calc.py"])
    mutants = mutants_of(
        "calc.py", repo.blob(repo.blob_at(tree, "calc.py") or ""), lines["calc.py"]
    )

    def runner(
        command: str,
        cwd: Path,
        limit: float,
        env: dict[str, str],
        log: Path | None,
        fds: tuple[int, ...],
    ) -> TestRun:
        return run_tests(command, cwd=cwd, timeout_s=limit, env=env, log=log, pass_fds=fds)

    return measure(
        mutants, export=lambda dest: repo.export_tree(tree, dest), run=runner,
        prefix=["python", "-m", "pytest"], test_files=["tests/test_calc.py", *also], test_ids=None,
        collect=[], budget=budget,
    )  # fmt: skip


def test_weak_tests_let_mutants_through_and_name_them(tmp_path: Path) -> None:
    repo, base, tree = project(tmp_path / "weak", WEAK)
    got = run(repo, base, tree)
    assert not got.problem and not got.partial
    shown = {f"{s.mutant.diff()} survived: {s.why}" for s in got.survivors}
    assert "calc.py:2: `if n >= 50:` -> `if n > 50:` survived: no test checks n == 50" in shown
    assert "calc.py:10: `i += 1` -> `i -= 1` survived: no test runs this line" in shown
    assert got.killed < got.judged / 2
    # nothing of the run is left in the repository or the temporary folder
    assert git(repo.root, "status", "--porcelain") == ""
    assert not list(Path(tempfile.gettempdir()).glob(f"{PREFIX}{os.getpid()}-*"))


def test_strong_tests_kill_every_mutant_a_hanging_one_too(tmp_path: Path) -> None:
    repo, base, tree = project(tmp_path / "strong", STRONG)
    got = run(repo, base, tree)
    assert got.survivors == [] and got.killed == got.judged == got.made > 6
    assert got.timeouts >= 1  # `i -= 1` never ends: the child is killed, the mutant counted


def test_a_sessions_data_file_or_one_it_deleted_is_not_given_to_pytest(
    tmp_path: Path,
) -> None:
    """Found replaying sqlparse: a session's data file under tests/ (RED wrote it), or
    one it deleted, given to pytest stopped the run ("not found")."""
    repo, base, tree = project(tmp_path / "gone", STRONG)
    (repo.root / "tests" / "files").mkdir()
    (repo.root / "tests" / "files" / "case.sql").write_text("select 1;\n", "utf-8")
    tree = repo.record_tree().tree
    got = run(repo, base, tree, also=["tests/files/case.sql", "tests/files/gone.sql"])
    assert not got.problem and got.killed == got.judged == got.made > 6


def test_past_the_budget_the_score_is_partial(tmp_path: Path) -> None:
    repo, base, tree = project(tmp_path / "budget", STRONG)
    got = run(repo, base, tree, budget=0.01)
    assert got.partial and got.judged < got.made


def test_copies_left_by_a_dead_executor_are_swept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    left = tmp_path / f"{PREFIX}{dead}-abc"
    (left / "tree").mkdir(parents=True)
    alive = tmp_path / f"{PREFIX}{os.getpid()}-def"
    alive.mkdir()
    assert sweep() == [left]
    assert not left.exists() and alive.exists()
