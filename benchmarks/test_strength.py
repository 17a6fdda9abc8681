"""The executor's own mutation step on the replay's real commits (docs/test-strength.md).

For every unit of `../shared/replay/ranges.json` that changes tests and Python code, in a
fresh clone at the real commit: the session's own test runs typed by hand (its test
command once, the whole suite twice: what the executor runs at RED, GREEN and REFACTOR),
then the mutation step as the executor runs it at GREEN (mutants of the changed lines,
the session's test files, the suite for what they let through, in a copy of the tree).
The replay's REFACTOR writes nothing, so the step at REFACTOR's end finds the same tree
and costs nothing.

Run: `python benchmarks/test_strength.py --python P --mirrors M [--only NAME]`, where P
is an interpreter with pytest (the libraries need nothing else) and M the folder of
snapshots `<owner>+<name>/repo`. Goal: the mutation step at most 2x the session's own
test runs; exit 1 when the total misses it.
"""

from __future__ import annotations

import functools
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mutation_libraries import git, is_test, over_ranges, parse, timed

from executor.strength.mutants import mutants_of
from executor.strength.runner import Measured, measure
from executor.testrun import TestRun, run_tests
from executor.vcs import GitRepo

GOAL = 2.0


def sessions(
    lib: dict[str, Any], mirrors: Path, python: str, scratch: Path
) -> list[dict[str, Any]]:
    mirror = mirrors / lib["repo"].replace("/", "+") / "repo"
    base, tip = lib["range"].split("..")
    rows = []
    for commit in git(mirror, "rev-list", "--first-parent", "--reverse", f"{base}..{tip}").split():
        paths = git(mirror, "diff", "--name-only", f"{commit}^1", commit).split()
        tests = [p for p in paths if p.endswith(".py") and is_test(p, lib["test_dir"])]
        code = [p for p in paths if p.endswith(".py") and not is_test(p, lib["test_dir"])]
        if not tests or not code:
            continue
        work = scratch / lib["name"] / commit[:10]
        shutil.rmtree(work, ignore_errors=True)
        subprocess.run(["git", "clone", "-q", str(mirror), str(work)], check=True)
        git(work, "checkout", "-q", commit)
        pytest = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        own_cpu = _children_cpu()
        own = sum(timed(argv, work)[0] for argv in ([*pytest, *tests], pytest, pytest))
        own_cpu = _children_cpu() - own_cpu
        repo = GitRepo(work)
        parent, tree = repo.tree_of(f"{commit}^1"), repo.tree_of(commit)
        lines = repo.changed_lines(parent, tree, code)
        mutants = []
        for path, changed in sorted(lines.items()):
            blob = repo.blob_at(commit, path)
            if blob:
                mutants += mutants_of(path, repo.blob(blob), changed)

        def run(
            command: str,
            cwd: Path,
            limit: float,
            env: dict[str, str],
            log: Path | None,
            fds: tuple[int, ...],
        ) -> TestRun:
            return run_tests(command, cwd=cwd, timeout_s=limit, env=env, log=log, pass_fds=fds)

        started, cpu = time.monotonic(), _children_cpu()
        got = Measured(made=0) if not mutants else measure(
            mutants, export=functools.partial(repo.export_tree, tree), run=run,
            prefix=[python, "-m", "pytest"], test_files=tests, test_ids=None, collect=["-q"],
            budget=300,
        )  # fmt: skip
        took, took_cpu = time.monotonic() - started, _children_cpu() - cpu
        row = {
            "library": lib["name"], "commit": commit[:10], "made": got.made,
            "killed": got.killed, "total": got.judged, "by_suite": got.by_suite,
            "timeouts": got.timeouts, "errors": got.errors, "partial": got.partial,
            "shams": got.shams,
            "problem": got.problem, "mutation_s": round(took, 2), "own_tests_s": round(own, 2),
            "mutation_cpu_s": round(took_cpu, 2), "own_tests_cpu_s": round(own_cpu, 2),
            "survivors": [f"{s.mutant.diff()} survived: {s.why}" for s in got.survivors],
        }  # fmt: skip
        rows.append(row)
        print(f"{lib['name']} {commit[:10]}: {got.killed}/{got.judged} killed of {got.made} "
              f"made ({got.shams} shams); mutation {took:.1f} s, own tests "
              f"{own:.1f} s ({took / own:.2f}x); CPU {took_cpu:.1f} s against {own_cpu:.1f} s"
              + (f"; {got.problem}" if got.problem else ""), flush=True)  # fmt: skip
    return rows


def _children_cpu() -> float:
    """CPU seconds of the child processes waited for so far (the figure a loaded machine
    does not change)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> int:
    args = parse(__doc__.split("\n")[0], "--python")

    def each(lib: dict[str, Any], tmp: Path) -> list[dict[str, Any]]:
        return sessions(lib, args.mirrors, args.python, tmp)

    rows = over_ranges(args, "test-strength-", each)
    spent = sum(r["mutation_s"] for r in rows)
    own = sum(r["own_tests_s"] for r in rows)
    cpu = sum(r["mutation_cpu_s"] for r in rows)
    print(
        f"CPU: mutation steps {cpu:.1f} s, own test runs "
        f"{sum(r['own_tests_cpu_s'] for r in rows):.1f} s"
    )
    print(f"mutation step: {spent:.1f} s for {len(rows)} sessions, {spent / own:.2f}x their own "
          f"test runs ({own:.1f} s); goal <= {GOAL}x")  # fmt: skip
    return 0 if spent <= GOAL * own else 1


if __name__ == "__main__":
    sys.exit(main())
