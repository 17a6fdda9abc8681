"""A stand-in agent for parallel runs (`--agent-command`): the replay agent, plus what
the tests need to see sessions run side by side, without timing anything.

    python tests/parallel/standin.py --solutions DIR [--record FILE] [--barrier DIR
        --expect N] [--hold FILE] [--sleep SECONDS]

- `--record FILE`: append one JSON line per call: session, step, attempt, the worker
  and port base the executor gave it, its folder;
- `--barrier DIR --expect N`: at a session's RED step, mark DIR/s<session> and wait
  until N sessions have marked it (up to 120 s, then fail): a run that does not run N
  sessions at once never gets past it;
- `--hold FILE`: at a RED step, wait until FILE exists (up to 120 s), so a test can
  kill the run while agents work;
- `--sleep SECONDS`: sleep that long per call (the benchmark's agent).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from executor.replay import run_agent

WAIT = 120.0


def _wait_for(ready: object, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not ready():  # type: ignore[operator]
        if time.monotonic() > deadline:
            print(f"standin: gave up waiting for {what}", file=sys.stderr)
            raise SystemExit(1)
        time.sleep(0.05)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--solutions", type=Path, required=True)
    parser.add_argument("--record", type=Path)
    parser.add_argument("--barrier", type=Path)
    parser.add_argument("--expect", type=int, default=0)
    parser.add_argument("--hold", type=Path)
    parser.add_argument("--sleep", type=float, default=0.0)
    ns = parser.parse_args()
    env = os.environ
    step = env.get("EXECUTOR_TDD_STEP", "")
    session = env.get("EXECUTOR_SESSION", "")
    if ns.record is not None:
        line = {
            "session": int(session), "step": step, "attempt": int(env.get("EXECUTOR_ATTEMPT", "1")),
            "worker": env.get("EXECUTOR_WORKER"), "port_base": env.get("EXECUTOR_PORT_BASE"),
            "cwd": os.getcwd(), "pid": os.getpid(),
        }  # fmt: skip
        with ns.record.open("a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
    if step == "red" and ns.barrier is not None:
        ns.barrier.mkdir(parents=True, exist_ok=True)
        (ns.barrier / f"s{session}").touch()
        _wait_for(lambda: len(list(ns.barrier.glob("s*"))) >= ns.expect, "the other sessions")
    if step == "red" and ns.hold is not None:
        _wait_for(ns.hold.exists, str(ns.hold))
    time.sleep(ns.sleep)
    result = run_agent(solutions=ns.solutions, repo=Path.cwd(), request=None, env=env)
    print(result.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
