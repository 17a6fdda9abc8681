"""One mutation run of a session, as the workflow hands it to the runner
(`executor.strength.runner.measure`); light to import (the host's step after exit 42
loads the workflow, not the mutator)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from executor.projectenv import Interpreter
    from executor.strength.mutants import Mutant


@dataclass(frozen=True)
class SessionTests:
    """The tests that must pin the session's code: files, and (None: all of them) ids."""

    files: list[str]
    ids: list[str] | None = None


@dataclass
class Job:
    """One mutation run of a session (`SessionRun.measure` runs it): its mutants, how to
    write the tested tree to a folder, the pytest command's first words, the session's
    tests, what else to collect (the suite's arguments), the budget and the log."""

    mutants: list[Mutant]
    export: Callable[[Path], object]
    prefix: list[str]
    tests: SessionTests
    collect: list[str]
    budget: float
    log: Path | None
    #: the project's environment the session's tests ran in (None: found from the copy)
    interpreter: Interpreter | None = None
    #: a JavaScript/TypeScript session (`executor.strength.stryker`): the changed lines
    #: of each code file, and the test command Stryker runs against each mutant
    stryker: dict[str, set[int]] | None = None
    command: str = ""
    #: called with the run's pid once it runs (what stops a run started ahead early:
    #: `executor.workflows.tdd.session.early_mutation`)
    on_start: Callable[[int], None] | None = None
    #: while this folder exists, the mutants wait (`executor.strength.runner.measure`)
    hold: Path | None = None
