"""What a run fixes before any agent acts (P30: nothing the agent writes decides a
verdict), in one room.

When a run starts, before its first agent step, one function (`pin`) pins what decides a
test run's verdict besides the code under test: the project's environment (the
interpreter, `pyvenv.cfg`, every folder its imports reach, every pytest plugin a
distribution registers there, what decides which environment is found) by each file's
stat, and git's own files (config, hooks, attributes) by content. The record
(`Pinned`) is kept in the run's state, the pin file beside it; every judge compares
against it and nothing else:

- after each agent step and each test run, a difference is the session's change, judged
  like a changed `conftest.py`: git's files are put back, and the step fails until a
  person takes the environment in (with `--yes`: exit 16);
- a difference found while no agent step ran (between sessions, at a question) is the
  person's: taken in and said; but another interpreter than the run's, once an agent
  step ran with it, stops and asks;
- test runs use the pinned interpreter and load exactly the pytest plugins registered
  when it was pinned, by name, with pytest's autoload off.

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
