"""What pinning a run costs (`executor.pinning`): pinning the project's environment and
git's own files once, when the run starts, and one comparison with the pin (after each
agent step and each test run).

Run: `python benchmarks/pinning.py [--venv PATH] [--repeat N]`. The environment is a
virtual environment with pytest, pytest-cov, pytest-xdist and hypothesis installed
(default: the one this runs in, which `pip install -e ".[dev]"` makes so), used as a git
repository's `.venv`. It prints the environment's size, the median time of a pin (the
interpreter asked once, every file's stat, git's files read) and of a comparison with
nothing changed, then with a plugin's `.egg-info` added (what is found): wall time and
this process's CPU time (user + system: what holds on a loaded machine), beside a bare
`python -c pass` of the same run. Figures, not a test: docs/performance.md keeps them.
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


class Timed:
    """Wall and CPU seconds of each round."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def __enter__(self) -> Timed:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *_: object) -> None:
        self.wall.append(time.perf_counter() - self._wall)
        self.cpu.append(time.process_time() - self._cpu)

    def __str__(self) -> str:
        return f"{_median(self.wall)} wall, {_median(self.cpu)} CPU"


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
        pins, made, probed, bare = [], Timed(), Timed(), Timed()
        for _ in range(args.repeat):
            with bare:
                subprocess.run([sys.executable, "-c", "pass"], check=True)
            with probed:
                probe = projectenv.probe(found, env, root=repo)
            with made:
                pinned = pinning.pin(found, probe, checkouts=[repo], python=True, git=git,
                                     path=path, environ=env)  # fmt: skip
            pins.append(pinning.Pins(pinned, path))
        files = len(pins[-1].file().files)  # type: ignore[union-attr]
        same = Timed()
        for _ in range(args.repeat):
            with same:
                changes = pins[-1].changes(found.python)
            assert changes is not None and not changes, changes
        site = Path(probe.site[-1])
        egg = site / "bench_plugin-1.0.egg-info"
        found_it = Timed()
        try:
            egg.mkdir()
            (egg / "entry_points.txt").write_text("[pytest11]\nbench = bench_plugin\n")
            for _ in range(args.repeat):
                with found_it:
                    changes = pins[-1].changes(found.python)
                assert changes is not None and changes.environment, "the plugin was not found"
        finally:
            (egg / "entry_points.txt").unlink(missing_ok=True)
            egg.rmdir()
        roots = environment.expand(pinned.roots)
    print(f"environment: {found.python} ({len(roots)} roots, {files} files pinned)")
    assert pinned.environment is not None
    print(f"pytest plugins by entry point: {', '.join(sorted(pinned.environment.plugins))}")
    print(
        f"bare `python -c pass`: {_median(bare.wall)} wall; load average {os.getloadavg()[0]:.1f}"
    )
    print(f"the interpreter asked (one process): {_median(probed.wall)} wall")
    print(f"pin (every file's stat, git's files read, the pin file written): {made}")
    print(f"one comparison, nothing changed: {same}")
    print(f"one comparison, a plugin's .egg-info added (found): {found_it}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
