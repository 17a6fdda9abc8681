"""The exit-42 host cycle of the installed CLI, as a host pays it, per request.

After exit 42 the host reads `.agent-request.json` (a file: no process), gets the
answer, and runs one process: `executor bridge respond --dir D --response ... --resume`,
which records the answer and continues the run to its next stop. That process is the
whole cycle, measured here as CPU seconds (user + system of it and its children, e.g.
git) and wall time, medians over the rounds, beside a bare `python -c pass` measured in
the same rounds. The measured step: approve `before_start`, then the run writes the RED
agent's brief and request, saves, and exits 42 again.

The plans, each in a fresh git repository:
- the shipped 4-session ledger example, at session 1;
- a generated 1,001-session plan at session 1 (nothing finished);
- the same plan at session 1,001 with 1,000 finished sessions (their seed entries in
  the state and their archived records, as a long run leaves them);
- a generated 61-session plan at session 1, and at session 61 with 60 finished
  sessions that each left a commit of their own files (the tree and the history grow
  as a real run's do).

Also printed: the bytes a host reads for a human checkpoint (the request file plus the
CLI's output), and the state's size.

Goals (issues 18 and 39): the cycle <= 12x the bare interpreter of its round; 60
finished / none <= 1.1x and 1,000 finished / none <= 1.3x; <= 2 KB read per
checkpoint. Run: `python benchmarks/bridge_roundtrip.py [--runs N]` (exit 1 when a goal
is missed).
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
BARE_GOAL = 12.0
RATIO_GOAL = 1.3
FINISHED_GOAL = 1.1
READ_GOAL = 2048
BIG = 1001
MID = 61


def _parse_plan_module() -> Any:
    spec = importlib.util.spec_from_file_location(
        "parse_plan", Path(__file__).with_name("parse_plan.py")
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def _run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EXECUTOR, *args], cwd=repo, capture_output=True, text=True)


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


def _finish_all_but_last(repo: Path, plan: Path, *, commits: bool = False) -> None:
    """Sessions 1..N-1 as a long run leaves them: completed entries, archived records;
    with `commits`, each session's files committed on their own."""
    from executor.engine.layout import Layout
    from executor.workflows.tdd.record.session import SessionRecord
    from executor.workflows.tdd.record.state import SessionArchive, state_store
    from executor.workflows.tdd.step import Step

    head = _git(repo, "rev-parse", "HEAD")
    layout = Layout(plan)
    store = state_store(layout)
    archive = SessionArchive(layout.archive)
    with store.locked():
        state = store.load()
        assert state is not None
        state.run.sessions.clear()  # session 1 waited at before_start: it is done now
        layout.request.unlink()
        for entry in state.entries()[:-1]:
            if commits:
                n = entry.number
                for rel in (f"app/feature_{n}.py", f"tests/test_feature_{n}.py"):
                    (repo / rel).parent.mkdir(exist_ok=True)
                    (repo / rel).write_text(f"VALUE_{n} = {n}\n", encoding="utf-8")
                _git(repo, "add", "app", "tests")
                _git(repo, "commit", "-q", "-m", f"Session {n}")
                head = _git(repo, "rev-parse", "HEAD")
            entry.status = "completed"
            entry.started_at = entry.completed_at = state.execution_started_at
            entry.commit_hash = head
            entry.tests_written = entry.tests_passing = 4
            entry.coverage = 98.0
            archive.put(entry.number, SessionRecord(
                step=Step.DONE, commit_hash=head, files_modified=[f"app/feature_{entry.number}.py"],
                green_passed=[f"tests/test_feature_{entry.number}.py::test_{i}" for i in range(4)],
            ))  # fmt: skip
        store.save(state)


def _timed(cmd: list[str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """(cpu seconds, wall seconds, result) of one whole process and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc


def one_cycle(
    sessions: int, *, finished: bool = False, commits: bool = False
) -> tuple[float, float, int]:
    """(cpu, wall, state bytes) of one host cycle."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = _repo(Path(tmp), sessions)
        plan = repo / "plan"
        start = _run(repo, "execute-session", "1", "--plan", str(plan))
        assert start.returncode == 42, start.stderr
        if finished:
            _finish_all_but_last(repo, plan, commits=commits)
            start = _run(repo, "execute-session", str(sessions), "--plan", str(plan))
            assert start.returncode == 42, start.stderr
        respond = [*EXECUTOR, "bridge", "respond", "--dir", str(plan), "--response", "approve"]
        cpu, wall, proc = _timed([*respond, "--resume"], repo)
        assert proc.returncode == 42, proc.stderr
        return cpu, wall, (plan / ".agent-state.json").stat().st_size


def checkpoint_read_bytes() -> int:
    """What a host reads for one human checkpoint: the request file and the CLI output."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = _repo(Path(tmp), 4)
        plan = repo / "plan"
        start = _run(repo, "execute-session", "1", "--plan", str(plan))
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
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}; {runs} rounds")
    # Interleaved: each round measures the bare interpreter, then every case, so a
    # machine that slows down mid-run slows them all alike (ratios stay honest).
    cases = {
        "4 sessions, at session 1": {"sessions": 4},
        f"{MID} sessions, at session 1": {"sessions": MID},
        f"{MID} sessions, {MID - 1} finished, a commit each": {
            "sessions": MID, "finished": True, "commits": True},
        f"{BIG:,} sessions, at session 1": {"sessions": BIG},
        f"{BIG:,} sessions, {BIG - 1:,} finished": {"sessions": BIG, "finished": True},
    }  # fmt: skip
    bares: list[tuple[float, float]] = []
    measured: dict[str, list[tuple[float, float, int]]] = {name: [] for name in cases}
    for _ in range(runs):
        bares.append(bare(3))
        for name, how in cases.items():
            measured[name].append(one_cycle(**how))  # type: ignore[arg-type]
    base_cpu = statistics.median(b[0] for b in bares)
    print(f"bare `python -c pass`: {base_cpu * 1000:.1f} ms CPU")
    times_bare = {}
    for name, rows in measured.items():
        cpu = statistics.median(r[0] for r in rows)
        wall = statistics.median(r[1] for r in rows)
        times_bare[name] = statistics.median(r[0] / b[0] for r, b in zip(rows, bares, strict=True))
        print(
            f"{name:<40} {cpu * 1000:6.1f} ms CPU ({times_bare[name]:4.1f}x bare), "
            f"{wall * 1000:6.1f} ms wall; state {rows[-1][2]:,} B"
        )
    names = list(cases)

    def grown(fresh: str, done: str) -> float:
        pairs = zip(measured[fresh], measured[done], strict=True)
        return statistics.median(d[0] / f[0] for f, d in pairs)

    mid, big = grown(names[1], names[2]), grown(names[3], names[4])
    read = checkpoint_read_bytes()
    print(f"{MID - 1} finished / none: {mid:.2f}x (goal <= {FINISHED_GOAL}x)")
    print(f"{BIG - 1:,} finished / none: {big:.2f}x (goal <= {RATIO_GOAL}x)")
    print(f"bytes a host reads for a human checkpoint: {read:,} (goal <= {READ_GOAL:,})")
    worst = max(times_bare.values())
    ok = worst <= BARE_GOAL and mid <= FINISHED_GOAL and big <= RATIO_GOAL and read <= READ_GOAL
    print("goals met" if ok else "goal missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
