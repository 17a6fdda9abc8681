"""`executor logs [SESSION] [-f]`: the current (or named) session's latest agent
transcript and test output; `-f` follows them as the run writes them, until the run is
over (`executor.workflows.tdd.views.logs`) or Ctrl+C (exit 130)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from executor.cli.spec import Commands
from executor.params import Param

if TYPE_CHECKING:
    import codecs
    from pathlib import Path

    from executor.workflows.tdd.views.logs import Log

commands = Commands()


@commands(
    "logs",
    Param("session", kind="int", minimum=1, metavar="SESSION",
          help="Session number (default: the one the run is at)."),
    Param("follow", "-f", "--follow", kind="flag",
          help="Keep showing what the run writes until it is over (Ctrl+C stops)."),
    Param("lines", "-n", "--lines", kind="int", default=100, minimum=0, metavar="N",
          help="The last N lines of each (0: all)."),
    Param("plan", "--plan", kind="path", metavar="PLAN",
          help="Plan folder or file (default: found)."),
)  # fmt: skip
def logs(session: int | None, follow: bool, lines: int, plan: Path | None) -> None:
    """The session's latest agent transcript and test output (-f: follow them)."""
    from executor import console
    from executor.cli import common

    def body() -> int:
        from executor.engine.layout import Layout
        from executor.workflows.tdd.views import logs as runlogs

        named = common.resolve_plan(plan)
        _check(named, session)
        layout = Layout(named if named.is_dir() else named.parent)
        number = session if session is not None else runlogs.current_session(layout)
        shown = runlogs.latest(runlogs.all_logs(layout, number)) if number else []
        if not shown and not follow:
            which = f"session {number}" if number else "this run"
            console.err(f"No agent transcript or test output for {which} in {layout.logs}.")
            return 0
        out, offset = _Out(), 0
        for log in shown:
            data, offset = runlogs.tail(log.path, lines)
            out.show(log, data, opened=True)
        if follow:
            last = shown[-1] if shown else None
            for chunk in runlogs.follow(layout, session, last, offset):
                out.show(chunk.log, chunk.data, opened=chunk.opened)
        return 0

    common.run(body)


def _check(named: Path, session: int | None) -> None:
    """The plan exists and holds `session`, as every other command wants them (exit 2,
    exit 64), before "no transcript" is said of what is no session of any plan."""
    from executor.errors import PathNotFoundError

    if not named.exists():
        raise PathNotFoundError(f"plan not found: {named}", path=named)
    if session is not None:
        from executor.workflows.tdd.runner.scope import SessionScope, select
        from executor.workflows.tdd.views.status import load_for_status

        select(load_for_status(named), SessionScope(session))


class _Out:
    """stdout as bytes, with a `==> path <==` line (as `tail` prints) before each log.

    A log holds what an agent or a test run wrote, escape sequences and all: it is
    decoded as it comes (a character cut between two reads is kept for the next) and
    shown through `console.shown`, control characters escaped."""

    def __init__(self) -> None:
        import sys

        self.stream = sys.stdout.buffer
        self.at_line_start = True
        self.any = False
        self.decoders: dict[Path, codecs.IncrementalDecoder] = {}

    def show(self, log: Log, data: bytes, *, opened: bool) -> None:
        import codecs
        from pathlib import Path

        from executor import console

        if opened:
            what = {"tests": "test output", "mutants": "mutation run"}.get(
                log.kind, "agent transcript"
            )
            gap = (b"" if self.at_line_start else b"\n") + (b"\n" if self.any else b"")
            path = (
                log.path.relative_to(Path.cwd())
                if log.path.is_relative_to(Path.cwd())
                else log.path
            )
            head = console.shown(f"==> {path} ({what}, session {log.session}) <==\n").encode()
            self.stream.write(gap + head)
            self.at_line_start = self.any = True
        if data:
            decoder = self.decoders.setdefault(
                log.path, codecs.getincrementaldecoder("utf-8")(errors="replace")
            )
            self.stream.write(console.shown(decoder.decode(data)).encode("utf-8"))
            self.at_line_start = data.endswith(b"\n")
        self.stream.flush()
