"""Parallel sessions as a person runs them: whole runs of the installed CLI.

A plan of 4 independent sessions (each a RED and a GREEN agent call, no REFACTOR step)
whose stand-in agent sleeps SLEEP seconds per call, then writes its prepared files (the
replay agent): one session alone (`execute-session 1`, in a fresh repository), the whole
plan one session at a time (`execute-plan`), and the whole plan side by side
(`execute-plan --parallel 4`: the agents mostly wait, so 4 at once on fewer cores is
the point; their test runs take turns on the cores, `executor.cores`), each `--yes`
with checkpoints as they are by default, all in one run of this script, beside a bare
`python -c pass`. Wall times (the agents sleep;
CPU is not what a person waits for), medians over the rounds.

Where a parallel run's remaining time goes is read from its own report as it streams:
from its start to each session's worktree, and each integration (from `integrating` to
`integrated`: the replay, the whole suite run again, the fast-forward), one at a time.

Goal (issue 39): with agents that wait 3 s a call, the parallel run at most 0.5x the run
of one session at a time on 2 cores (test runs take turns on the cores, so the ratio to
one session alone is printed, not judged). Run: `python benchmarks/parallel.py [--rounds
N] [--sleep S]` (exit 1 when the goal is missed).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("executor")
EXECUTOR = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "executor"]
NAMES = ("alpha", "beta", "gamma", "delta")
PLAN = "project-plans/tools"
SEQUENTIAL_GOAL = 0.5


def _section(n: int, name: str) -> str:
    return (
        f"## Session {n}: {name.capitalize()} (TDD)\n\n### Objectives\n- [ ] Build {name}\n\n"
        f"### TDD Workflow\n\n#### Step 1: Write Tests FIRST (RED)\nCreate "
        f"`tests/test_{name}.py`.\n\n**Run tests**: `pytest tests/test_{name}.py`\n\n"
        f"#### Step 2: Implement (GREEN)\nCreate `{name}.py`.\n\n**Run tests**: Should now "
        f"PASS\n\n### Files to Create/Modify\n- `{name}.py`\n- `tests/test_{name}.py`\n\n"
        f"### Exit Criteria\n- [ ] Its test passes\n\n### Dependencies\nNone\n"
    )


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _repo(base: Path, label: str) -> Path:
    repo = base / label
    (repo / PLAN).mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "bench@example.invalid")
    _git(repo, "config", "user.name", "bench")
    (repo / ".gitignore").write_text("__pycache__/\n*.pyc\n.pytest_cache/\n")
    body = "\n---\n\n".join(_section(n, name) for n, name in enumerate(NAMES, 1))
    (repo / PLAN / "PHASE_1_TOOLS.md").write_text(f"# Phase 1: Tools\n\n---\n\n{body}")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "plan")
    return repo


def _solutions(base: Path) -> Path:
    root = base / "solutions"
    for n, name in enumerate(NAMES, 1):
        test = root / f"session-{n}" / "red" / "tests" / f"test_{name}.py"
        code = root / f"session-{n}" / "green" / f"{name}.py"
        test.parent.mkdir(parents=True)
        code.parent.mkdir(parents=True)
        test.write_text(f"from {name} import {name}\n\n\ndef test_{name}():\n"
                        f"    assert {name}() == {name!r}\n")  # fmt: skip
        code.write_text(f"def {name}():\n    return {name!r}\n")
    return root


def _run(repo: Path, args: list[str], on_line: Callable[[str, float], None]) -> tuple[float, float]:
    """Wall and CPU seconds (its processes and theirs) of one whole run; each line of its
    report with when it came."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen([*EXECUTOR, *args], cwd=repo, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    assert proc.stdout is not None
    for line in proc.stdout:
        on_line(line.rstrip("\n"), time.perf_counter() - start)
    err = proc.stderr.read() if proc.stderr else ""
    assert proc.wait() == 0, err
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sleep", type=float, default=3.0)
    ns = parser.parse_args()
    wall: dict[str, list[float]] = {k: [] for k in ("alone", "sequential", "parallel")}
    cpu: dict[str, list[float]] = {k: [] for k in wall}
    bare: list[float] = []
    started, committed, tails, tested = [], [], [], []
    seen: dict[str, float] = {}

    def watch(line: str, at: float) -> None:
        """Times in one parallel run's report: the last session's worktree started, the
        last session's own commit, each integration and whether it ran the suite."""
        found = re.match(r"\[session (\d+)\] (running in|committed \w+: |integrating|"
                         r"running the whole suite|integrated)", line)  # fmt: skip
        if found is None:
            return
        n, what = found.groups()
        if what == "running the whole suite":
            tested.append(n)
        else:
            seen[f"{what.split()[0]} {n}"] = at

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        solutions = _solutions(base)
        replay = shlex.join([*EXECUTOR, "replay-agent", "--solutions", str(solutions)])
        agent = f"sh -c {shlex.quote(f'sleep {ns.sleep:g}; exec {replay}')}"
        flags = ["--plan", PLAN, "--yes", "--agent-command", agent]
        cases = {
            "alone": ["execute-session", "1", *flags],
            "sequential": ["execute-plan", *flags],
            "parallel": ["execute-plan", "--parallel", "4", *flags],
        }
        for r in range(ns.rounds):  # interleaved, so drift hits every case alike
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            bare.append(time.perf_counter() - t)
            for label, args in cases.items():
                seen.clear()
                w, c = _run(_repo(base, f"{label}{r}"), args, watch)
                wall[label].append(w)
                cpu[label].append(c)
            starts = [v for k, v in seen.items() if k.startswith("running ")]
            commits = [v for k, v in seen.items() if k.startswith("committed ")]
            started.append(max(starts))
            committed.append(max(commits))
            tails.append(wall["parallel"][-1] - max(commits))
    med = statistics.median
    print(f"{ns.rounds} rounds, agent sleeps {ns.sleep:g} s per call, 2 calls per session, "
          f"{os.cpu_count()} cores; seconds, medians")  # fmt: skip
    print(f"{'':46s} {'wall':>7s} {'CPU':>7s}")
    print(f"{'bare python -c pass':46s} {med(bare):7.2f}")
    print(f"{'one session alone (execute-session 1)':46s} {med(wall['alone']):7.2f} "
          f"{med(cpu['alone']):7.2f}")  # fmt: skip
    print(f"{'4 sessions, one at a time (execute-plan)':46s} {med(wall['sequential']):7.2f} "
          f"{med(cpu['sequential']):7.2f}")  # fmt: skip
    print(f"{'4 sessions, --parallel 4':46s} {med(wall['parallel']):7.2f} "
          f"{med(cpu['parallel']):7.2f}")  # fmt: skip
    print(f"{'  until the 4th worktree started':46s} {med(started):7.2f}")
    print(f"{'  until the 4th session committed (its own run)':46s} {med(committed):7.2f}")
    print(f"{'  from then to the end (integrations)':46s} {med(tails):7.2f}")
    print(f"{'  integrations that ran the whole suite, per run':46s} "
          f"{len(tested) / ns.rounds:7.1f}")  # fmt: skip
    to_alone = med(wall["parallel"]) / med(wall["alone"])
    to_sequential = med(wall["parallel"]) / med(wall["sequential"])
    ok = to_sequential <= SEQUENTIAL_GOAL
    print(
        f"parallel / alone: {to_alone:.2f}; parallel / one at a time: "
        f"{to_sequential:.2f} (goal <= {SEQUENTIAL_GOAL}): {'met' if ok else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
