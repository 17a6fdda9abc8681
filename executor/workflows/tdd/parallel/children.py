"""The process that runs one session in its worktree: `executor lane N`, started by the
parallel run, watched until it exits (docs/parallel.md).

Each lane is a whole run in a process group of its own: a Ctrl+C reaches the parallel run
only, which stops each lane once with SIGTERM. A lane reads a pipe only the parallel run
holds, so when that run dies the lane stops itself; how its session ended comes back on
its own pipe (`--report-fd`), which no agent or test run holds, so what is integrated is
what the lane's run verified."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

#: Seconds a lane has to save and exit after SIGTERM before its group is killed.
STOP_GRACE = 60.0


#: What a lane's run says about its session when it ends (more is not read).
REPORT_LIMIT = 4096


@dataclass
class Child:
    """One running lane process."""

    session: int
    proc: subprocess.Popen[bytes]
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=60))
    pumps: list[threading.Thread] = field(default_factory=list)
    #: the read end of the pipe its run reports its session's end on
    said: int | None = None

    def report(self) -> dict[str, object] | None:
        """What its run said about its session when it ended (read once, after it
        exited); None when it said nothing readable."""
        if self.said is None:
            return None
        fd, self.said = self.said, None
        data = b""
        try:
            os.set_blocking(fd, False)
            with contextlib.suppress(BlockingIOError):
                while len(data) < REPORT_LIMIT:
                    chunk = os.read(fd, 1024)
                    if not chunk:
                        break
                    data += chunk
        finally:
            os.close(fd)
        try:
            found = json.loads(data.decode("utf-8"))
        except ValueError:
            return None
        return found if isinstance(found, dict) else None

    def reason(self) -> str:
        """Why it stopped, as it said last: its error message (from its last `error:`
        line on), else its last line."""
        lines = [ln for ln in self.tail if ln.strip() and not ln.startswith("NEED_AGENT")]
        starts = [i for i, ln in enumerate(lines) if ln.startswith("error: ")]
        said = lines[starts[-1] :] if starts else lines[-1:]
        return "\n".join(said).removeprefix("error: ").strip().rstrip(".")

    def wait(self) -> int:
        code = self.proc.wait()
        for pump in self.pumps:
            pump.join(timeout=5)
        return code

    def close(self) -> None:
        """Let go of the pipe its run reports on, read or not (a lane that stopped for a
        question is started again: one pipe a start)."""
        if self.said is not None:
            os.close(self.said)
            self.said = None


class Launcher:
    """Starts lanes and holds the pipe they watch."""

    def __init__(self, report: Callable[[str], None]) -> None:
        self.report = report
        self._lock = threading.Lock()
        self._watch, self._alive = os.pipe()  # neither end is inherited unless passed

    def start(
        self,
        session: int,
        *,
        plan: Path,
        cwd: Path,
        env: dict[str, str],
        continue_with: Sequence[str],
        resume: bool,
        yes: bool,
    ) -> Child:
        said, say = os.pipe()
        argv = [
            sys.executable, "-m", "executor", "lane", str(session), "--plan", str(plan),
            "--watch-fd", str(self._watch), "--report-fd", str(say),
            "--continue-with", json.dumps(list(continue_with)),
            *(["--resume"] if resume else []), *(["--yes"] if yes else []),
        ]  # fmt: skip
        try:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env={**os.environ, **env},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(self._watch, say),
                start_new_session=True,
            )
        except BaseException:
            os.close(said)
            raise
        finally:
            os.close(say)
        child = Child(session, proc, said=said)
        assert proc.stdout is not None and proc.stderr is not None
        child.pumps = [self._pump(proc.stdout, self.report), self._keep(proc.stderr, child)]
        return child

    def _pump(self, stream: IO[bytes], say: Callable[[str], None]) -> threading.Thread:
        def run() -> None:
            with stream:
                for raw in stream:
                    line = raw.decode("utf-8", "replace").rstrip("\n")
                    with self._lock:
                        say(line)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    def _keep(self, stream: IO[bytes], child: Child) -> threading.Thread:
        """A lane's stderr is how it stopped (its error, its NEED_AGENT line): kept for
        the parallel run, which says it once, for every lane."""

        def run() -> None:
            with stream:
                for raw in stream:
                    child.tail.append(raw.decode("utf-8", "replace").rstrip("\n"))

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    def stop(self, children: Sequence[Child]) -> None:
        """SIGTERM each once; wait for them to save and exit; kill what is left."""
        for child in children:
            if child.proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.proc.pid, signal.SIGTERM)  # the lane only: it stops its own
        for child in children:
            try:
                child.proc.wait(timeout=STOP_GRACE)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.proc.pid, signal.SIGKILL)
                child.proc.wait()
            child.close()

    def close(self) -> None:
        for fd in (self._watch, self._alive):
            with contextlib.suppress(OSError):
                os.close(fd)


def report_end(fd: int, status: str, commit: str | None, *, adopted: bool) -> None:
    """In a lane: say how its session ended (`completed` or `skipped`, the commit its run
    verified, whether it was adopted) to the parallel run that started it."""
    data = json.dumps({"status": status, "commit": commit, "adopted": adopted}).encode("utf-8")
    with contextlib.suppress(OSError):
        os.write(fd, data)
        os.close(fd)


def watch_parent(fd: int) -> None:
    """In a lane: stop this run (as SIGTERM does: save, exit 130) once the parallel run
    that started it is gone (the pipe `fd` reads from ends)."""

    def run() -> None:
        with contextlib.suppress(OSError):
            while os.read(fd, 64):
                pass
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=run, daemon=True).start()
