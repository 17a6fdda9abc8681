"""The exit-42 resume round trip of the installed CLI, as a host pays it.

For a 4-session plan (the shipped ledger example) and a generated 1,000-session plan,
each run uses a fresh git repository: `executor execute-session 1 --plan P` asks the
person at before_start (exit 42), `executor bridge respond --response approve` answers,
then the measured process is `executor execute-session 1 --plan P --resume`: it applies
the approval, writes the RED agent's brief and request, saves, and exits 42. Measured as
a whole process: CPU seconds (user + system of it and its children, e.g. git) and wall
time, medians over the runs, next to a bare `python -c pass` measured in the same run.
Also printed: the bytes a host reads for that human checkpoint (the request file plus
the CLI's output) and the state bytes written.

Goals (issue 13): <= 100 ms CPU for 4 sessions; the 1,000-session figure within 1.2x of
it; <= 2 KB read per checkpoint. Run: `python benchmarks/bridge_roundtrip.py [--runs N]`
(exit 1 when a goal is missed).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: The installed console script (what a user runs); `python -m executor` when there is none.
_SCRIPT = Path(sys.executable).with_name("executor")
EXECUTOR = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "executor"]
CPU_GOAL_MS = 100.0
RATIO_GOAL = 1.2
READ_GOAL = 2048


def _parse_plan_module() -> Any:
    spec = importlib.util.spec_from_file_location(
        "parse_plan", Path(__file__).with_name("parse_plan.py")
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _repo(base: Path, sessions: int) -> Path:
    repo = base / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "bench@example.invalid")
    _git(repo, "config", "user.name", "bench")
    plan = repo / "plan"
    if sessions == 4:
        shutil.copytree(ROOT / "plans" / "examples" / "ledger", plan)
    else:
        plan.mkdir()
        _parse_plan_module().generate(plan, sessions)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "plan")
    return repo


def _timed(cmd: list[str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """(cpu seconds, wall seconds, result) of one whole process and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc


def one_round_trip(sessions: int) -> tuple[float, float, int]:
    """(cpu, wall, state bytes) of one measured --resume."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = _repo(Path(tmp), sessions)
        plan = repo / "plan"
        start = subprocess.run([*EXECUTOR, "execute-session", "1", "--plan", str(plan)],
                               cwd=repo, capture_output=True, text=True)  # fmt: skip
        assert start.returncode == 42, start.stderr
        answer = subprocess.run([*EXECUTOR, "bridge", "respond", "--dir", str(plan),
                                 "--status", "success", "--response", "approve"],
                                cwd=repo, capture_output=True, text=True)  # fmt: skip
        assert answer.returncode == 0, answer.stderr
        cpu, wall, proc = _timed(
            [*EXECUTOR, "execute-session", "1", "--plan", str(plan), "--resume"], repo
        )
        assert proc.returncode == 42, proc.stderr
        return cpu, wall, (plan / ".agent-state.json").stat().st_size


def checkpoint_read_bytes() -> int:
    """What a host reads for one human checkpoint: the request file and the CLI output."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = _repo(Path(tmp), 4)
        plan = repo / "plan"
        start = subprocess.run([*EXECUTOR, "execute-session", "1", "--plan", str(plan)],
                               cwd=repo, capture_output=True, text=True)  # fmt: skip
        assert start.returncode == 42, start.stderr
        request = (plan / ".agent-request.json").read_bytes()
        return len(request) + len(start.stdout.encode()) + len(start.stderr.encode())


def bare(runs: int) -> tuple[float, float]:
    cpu, wall = [], []
    for _ in range(runs):
        c, w, _ = _timed([sys.executable, "-c", "pass"], ROOT)
        cpu.append(c)
        wall.append(w)
    return statistics.median(cpu), statistics.median(wall)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args().runs
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}; {runs} rounds")
    # Interleaved: each round measures the bare interpreter, then both plans, so a
    # machine that slows down mid-run slows all three alike (ratios stay honest).
    bares: list[tuple[float, float]] = []
    trips: dict[int, list[tuple[float, float, int]]] = {4: [], 1000: []}
    for _ in range(runs):
        bares.append(bare(3))
        for sessions, measured in trips.items():
            measured.append(one_round_trip(sessions))
    base_cpu = statistics.median(b[0] for b in bares)
    base_wall = statistics.median(b[1] for b in bares)
    print(f"bare `python -c pass`: {base_cpu * 1000:.1f} ms CPU, {base_wall * 1000:.1f} ms wall")
    figures = {}
    for sessions, measured in trips.items():
        cpu = statistics.median(r[0] for r in measured)
        wall = statistics.median(r[1] for r in measured)
        state = measured[-1][2]
        figures[sessions] = cpu
        print(
            f"{sessions:>5} sessions: resume {cpu * 1000:.1f} ms CPU "
            f"({cpu / base_cpu:.1f}x bare; {(cpu - base_cpu) * 1000:.1f} ms above it), "
            f"{wall * 1000:.1f} ms wall; state {state:,} B"
        )
    read = checkpoint_read_bytes()
    pairs = zip(trips[4], trips[1000], strict=True)
    ratio = statistics.median(big[0] / small[0] for small, big in pairs)
    print(f"1,000 / 4 sessions: {ratio:.2f}x, median of the rounds (goal <= {RATIO_GOAL}x)")
    print(f"bytes a host reads for a human checkpoint: {read:,} (goal <= {READ_GOAL:,})")
    ok = figures[4] * 1000 <= CPU_GOAL_MS and ratio <= RATIO_GOAL and read <= READ_GOAL
    print("goals met" if ok else "goal missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
