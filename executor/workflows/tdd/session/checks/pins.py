"""The TDD workflow's side of the run's pin (`executor.pinning`): the run is pinned once
before its first agent step (`pin_run`), and each judge compares against it (`PinJudge`):
a difference after an agent step or a test run is the session's, one while none ran the
person's."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from executor import pinning, projectenv
from executor.errors import ProjectEnvError
from executor.pinning import gitfiles
from executor.workflows.tdd.session.context import SessionPart
from executor.workflows.tdd.trust import verdicts
from executor.workflows.tdd.trust.testfiles import is_test_file

if TYPE_CHECKING:
    from executor.engine.layout import Layout
    from executor.sandbox import Sandbox
    from executor.vcs import GitRepo
    from executor.workflows.tdd.record.state import RunState

#: Files at a repository's root that make it a Python project (with no Python test
#: command, a `package.json` project's Python environment is not pinned).
_PYTHON_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "requirements.txt")


def pin_run(
    state: RunState,
    repo: GitRepo,
    layout: Layout,
    *,
    commands: Sequence[str | None],
    suite: str | None,
    planned: Callable[[], Sequence[str]],
    checkouts: Sequence[Path],
    report: Callable[[str], None],
    test_timeout: float,
    sandbox: Sandbox | None = None,
) -> pinning.Pins:
    """The run's pin: the one it has, or made now, before any agent step (and made again
    while no session started with it and another environment is found: a person who
    fixed the environment before the first agent call runs again). `planned`: the files
    the plan's sessions list (asked only when it pins). Raises ProjectEnvError when the
    environment cannot run the tests."""
    pinned = state.run.pinned
    if pinned is not None and (pinned.used or pinned.environment is None or state.run.lane):
        return pinning.Pins(pinned, layout.pinned)  # a lane's: its parallel run's, for all
    found = projectenv.find(repo.root)
    if pinned is not None and pinned.environment is not None:
        if found.python == pinned.environment.python:
            return pinning.Pins(pinned, layout.pinned)
        report(f"[run] the environment found is now {found.describe()}: no session started "
               f"with the one pinned before, so the run's tests run with this one")  # fmt: skip
    probe = projectenv.probe(found, root=repo.root)
    words = [c for c in [*commands, suite] if c]
    python = _is_python(repo.root, words)
    if python and not probe.has_pytest and any("pytest" in c for c in words):
        raise ProjectEnvError(
            f"pytest is not installed in {found.describe()}, which runs this project's "
            f"tests: install it there (`{found.python} -m pip install pytest`), or "
            f"activate the environment that has it, and run the same command again. "
            f"Nothing was touched."
        )
    if python:
        _check_collects(pinning.tested_with(found, probe, os.environ), repo, suite,
                        planned(), test_timeout, sandbox)  # fmt: skip
    git = gitfiles.places(repo.git_dir, repo.root, os.environ)
    state.run.pinned = pinning.pin(found, probe, checkouts=list(checkouts), python=python,
                                   git=git, path=layout.pinned, environ=os.environ)  # fmt: skip
    return pinning.Pins(state.run.pinned, layout.pinned)


def _is_python(root: Path, commands: Sequence[str]) -> bool:
    words = ("pytest", "python", "tox", "nox")
    if any(w in c for c in commands for w in words):
        return True
    return any((root / f).is_file() for f in _PYTHON_FILES) or not (root / "package.json").exists()


def _check_collects(
    env: pinning.TestEnvironment,
    repo: GitRepo,
    suite: str | None,
    planned: Sequence[str],
    timeout: float,
    sandbox: Sandbox | None,
) -> None:
    """Before the first agent call: the project's tests, as HEAD holds them, can import
    the project and what it needs in `env`. A module missing there is the
    environment's failure, said once, and costs no agent attempt (a module the plan
    lists, `planned`, or code that does not load is the sessions' to make or fix)."""
    if not suite or "pytest" not in suite:
        return
    paths = repo.paths_in("HEAD")
    if not any(is_test_file(p) and p.endswith(".py") for p in paths):
        return  # nothing to collect yet
    from executor.testrun import run_tests

    command = shlex.join([*shlex.split(suite), "--collect-only", "-q"])
    run = run_tests(command, cwd=repo.root, timeout_s=timeout,
                    interpreter=pinning.interpreter(env), sandbox=sandbox)  # fmt: skip
    if not run.collection_error or run.timed_out:
        return
    where, python = f"{env.python} ({env.source})", shlex.quote(env.python)
    dependency = verdicts.missing_dependency(run, [*paths, *planned])
    unplanned = verdicts.missing_dependency(run, planned)  # the project's own, or not
    if dependency is not None:
        cause = (
            f"they cannot import {dependency!r}, which is no part of the repository and is "
            f"not installed there: install it there (`{python} -m pip install ...`)"
        )
    elif unplanned is not None and "." not in unplanned:
        cause = (
            f"they cannot import the project itself ({unplanned!r}, in the repository but "
            f"not on the import path): install it there (`{python} -m pip install -e .`)"
        )
    else:
        return  # a module the plan's sessions make, or code that does not load: theirs
    raise ProjectEnvError(
        f"the project's tests do not collect in {where}, where they run: {cause}, or "
        f"activate the project's own environment, and run the same command again "
        f"(`executor config` says which environment is found). No agent was called; "
        f"nothing was touched."
    )


