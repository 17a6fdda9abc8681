"""What a run fixes before any agent acts (P30: nothing the agent writes decides a
verdict), in one room.

When a run starts, before its first agent step, `pin` records what decides a test run's
verdict besides the code under test: the project's environment, by each file's stat, and
git's own files, by content. The record (`Pinned`) is kept in the run's state, and every
judge compares against it and nothing else (docs/reliability.md, "What the run pins").
pre-commit's `staged_files_only()` is the model: one place fixes a command's inputs.
"""

from executor.pinning.pinned import (
    Changes,
    PinFile,
    Pinned,
    Pins,
    TestEnvironment,
    interpreter,
    pin,
    shown,
    tested_with,
)

__all__ = [
    "Changes",
    "PinFile",
    "Pinned",
    "Pins",
    "TestEnvironment",
    "interpreter",
    "pin",
    "shown",
    "tested_with",
]
