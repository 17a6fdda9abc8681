"""What a notification adds to the exit-42 host step that stops at a person's checkpoint.

The measured step, as a host runs it: at `after_red` of the ledger example's session 1,
`executor bridge respond --dir D --response show_tests --resume` answers "show tests", and
the run asks the same checkpoint again, with the tests: a human request, exit 42, and a
notification (docs/engine.md, "Notifications"). One whole process each, CPU (user +
system, with its children) and wall time, medians over the rounds, interleaved with the
cases below and a bare `python -c pass`:

- `--notify off`: no notification at all (the baseline);
- notify unset (the default: bell and desktop; here there is no terminal and no display,
  so nothing is delivered: what the default costs when nothing is there to ring);
- `--notify URL` to a local HTTP server that answers at once (the webhook's own cost).

The run before the measured step (the checkpoint, the RED agent by the replay agent, its
test run) is set up afresh for each case in a new git repository. Run:
`python benchmarks/notify.py [--runs N]`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
_SCRIPT = Path(sys.executable).with_name("executor")
EXECUTOR = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "executor"]
SOLUTIONS = ROOT / "plans" / "replay" / "ledger"
#: No display and no terminal: the default delivers nothing, as on a host's machine.
ENV = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}


class _Answer(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EXECUTOR, *args], cwd=repo, capture_output=True, text=True, env=ENV)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _at_after_red(base: Path, notify: list[str]) -> Path:
    """A repository whose run waits at after_red (its notify option as given)."""
    repo = base / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "bench@example.invalid")
    _git(repo, "config", "user.name", "bench")
    (repo / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n", "utf-8")
    shutil.copytree(ROOT / "plans" / "examples" / "ledger", repo / "plan")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "plan")
    plan = repo / "plan"
    assert _run(repo, "execute-session", "1", "--plan", str(plan), *notify).returncode == 42
    assert _run(repo, "bridge", "respond", "--dir", str(plan), "--response", "approve",
                "--resume").returncode == 42  # fmt: skip
    agent = _run(repo, "replay-agent", "--solutions", str(SOLUTIONS), "--request",
                 str(plan / ".agent-request.json"), "--repo", str(repo))  # fmt: skip
    assert agent.returncode == 0, agent.stderr
    red = _run(repo, "bridge", "respond", "--dir", str(plan), "--response",
               agent.stdout.strip() or "done", "--resume")  # fmt: skip
    assert red.returncode == 42 and "ask the person" in red.stderr, red.stderr
    return repo


def _timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    import resource
    import time

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=ENV)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert proc.returncode == 42 and "ask the person" in proc.stderr, proc.stderr
    assert "warning" not in proc.stderr, proc.stderr
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def one(notify: list[str]) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        repo = _at_after_red(Path(tmp), notify)
        plan = repo / "plan"
        step = [*EXECUTOR, "bridge", "respond", "--dir", str(plan), "--response", "show_tests",
                "--resume"]  # fmt: skip
        return _timed(step, repo)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    cases = {"--notify off": ["--notify", "off"], "notify unset (default)": [],
             "--notify URL (local server)": ["--notify", url]}  # fmt: skip
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}; {runs} rounds")
    got: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    bare: list[float] = []
    for _ in range(runs):
        bare.append(_timed_bare())
        for name, flags in cases.items():
            got[name].append(one(flags))
    server.shutdown()
    print(f"bare `python -c pass`: {statistics.median(bare) * 1000:.1f} ms CPU")
    base = statistics.median(c for c, _ in got["--notify off"])
    for name, rows in got.items():
        cpu = statistics.median(c for c, _ in rows)
        wall = statistics.median(w for _, w in rows)
        print(f"{name:<28} {cpu * 1000:6.1f} ms CPU ({(cpu - base) * 1000:+5.1f} ms), "
              f"{wall * 1000:6.1f} ms wall")  # fmt: skip
    return 0


def _timed_bare() -> float:
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


if __name__ == "__main__":
    sys.exit(main())