class PinJudge(SessionPart):
    """Each judge of the run's pin, for one session: after an agent step or a test run a
    difference is the session's; while none ran, the person's."""

    def after(self, when: str, *, agent: bool = False) -> list[str]:
        """What differs from the pin after `when` ("its agent step", "the test run"): the
        session's change. git's own files are put back; an environment that differs is
        `unsettled` until a person takes it in, or it is as pinned again. An `agent`
        step is told the whole difference; a test run what it changed itself."""
        pins = self.r.pins
        env = pins.pinned.environment
        changes = pins.changes(env.python if env else None)
        if changes is None:  # nothing can be taken in as a person's until one looks
            pins.pinned.unsettled = {str(pins.path): "changed"}
            return [self._pin_file_changed()]
        self.r.pins_settled = True  # compared now: nothing waited since
        out = []
        if changes.git:
            pins.put_back_git(list(changes.git))
            out.append(
                f"git's own files changed during {when} (what your next git command runs): "
                f"{verdicts.describe(pinning.shown(changes.git, *self.roots()))}; they "
                f"were put back as they were when the run started"
            )
        new = {p: w for p, w in changes.environment.items() if pins.pinned.unsettled.get(p) != w}
        if pins.pinned.unsettled and not changes.environment:
            self._say("the project's environment is as the run pinned it again")
        pins.pinned.unsettled = changes.environment
        if changes.environment and (new or agent):
            out.append(self._unsettled(when, None if agent else new))
        return out

    def environment_changes(self) -> list[str]:
        """At verification: the environment as an agent step or a test run left it, when
        it is not the pinned one (refused until a person takes it in)."""
        return [self._unsettled("the session")] if self.r.pins.pinned.unsettled else []

    def _unsettled(self, when: str, only: dict[str, str] | None = None) -> str:
        pins = self.r.pins
        env = pins.pinned.environment
        what = f"{env.python} ({env.source})" if env else "the project's environment"
        step = self.rec.step.value.split("_", 1)[0].upper()
        shown = pinning.shown(only or pins.pinned.unsettled, *self.roots())
        return (
            f"the project's environment changed during {step} ({when}): what the tests "
            f"run with, {what}, is not what the run pinned: {verdicts.describe(shown)} (a "
            f"package, a plugin, a .pth file or the interpreter decides what passes as "
            f"surely as a conftest.py; a person may take it in at the next question)"
        )

    def roots(self) -> list[Path | str]:
        """What paths are shown relative to: the repository, then the checkouts the
        pin is of (a lane's person's checkout)."""
        return [self.r.repo.root, *self.r.pins.pinned.checkouts]

    def _pin_file_changed(self) -> str:
        return (
            f"the executor's record of what the run pinned ({self.r.layout.pinned}) is not "
            f"what it wrote, so nothing can be compared with it (tampering)"
        )

    def take_environment(self) -> None:
        """A person takes the environment as it is now into the run: pinned anew (what
        decides which one is found too). A session's tests run with it from now on."""
        self.r.pins = repin(self.r.state, self.r.repo, self.r.layout, self.r.pins)
        self.rec.environment = self.r.pins.pinned.environment

    def interpreter_moved(self) -> str | None:
        """The environment found now, when it is not the one the run pinned."""
        env = self.r.pins.pinned.environment
        if env is None:
            return None
        try:
            found = projectenv.find(self.r.repo.root)
        except ProjectEnvError as e:
            return str(e)
        return None if found.python == env.python else found.describe()


def repin(state: RunState, repo: GitRepo, layout: Layout, pins: pinning.Pins) -> pinning.Pins:
    """`pins` made anew from what is there now (what a person took in), for the same
    checkouts."""
    found = projectenv.find(repo.root)
    probe = projectenv.probe(found, root=repo.root)
    old = pins.pinned
    made = pinning.pin(found, probe, checkouts=[Path(c) for c in old.checkouts or [str(repo.root)]],
                       python=old.python, git=old.git, path=layout.pinned,
                       environ=os.environ)  # fmt: skip
    made.used = old.used
    state.run.pinned = made
    return pinning.Pins(made, layout.pinned)
