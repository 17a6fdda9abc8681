"""Test-command runs per session over the demo (goal: 3 on the happy path: RED, GREEN and
REFACTOR each run once; GREEN and REFACTOR judge the session's tests from the same
whole-suite run).

Run: `python benchmarks/test_runs.py`. It runs `executor demo` (the 4-session ledger plan
with the replay agent) and counts the test runs the executor reports for each session
(its `running: <command>` lines). Exit code 1 when a session needs more than 3.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

GOAL = 3
_RUN = re.compile(r"^(?:\d\d:\d\d:\d\d )?\[session (\d+)\] running: (.+?)(?: \.\.\.)?$", re.M)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [sys.executable, "-m", "executor", "demo", "--dir", str(Path(tmp) / "demo")],
            capture_output=True,
            text=True,
        )
    if proc.returncode != 0:
        print(proc.stdout + proc.stderr)
        return 1
    runs = [(n, c) for n, c in _RUN.findall(proc.stdout) if not c.endswith(")")]
    per_session = Counter(int(n) for n, _ in runs)
    for number in sorted(per_session):
        commands = [c for n, c in runs if int(n) == number]
        print(f"session {number}: {per_session[number]} test runs: " + "; ".join(commands))
    worst = max(per_session.values())
    print(f"most runs in one session: {worst} (goal <= {GOAL})")
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
