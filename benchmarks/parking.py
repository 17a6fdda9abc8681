"""What parking a session costs, and taking it up again (docs/engine.md, "A question with
nobody to ask"): the git commands each runs and its wall time, medians over the rounds.

Each round builds the story of tests/engine/test_parked.py in a fresh git repository: a
plan of three sessions whose session 1 removes an assertion in RED (a question), run
`--yes` with no terminal (session 1 parked, session 2 committed, session 3 waiting),
then run again with a person who accepts (session 1 taken up onto session 2's commit,
committed, session 3 run). The runs are in this process, with the replay agent as the
agent; parking and taking up are timed around their functions, and git commands counted
where `GitBase` starts them. Beside them: the median of the rounds' test runs, which a
session makes several of.

Goal: parking and taking up each cost less than one test run. Run: `python
benchmarks/parking.py [--runs N]` (exit 1 when the goal is missed).
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import executor.testrun as testrun
import executor.vcs.plumbing as plumbing
from executor.choices import Decision, Option
from executor.runoptions import Overrides
from executor.workflows.tdd.parking import lot
from executor.workflows.tdd.runner.opening import RunRequest
from executor.workflows.tdd.runner.run import Runner
from executor.workflows.tdd.runner.scope import PlanScope

F = TypeVar("F", bound=Callable[..., Any])
SECTION = (
    "## Session {n}: S{n} (TDD)\n\n#### Step 1: Write Tests FIRST (RED)\nChange `{test}`.\n\n"
    "**Run tests**: `python -m pytest {test} -q`\n\n#### Step 2: Implement (GREEN)\nChange "
    "`{code}`.\n\n**Run tests**: `python -m pytest {test} -q`\n\n### Files to Create/Modify\n"
    "- `{code}`\n- `{test}`\n\n### Dependencies\n{deps}\n\n"
)
LIB = "def double(x):\n    return x * 2\n"
TESTS = (
    "import lib\n\n\ndef test_double():\n    assert lib.double(2) == 4\n"
    "    assert lib.double(3) == 6\n"
)
FILES = {
    (1, "red", "tests/test_lib.py"): TESTS.replace("    assert lib.double(3) == 6\n", "")
    + "\n\ndef test_triple():\n    assert lib.triple(2) == 6\n",
    (1, "green", "lib.py"): LIB + "\n\ndef triple(x):\n    return x * 3\n",
    (
        2,
        "red",
        "tests/test_other.py",
    ): "import other\n\n\ndef test_one():\n    assert other.one()\n",
    (2, "green", "other.py"): "def one():\n    return 1\n",
    (
        3,
        "red",
        "tests/test_more.py",
    ): "import more\n\n\ndef test_more():\n    assert more.more(1)\n",
    (3, "green", "more.py"): "import lib\n\n\ndef more(x):\n    return lib.triple(x)\n",
}
counted = {"git": 0}
figures: dict[str, list[tuple[int, float]]] = {}


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _project(root: Path) -> tuple[Path, Path, str]:
    repo, solutions = root / "repo", root / "solutions"
    (repo / "tests").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "lib.py").write_text(LIB)
    (repo / "tests" / "test_lib.py").write_text(TESTS)
    (repo / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    plan = repo / "plan"
    plan.mkdir()
    sections = [
        SECTION.format(n=1, test="tests/test_lib.py", code="lib.py", deps="None"),
        SECTION.format(n=2, test="tests/test_other.py", code="other.py", deps="None"),
        SECTION.format(n=3, test="tests/test_more.py", code="more.py", deps="- Session 1"),
    ]
    (plan / "PHASE_1_P.md").write_text("# Phase 1: P\n\n" + "".join(sections))
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-qm", "p")
    for (n, step, rel), text in FILES.items():
        path = solutions / f"session-{n}" / step / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    agent = [sys.executable, "-m", "executor", "replay-agent", "--solutions", str(solutions)]
    return repo, plan, shlex.join(agent)


class Accepts:
    """A person who accepts the changed tests and approves the rest."""

    def ask(self, question: str, options: Sequence[Option], *, detail: str = "") -> Decision:
        values = [o.value for o in options]
        return Decision("accept_tests" if "accept_tests" in values else "approve")


def _timed(name: str, fn: F) -> F:
    def run(*args: Any, **kwargs: Any) -> Any:
        before, start = counted["git"], time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            figures.setdefault(name, []).append(
                (counted["git"] - before, time.perf_counter() - start)
            )

    return run  # type: ignore[return-value]


def _wrap(module: ModuleType, name: str, fn: Callable[..., Any]) -> None:
    """`module.name` is `fn` from now on (where the run looks it up)."""
    vars(module)[name] = fn


def _round(root: Path) -> None:
    repo, plan, agent = _project(root)
    unattended = RunRequest(plan=plan, scope=PlanScope(), repo=repo, yes=True, backoff=0,
                            overrides=Overrides(agent_command=agent))  # fmt: skip
    try:
        Runner(unattended, report=lambda line: None).execute()
    except Exception as e:  # the run ends incomplete: session 1 waits
        assert type(e).__name__ == "QuestionsWaiting", e
    person = RunRequest(plan=plan, scope=PlanScope(), repo=repo, yes=True, backoff=0,
                        prompter=Accepts())  # fmt: skip
    Runner(person, report=lambda line: None).execute()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("EXECUTOR_MUTATION_BUDGET", "0")
    for var, value in (("GIT_AUTHOR_NAME", "b"), ("GIT_COMMITTER_NAME", "b"),
                       ("GIT_AUTHOR_EMAIL", "b@example.com"),
                       ("GIT_COMMITTER_EMAIL", "b@example.com")):  # fmt: skip
        os.environ.setdefault(var, value)
    start_git = plumbing._git_subprocess

    def count(*a: Any, **k: Any) -> Any:
        counted["git"] += 1
        return start_git(*a, **k)

    _wrap(plumbing, "_git_subprocess", count)
    _wrap(lot, "park", _timed("park", vars(lot)["park"]))
    _wrap(lot, "take_up", _timed("take up", vars(lot)["take_up"]))
    _wrap(testrun, "run_tests", _timed("test run", testrun.run_tests))
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="executor-parking-") as tmp:
            _round(Path(tmp))
    runs = statistics.median(s for _, s in figures["test run"])
    ok = True
    print(f"rounds: {args.runs}; a test run: {runs:.2f} s (median of {len(figures['test run'])})")
    for name in ("park", "take up"):
        gits = statistics.median(g for g, _ in figures[name])
        seconds = statistics.median(s for _, s in figures[name])
        ok &= seconds < runs
        print(
            f"{name}: {gits:.0f} git commands, {seconds:.2f} s ({seconds / runs:.2f}x a test run)"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
