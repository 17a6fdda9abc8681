"""A command that dies with the executor, however the executor ends.

A small watcher process (`_WARDEN`, in a session of its own, so a Ctrl+C at the
terminal does not reach it) reads a pipe only the executor holds, and kills the
command's whole process group once the pipe ends without a word, which is what the
executor's death (SIGKILL included) does to it; when the command ends first, the
executor says so on the pipe and the watcher goes. An agent left running after `kill -9`
of the executor went on writing the repository beside the next run's agent. A
parent-death signal (`PR_SET_PDEATHSIG`) would reach the agent's first process only (the
setting is not inherited by its children, the tools it runs), only on Linux, and needs a
`preexec_fn`; the watcher costs one small interpreter per agent call and works wherever
process groups do.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

#: The watcher of a command that dies with the executor: argv[1] is the command's
#: process group; a byte on stdin means "it ended, go", the end of stdin without one
#: means the executor is gone. Its last argument names it (`ps` shows it).
_WARDEN = (
    "import os, signal, sys\n"
    "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "try:\n    said = os.read(0, 1)\nexcept OSError:\n    said = b''\n"
    "if not said:\n"
    "    try:\n        os.killpg(int(sys.argv[1]), signal.SIGKILL)\n"
    "    except OSError:\n        pass\n"
)


class Warden:
    """The watcher that kills group `pgid` if this process dies first (`_WARDEN`)."""

    def __init__(self, pgid: int) -> None:
        self.pid: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        read, self._write = os.pipe()  # neither end is inherited by anything else
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WARDEN, str(pgid), "executor-warden"],
                stdin=read, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True,
            )  # fmt: skip
            self.pid = self._proc.pid
        except OSError:
            pass  # no watcher: the group is still killed when the command ends
        finally:
            os.close(read)

    def release(self) -> None:
        """The command ended (its group was killed): the watcher goes without a kill."""
        with contextlib.suppress(OSError):
            os.write(self._write, b"x")
        with contextlib.suppress(OSError):
            os.close(self._write)
        if self._proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=5)
