"""Test runs inside a bubblewrap sandbox, when the machine has one that works.

The executor checks a test run after the fact (`workflows.tdd.session.checks.guard`);
where `bwrap` works, it also runs the test command so that some of that cannot happen:
git's folder, the executor's files and the plan are read-only, and nothing the run
starts outlives it. The worktree stays writable, for runners and builds that write
there. What it walls and what it does not: docs/reliability.md, "Nothing an agent
writes passes unseen" and "What we do not promise"; `--sandbox off` runs without it.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

#: bubblewrap's arguments for the whole system as it is, with a process namespace of
#: its own (killed with the command) and a new terminal session.
_BASE = ("--dev-bind", "/", "/", "--proc", "/proc", "--unshare-pid", "--die-with-parent")


@functools.cache
def bubblewrap() -> str | None:
    """The `bwrap` program when it is installed and may make namespaces here (one probe
    per process: a container or a kernel setting can forbid them)."""
    program = shutil.which("bwrap")
    if program is None:
        return None
    try:
        probe = subprocess.run(
            [program, *_BASE, "--new-session", "--", "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return program if probe.returncode == 0 else None


@dataclass(frozen=True)
class Sandbox:
    """Where a test run may not write: `read_only` paths (those that exist are bound
    read-only over themselves). `walls`: folders read-only but for the `holes` in them
    (a session's worktree inside the person's checkout: the checkout is read-only to
    what runs there, the worktree is not); `read_only` is bound last, so it holds
    inside a hole too."""

    read_only: tuple[Path, ...]
    walls: tuple[Path, ...] = ()
    holes: tuple[Path, ...] = ()
    #: a process namespace of its own (a test run); False: the machine's (an agent, whose
    #: processes the executor stops itself, by their process ids)
    own_pids: bool = True

    @classmethod
    def of(cls, paths: Iterable[Path]) -> Sandbox:
        return cls(_unique(paths))

    def walled(
        self, walls: Iterable[Path], holes: Iterable[Path], *, own_pids: bool = True
    ) -> Sandbox:
        """This sandbox with `walls` read-only but for their `holes`."""
        return replace(self, walls=_unique(walls), holes=_unique(holes), own_pids=own_pids)

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv` run inside bubblewrap, or `argv` itself when there is none that works."""
        program = bubblewrap()
        if program is None:
            return argv
        binds = [
            *(a for p in self.walls for a in ("--ro-bind-try", str(p), str(p))),
            *(a for p in self.holes for a in ("--bind-try", str(p), str(p))),
            *(a for p in self.read_only for a in ("--ro-bind-try", str(p), str(p))),
        ]
        base = _BASE if self.own_pids else ("--dev-bind", "/", "/", "--die-with-parent")
        return [program, *base, "--new-session", *binds, "--", *argv]

    @property
    def active(self) -> bool:
        return bubblewrap() is not None


def _unique(paths: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(Path(p).absolute() for p in paths))
