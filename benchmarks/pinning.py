"""What pinning a run costs (`executor.pinning`): pinning the project's environment and
git's own files once, when the run starts, and one comparison with the pin (after each
agent step and each test run).

Run: `python benchmarks/pinning.py [--venv PATH] [--repeat N]`. The environment is a
virtual environment with pytest, pytest-cov, pytest-xdist and hypothesis installed
(default: the one this runs in, which `pip install -e ".[dev]"` makes so), used as a git
repository's `.venv`. It prints the environment's size, the median time of a pin (the
interpreter asked once, every file's stat, git's files read) and of a comparison with
nothing changed, then with a plugin's `.egg-info` added (what is found). Figures, not a
test: docs/performance.md keeps them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from executor import pinning, projectenv
from executor.pinning import environment, gitfiles


def _median(seconds: list[float]) -> str:
    return f"{statistics.median(seconds) * 1000:.0f} ms"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--venv", type=Path, default=Path(sys.prefix))
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / ".venv").symlink_to(args.venv.resolve())
        env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
        found = projectenv.find(repo, env)
        git = gitfiles.places(repo / ".git", repo, os.environ)
        path = Path(tmp) / "pinned.json"
        pins, made = [], []
        for _ in range(args.repeat):
            started = time.perf_counter()
            probe = projectenv.probe(found, env, root=repo)
            pinned = pinning.pin(found, probe, checkouts=[repo], python=True, git=git,
                                 path=path, environ=env)  # fmt: skip
            made.append(time.perf_counter() - started)
            pins.append(pinning.Pins(pinned, path, git))
        files = len(pins[-1].file().files)  # type: ignore[union-attr]
        same = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            changes = pins[-1].changes(found.python)
            same.append(time.perf_counter() - started)
            assert changes is not None and not changes, changes
        site = Path(probe.site[-1])
        egg = site / "bench_plugin-1.0.egg-info"
        found_it = []
        try:
            egg.mkdir()
            (egg / "entry_points.txt").write_text("[pytest11]\nbench = bench_plugin\n")
            for _ in range(args.repeat):
                started = time.perf_counter()
                changes = pins[-1].changes(found.python)
                found_it.append(time.perf_counter() - started)
                assert changes is not None and changes.environment, "the plugin was not found"
        finally:
            (egg / "entry_points.txt").unlink(missing_ok=True)
            egg.rmdir()
        roots = environment.expand(pinned.roots)
    print(f"environment: {found.python} ({len(roots)} roots, {files} files pinned)")
    print(f"pytest plugins by entry point: {', '.join(sorted(pinned.environment.plugins))}")  # type: ignore[union-attr]
    print(f"pin (probe + every file's stat + git's files, written): {_median(made)}")
    print(f"one comparison, nothing changed: {_median(same)}")
    print(f"one comparison, a plugin's .egg-info added (found): {_median(found_it)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
