"""A session's test counts and duration as every view shows them: `executor status`, the
checkpoints and the commit message say the same numbers in the same words.

Counts are the runner's report's; tests RED could not collect are counted from the source
("not collected"), and a command without a report the executor reads is "not measured
(exit code only)", never "0 passing of 0". A session's time runs from its start to its
commit, waits for agents and people included."""

from __future__ import annotations

from typing import TYPE_CHECKING

from executor.workflows.tdd.record.session import SessionRecord, TestsCounted

if TYPE_CHECKING:
    from datetime import datetime

    from executor.testrun import TestRun

NOT_MEASURED = "not measured (exit code only)"


def counted(run: TestRun | None, *, from_source: bool = False) -> TestsCounted:
    """How a verification's counts were measured: from the runner's report, from the
    test files (`from_source`: RED could not collect them), or not at all."""
    if run is not None and not run.structured:
        return "exit_code"
    return "source" if from_source else "report"


def tests_line(written: int | None, passing: int | None, counted: TestsCounted | None) -> str:
    """`13 passing of 13`, `0 passing of 3 (not collected)`, or NOT_MEASURED."""
    if counted == "exit_code":
        return NOT_MEASURED
    line = f"{passing or 0} passing of {written or 0}"
    return line + (" (not collected)" if counted == "source" or written is None else "")


def tests_cell(written: int | None, passing: int | None, counted: TestsCounted | None) -> str:
    """The same, for a table: `13/13`, `0/3 (not collected)`, NOT_MEASURED, `-`."""
    if counted == "exit_code":
        return NOT_MEASURED
    if written is None and passing is None:
        return "-"
    cell = f"{passing or 0}/{written if written is not None else '?'}"
    return cell + (" (not collected)" if counted == "source" or written is None else "")


def elapsed(rec: SessionRecord, *, now: bool = False) -> float:
    """Seconds from the session's start to its commit; for a session not finished, to its
    latest step (`now`: to this moment, while a run is at it). The steps' own time when
    a timestamp is missing or unreadable."""
    from datetime import datetime, timezone  # not on the host's resume path

    end = rec.completed_at or (None if now else (rec.history[-1].at if rec.history else None))
    start = _parsed(rec.started_at)
    stop = datetime.now(timezone.utc) if end is None and now else _parsed(end)
    if start is not None and stop is not None:
        return max((stop - start).total_seconds(), 0.0)
    return sum(h.seconds for h in rec.history)


def duration(seconds: float | None) -> str:
    """`3m15s`, `42s`, `1h05m`; `-` for none."""
    if not seconds:
        return "-"
    minutes, secs = divmod(int(seconds), 60)  # whole seconds, cut: one rounding everywhere
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def _parsed(stamp: str | None) -> datetime | None:
    from datetime import datetime

    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
