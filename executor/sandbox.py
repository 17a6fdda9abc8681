"""Test runs inside a bubblewrap sandbox, when the machine has one that works.

The executor checks a test run after the fact
(`executor.workflows.tdd.session.checks.guard` compares the worktree, HEAD and its own
files with what they were before, and puts back what changed). Where `bwrap` is installed
and allowed to make namespaces, it also runs the
test command so that some of that cannot happen at all:

- **git's folder, the executor's own files and the plan are read-only** (bind-mounted
  read-only over themselves): code under test cannot commit, move a branch, rewrite a
  hook or git's config, forge the state or the plan cache, or edit the plan;
- **nothing the run starts outlives it**: the run gets a process namespace of its own,
  torn down (every process in it killed) when the test command ends, so a process that
  left its group with `setsid` or a double fork can no longer change files after the
  run was checked; and a new terminal session, so it cannot type into the person's.

Everything else is as outside: the same files (the worktree stays writable, for test
runners and builds that write there; what a run changes there is still found and put
back), the same network, the same home folder. A session of a parallel run works in a
worktree inside the person's checkout: there the whole checkout is a wall, read-only
but for the session's worktree (`Sandbox.walled`), and the session's agent runs in
bubblewrap too, in the machine's process namespace (the executor stops its processes
itself), with what a commit in its worktree writes as the only other holes. It is not
a wall against code that wants out (the network and the home folder are open), and it
does nothing for code that patches the runner inside its own process
(`executor.testsummary` checks the report against the runner instead).

`--sandbox off` (saved with the run; `sandbox = "off"` in `[tool.executor]`) runs tests
without it; `auto`, the default, uses it when `bwrap` works here.
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
