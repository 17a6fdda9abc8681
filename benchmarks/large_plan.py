"""Large plans as a user meets them: the first `executor plan validate` and the first
`executor status` (no plan cache yet) of generated plans of 1,000 and 10,000 sessions.

Run with the interpreter of the environment to measure (a non-editable `pip install .`):
`path/to/venv/bin/python benchmarks/large_plan.py [--runs 3] [--sizes 1000,10000]`.
The plans are written as `benchmarks/parse_plan.py` writes them (PHASE files of 50
sessions, each depending on the one before). Each command runs as a whole process of the
installed CLI; its CPU (user + system) and peak memory (max RSS) are its own, read with
`os.wait4`; the best of the runs is printed beside a bare `python -c pass` measured the
same way. Before each `status` the plan cache is removed, so every run is a first one.
Goals: 10,000 sessions at most 3 s CPU and 200 MB each; 1,000 at most 0.5 s (exit
code 1 if a goal is missed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from parse_plan import generate

CACHE = ".agent-plan-cache.json"
GOALS = {1000: (0.5, None), 10000: (3.0, 200.0)}  # sessions -> (CPU s, max RSS MB)


class Failed(Exception):
    """The command did not succeed (its exit code and last line)."""


@dataclass
class Run:
    cpu: float
    wall: float
    rss_mb: float


def measure(args: list[str], cwd: Path, before: Path | None = None) -> Run:
    """One process: its own CPU seconds, wall seconds and peak memory."""
    if before is not None:
        before.unlink(missing_ok=True)
    start = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        last = out.decode(errors="replace").strip().splitlines()[-1:] or [""]
        raise Failed(f"exit {proc.returncode}: {last[0][:100]}")
    return Run(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024)


def best(runs: list[Run]) -> Run:
    return Run(min(r.cpu for r in runs), min(r.wall for r in runs), min(r.rss_mb for r in runs))


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--runs", type=int, default=3)
    options.add_argument("--sizes", default="1000,10000")
    given = options.parse_args()
    sizes = [int(s) for s in given.sizes.split(",")]
    python = sys.executable
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores, {python}")
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        bare = best([measure([python, "-c", "pass"], Path(tmp)) for _ in range(given.runs)])
        print(f"python -c pass: {bare.cpu:.3f} s CPU, {bare.rss_mb:.0f} MB")
        for sessions in sizes:
            folder = Path(tmp) / f"plan_{sessions}"
            folder.mkdir()
            generate(folder, sessions)
            commands = {
                "plan validate": ([python, "-m", "executor", "plan", "validate", "."], None),
                "status (first)": ([python, "-m", "executor", "status"], folder / CACHE),
            }
            for name, (args, cache) in commands.items():
                try:
                    got = best([measure(args, folder, cache) for _ in range(given.runs)])
                except Failed as e:
                    print(f"{sessions:>6} sessions, {name:<15} FAILED, {e}")
                    failed.append(f"{sessions} {name}")
                    continue
                cpu_goal, rss_goal = GOALS.get(sessions, (None, None))
                misses = []
                if cpu_goal is not None and got.cpu > cpu_goal:
                    misses.append(f"{got.cpu:.2f} s > {cpu_goal} s")
                if rss_goal is not None and got.rss_mb > rss_goal:
                    misses.append(f"{got.rss_mb:.0f} MB > {rss_goal} MB")
                print(
                    f"{sessions:>6} sessions, {name:<15} {got.cpu:6.2f} s CPU "
                    f"({got.cpu / bare.cpu:5.0f}x bare), {got.wall:6.2f} s wall, "
                    f"{got.rss_mb:5.0f} MB{'   MISSED: ' + '; '.join(misses) if misses else ''}"
                )
                if misses:
                    failed.append(f"{sessions} {name}")
    if failed:
        print("goal missed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
