"""What starting the installed CLI costs, against a bare interpreter of the same
environment in the same rounds.

Each round runs `python -c pass`, then each case as a whole process (CPU seconds: user +
system of it and its children, e.g. git), so each case's ratio is taken against the
bare interpreter of its own round (a machine whose speed drifts moves both alike); the
medians of those ratios are printed. The cases:

- `executor --version`, `executor --help`, `executor execute-plan --help` (the largest
  command) and `executor bridge respond --help`;
- `executor hook stop` with nothing waiting (what every turn of a Claude Code
  conversation pays; benchmarks/hooks.py measures every hook);
- one host cycle: `executor bridge respond ... --resume` approving `before_start` of the
  ledger example and continuing to the RED request (benchmarks/bridge_roundtrip.py
  measures how it grows with the plan and with finished sessions).

Goals (issue 39): a start or a help at most 5x the bare interpreter, a hook at most 5x,
the host cycle at most 12x. Run: `python benchmarks/startup.py [--runs N]` with the
interpreter of a non-editable install (exit 1 when a goal is missed).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

_SCRIPT = Path(sys.executable).with_name("executor")
EXECUTOR = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "executor"]
GOALS = {"start": 5.0, "hook": 5.0, "cycle": 12.0}


def _roundtrip() -> Any:
    spec = importlib.util.spec_from_file_location(
        "bridge_roundtrip", Path(__file__).with_name("bridge_roundtrip.py")
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cpu(cmd: list[str], cwd: Path, stdin: str = "") -> float:
    """CPU seconds of one whole process and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args().runs
    roundtrip = _roundtrip()
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} "
          f"{load[2]:.1f}; python {sys.version.split()[0]}; {runs} rounds")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        idle = Path(tmp)
        stop = json.dumps({"hook_event_name": "Stop", "cwd": str(idle), "session_id": "b",
                           "stop_hook_active": False})  # fmt: skip
        cases: dict[str, tuple[str, Any]] = {
            "executor --version": ("start", lambda: cpu([*EXECUTOR, "--version"], idle)),
            "executor --help": ("start", lambda: cpu([*EXECUTOR, "--help"], idle)),
            "executor execute-plan --help": (
                "start", lambda: cpu([*EXECUTOR, "execute-plan", "--help"], idle)),
            "executor bridge respond --help": (
                "start", lambda: cpu([*EXECUTOR, "bridge", "respond", "--help"], idle)),
            "executor hook stop, nothing waiting": (
                "hook", lambda: cpu([*EXECUTOR, "hook", "stop"], idle, stop)),
            "host cycle (bridge respond --resume)": (
                "cycle", lambda: roundtrip.one_cycle(4)[0]),
        }  # fmt: skip
        bare: list[float] = []
        ratios: dict[str, list[float]] = {name: [] for name in cases}
        seconds: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(runs):
            base = statistics.median(cpu([sys.executable, "-c", "pass"], idle) for _ in range(3))
            bare.append(base)
            for name, (_, measure) in cases.items():
                took = measure()
                seconds[name].append(took)
                ratios[name].append(took / base)
    print(f"bare `python -c pass`: {statistics.median(bare) * 1000:.1f} ms CPU (median)")
    ok = True
    for name, (kind, _) in cases.items():
        ratio = statistics.median(ratios[name])
        goal = GOALS[kind]
        ok = ok and ratio <= goal
        print(
            f"{name:<40} {statistics.median(seconds[name]) * 1000:6.1f} ms CPU, "
            f"{ratio:5.1f}x bare (min {min(ratios[name]):4.1f}x; goal <= {goal:g}x)"
        )
    print("goals met" if ok else "goal missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
