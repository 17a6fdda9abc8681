"""Median wall time of one exit-42 resume round trip, and its ratio to bare `python -c pass`.

A round trip is what a host pays per agent call: start python, load the response via the
bridge (bound to the pending request, consumed, recorded), write the next request, exit
42. Target: <= 200 ms median. Run: `python benchmarks/bridge_roundtrip.py [--runs N]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from executor.bridge import AgentBridgeInvoker
from executor.errors import NeedAgent

TARGET_MS = 200.0

STEP = """
import sys
from pathlib import Path
from executor.bridge import AgentBridgeInvoker
d = Path(sys.argv[1])
inv = AgentBridgeInvoker(d / ".agent-request.json", d / ".agent-response.json")
inv.request("architectural-reviewer", "first question")
inv.request("architectural-reviewer", "second question")
"""


def _prepare(folder: Path) -> None:
    """A folder where the first question is pending and its response is waiting."""
    inv = AgentBridgeInvoker(folder / ".agent-request.json", folder / ".agent-response.json")
    try:
        inv.request("architectural-reviewer", "first question")
    except NeedAgent as need:
        response = {"request_id": need.request_id, "status": "success", "response": "answer"}
        (folder / ".agent-response.json").write_text(json.dumps(response), encoding="utf-8")
        return
    raise RuntimeError("expected a pending request")


def _time(cmd: list[str], expect: int) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != expect:
        raise SystemExit(f"{cmd} exited {proc.returncode}: {proc.stderr.decode()}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    bare: list[float] = []
    trips: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            folder = Path(tmp) / f"run{i}"
            folder.mkdir()
            _prepare(folder)
            bare.append(_time([sys.executable, "-c", "pass"], 0))
            trips.append(_time([sys.executable, "-c", STEP, str(folder)], 42))
            request = json.loads((folder / ".agent-request.json").read_text(encoding="utf-8"))
            assert request["prompt"] == "second question"
    trip_ms = statistics.median(trips) * 1000
    bare_ms = statistics.median(bare) * 1000
    verdict = "OK" if trip_ms <= TARGET_MS else "OVER TARGET"
    print(
        f"resume round trip: median {trip_ms:.1f} ms over {args.runs} runs; "
        f"bare python -c pass: {bare_ms:.1f} ms; ratio {trip_ms / bare_ms:.1f}x; "
        f"target <= {TARGET_MS:.0f} ms: {verdict}"
    )
    return 0 if trip_ms <= TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
