"""What a parallel run pins before any lane starts: the one pin every lane's run and the
integration suite use (`executor.workflows.tdd.session.checks.pins`; a lane takes it
when its state is made, `lanes.seed`). The parallel run compares it whenever it looks at the lanes
(`Shared.check_pins`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from executor.choices import Option
from executor.errors import VerificationFailedError

if TYPE_CHECKING:
    from executor.engine.layout import Layout
    from executor.pinning import Pins
    from executor.prompts import Prompter
    from executor.vcs import GitRepo
    from executor.workflows.tdd.runner.opening import Opened


def pin_lanes(
    opened: Opened,
    repo: GitRepo,
    layout: Layout,
    report: Callable[[str], None],
    *,
    prompter: Prompter | None,
) -> Pins:
    """The run's pin, for every lane; an environment sessions of an earlier run changed is
    taken in by a person at the terminal (`prompter`) only, else the run stops."""
    from executor.testrun import DEFAULT_TEST_TIMEOUT
    from executor.workflows.tdd.runner.opening import planned
    from executor.workflows.tdd.session.checks.pins import pin_run, repin

    state = opened.state
    pins = pin_run(
        state, repo, layout,
        commands=[opened.command, *(o.red_command for o in opened.plan.outline())],
        suite=opened.suite, planned=lambda: planned(opened.plan),
        checkouts=[repo.root.resolve()], report=report,
        test_timeout=state.run.options.test_timeout or DEFAULT_TEST_TIMEOUT,
    )  # fmt: skip
    pins.pinned.used = True  # the lanes start with it
    if not pins.pinned.unsettled:
        return pins
    env = pins.pinned.environment
    changes = pins.changes(env.python if env else None)
    if changes is not None and not changes.environment:
        pins.pinned.unsettled = {}
        report("[run] the project's environment is as the run pinned it again")
        return pins
    why = unsettled_message(pins, repo.root)
    if not _taken_in(why, prompter):
        raise VerificationFailedError(why)
    return repin(state, repo, layout, pins)


def _taken_in(why: str, prompter: Prompter | None) -> bool:
    """A person at the terminal takes the environment in as it is now."""
    if prompter is None:
        return False
    options = [Option("take_in", "Take it in: every session runs with it from now on"),
               Option("stop", "Stop (put it back first)")]  # fmt: skip
    try:
        return prompter.ask(why + " What now?", options).action == "take_in"
    except EOFError:
        return False


def unsettled_message(pins: Pins, root: Path) -> str:
    """Why a parallel run stops: its environment is not what it pinned for every lane."""
    from executor.pinning import shown
    from executor.workflows.tdd.trust.verdicts import describe

    env = pins.pinned.environment
    what = f"{env.python} ({env.source})" if env else "the project's environment"
    return (
        f"the project's environment changed while sessions worked in their worktrees: "
        f"{what}, which every lane and the integration suite run with, is not what the run "
        f"pinned: {describe(shown(pins.pinned.unsettled, root))}. Nothing more is "
        f"integrated. Put it back as it was and run the same command again; or, if the "
        f"change is one you want, run it on a terminal (without --yes) to take it in."
    )
