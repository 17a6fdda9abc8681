"""How `executor status` and the end of a run show the state: one table (rich on a
terminal, aligned text elsewhere) and a "next:" line with the command to run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from executor import console
from executor.fsutil import quote
from executor.workflows.tdd.record.counts import duration, tests_cell

COLUMNS = ("Phase", "Session", "Title", "Status", "Tests", "Time", "Commit", "Cost", "Tokens")


def rows(data: dict[str, Any]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for p in data["phases"]:
        for s in p["sessions"]:
            out.append(
                (
                    str(p["number"]),
                    str(s["number"]),
                    s["title"],
                    _status(s),
                    _tests(s),
                    duration(s.get("duration_seconds")),
                    (s.get("commit_hash") or "-")[:10],
                    _cost(s.get("agent_cost_usd")),
                    _tokens(s.get("agent_tokens")),
                )
            )
    return out


def render_status(data: dict[str, Any], *, rich: bool) -> None:
    table = rows(data)
    if not table:
        console.out(f"{data['plan']}: the plan has no sessions to run (`executor plan validate "
                    f"{quote(data['plan'])}` says why)")  # fmt: skip
        return
    title = f"{data['plan']}: {data['status']}"
    usage = _usage(data)
    if usage:
        title += f" (agents: {usage})"
    if rich:
        from rich.table import Table

        view = Table(title=console.shown(title))
        for col in COLUMNS:
            view.add_column(col, justify="right" if col in {"Phase", "Session"} else "left")
        for row in table:
            view.add_row(*(console.shown(cell) for cell in row))
        console.show(view)
    else:
        console.out(title)
        widths = [max([len(c), *(len(r[i]) for r in table)]) for i, c in enumerate(COLUMNS)]
        for row in [COLUMNS, *table]:
            console.out(
                "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
            )
    live = data.get("live")
    if live:
        console.out(live_line(live))
    for line in parallel_lines(data.get("parallel")):
        console.out(line)
    for line in question_lines(data):
        console.out(line)
    latest = latest_transcript(data)
    if latest:
        console.out(f"last agent transcript: {latest}")
    console.out(f"next: {next_line(data)}")


def parallel_lines(side: dict[str, Any] | None) -> list[str]:
    """What runs where in a parallel run, what waits on what, the waves, kept worktrees."""
    if not side:
        return []
    lines = []
    for lane in side["lanes"]:
        where = f"{lane['worktree']} ({lane['branch']}, worker {lane['worker']})"
        if lane["status"] == "integrated":
            lines.append(f"  session {lane['session']}: integrated; its worktree {where} is kept "
                         f"({', '.join(lane['kept'][:5])} not clean); remove it with: "
                         f"{lane['cleanup']}")  # fmt: skip
            continue
        who = f", run by {lane['driven_by']}" if lane["driven_by"] else ", no run drives it now"
        what = lane["step"] or lane["status"]
        if lane["pending_request"]:
            what += ", waiting for an answer"
        if lane.get("waits_for_core"):
            what += ", its test run waiting for a core"
        if lane["reason"]:
            what += f": {lane['reason']}"
        lines.append(f"  session {lane['session']}: {what}, {duration(lane['elapsed_seconds'])} "
                     f"in {where}{who}")  # fmt: skip
    for wait in side["waiting"]:
        why = []
        if wait["dependencies"]:
            why.append("session(s) " + ", ".join(map(str, wait["dependencies"])) + " to complete")
        if wait["same_files"]:
            why.append("session(s) " + ", ".join(map(str, wait["same_files"]))
                       + " (the same files) to finish")  # fmt: skip
        lines.append(f"  session {wait['session']} waits for {' and '.join(why)}")
    for stray in side.get("stray") or []:
        lines.append(f"  {stray['worktree']} ({stray['branch'] or 'detached'}): a worktree no "
                     f"session of this run knows; left as it is (git worktree remove "
                     f"{quote(stray['worktree'])} once you no longer need it)")  # fmt: skip
    if side["waves"]:
        lines.append("  waves: " + " | ".join(
            f"{i}: {', '.join(map(str, wave))}" for i, wave in enumerate(side["waves"], 1)
        ))  # fmt: skip
    title = f"parallel (at most {side['width']} at once):" if side["width"] else "parallel:"
    return [title, *lines] if lines else []


def question_lines(data: dict[str, Any]) -> list[str]:
    """Each question a parked session waits on (its work kept under a ref, not in the
    checkout), with the command that asks it; each session that waits on one."""
    plan = quote(data["plan"])
    lines = []
    for q in data.get("questions") or []:
        choices = ", ".join(o["value"] for o in q["options"])
        conflict = (f"; its merge conflicts in {', '.join(q['conflicts'])} (resolve them in the "
                    f"checkout)" if q["conflicts"] else "")  # fmt: skip
        lines.append(
            f"  session {q['session']} waits for your answer (parked since {_local(q['parked_at'])}"
            f", its work under {q['ref']}{conflict}): {q['question']} (choices: {choices}); "
            f"answer: executor {' '.join(q['answer'])} --plan {plan}"
        )
    for p in data["phases"]:
        for s in p["sessions"]:
            if s.get("waiting_on"):
                on = ", ".join(map(str, s["waiting_on"]))
                lines.append(f"  session {s['number']} waits on session(s) {on} (parked)")
    return ["questions waiting:", *lines] if lines else []


def live_line(live: dict[str, Any]) -> str:
    """`running now: pid 123 on host, session 2 at green_agent since 19:03:11 (2m10s)`."""
    who = f"pid {live['pid'] or '?'} on {live['host'] or '?'}"
    where = f"session {live['session']} at {live['step']}" if live["session"] else "starting"
    since = ""
    if live.get("step_since"):
        at = _local(live["step_since"])
        since = f" since {at}" if at else ""
    return f"running now: {who}, {where}{since} (run started {_local(live['started_at'])})"


def _local(stamp: str) -> str:
    """An ISO UTC time as this machine's local clock time (`19:03:11`)."""
    from datetime import datetime

    try:
        at = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    return at.astimezone().strftime("%H:%M:%S")


def latest_transcript(data: dict[str, Any]) -> str | None:
    """The newest agent transcript of the plan (`.agent-logs/`), if any call left one."""
    logs: list[str] = [
        t for p in data["phases"] for s in p["sessions"] for t in s.get("transcripts") or []
    ]
    if not logs:
        return None
    return max(logs, key=lambda t: Path(t).stat().st_mtime if Path(t).exists() else 0.0)


def next_line(data: dict[str, Any]) -> str:
    plan = quote(data["plan"])
    nxt = data.get("next") or {}
    session = nxt.get("session")
    go_on = " ".join(nxt.get("words") or ["resume-session", str(session)])
    if nxt.get("do") == "watch":
        if nxt.get("asking"):
            return (
                f"answer the question it asks at its terminal; meanwhile executor logs "
                f"--plan {plan} shows the session's latest transcript and test output"
            )
        return (
            f"nothing while it runs: follow it with executor logs -f --plan {plan} (it ends "
            f"with the run; then executor status --plan {plan} says what comes next)"
        )
    if nxt.get("do") == "answer":
        who = "the person's answer" if nxt.get("kind") == "human" else "the agent's answer"
        folder = quote(Path(data["plan"]))
        return (
            f"write {who} (executor bridge show --dir {folder}; executor bridge respond "
            f"--dir {folder} ...), then: executor {go_on} --plan {plan} --resume"
        )
    if nxt.get("do") == "answer_all":
        return (
            f"answer each waiting request (executor bridge show --all --dir {plan}; executor "
            f"bridge respond --dir DIR ...), then: executor execute-plan --plan {plan} --resume"
        )
    if nxt.get("do") == "answer_parked":
        return (
            f"answer session {session}'s question at a terminal: executor {go_on} --plan "
            f"{plan} (its work comes back into the checkout and it asks; from a host, the "
            f"same command without --yes asks it over the bridge, exit 42)"
        )
    if nxt.get("do") == "continue":
        return f"executor execute-plan --plan {plan}"
    if nxt.get("do") == "resume":
        return (
            f"executor {go_on} --plan {plan}  (with its saved options; --yes, never saved, "
            f"approves every checkpoint)"
        )
    if nxt.get("do") == "done":
        return "nothing: every session is complete"
    if nxt.get("do") == "git_init":
        return (
            f"the plan is not inside a git repository: run git init in the project, commit "
            f"the plan, then executor execute-plan --plan {plan}"
        )
    return f"executor execute-plan --plan {plan}"


def _status(s: dict[str, Any]) -> str:
    status = str(s["status"])
    if s.get("adopted"):
        return "completed (adopted)"
    if status == "awaiting_approval" and s.get("step"):
        return f"awaiting_approval ({s['step']})"  # the seed's checkpoint names
    if s.get("parked"):
        return f"{status} (parked: a question)"
    if s.get("waiting_on"):
        return f"{status} (waits on {', '.join(map(str, s['waiting_on']))})"
    return status


def _tests(s: dict[str, Any]) -> str:
    return tests_cell(s.get("tests_written"), s.get("tests_passing"), s.get("tests_counted"))


def _cost(usd: float | None) -> str:
    return "-" if usd is None else f"${usd:.2f}"


def _tokens(tokens: int | None) -> str:
    return "-" if tokens is None else f"{tokens:,}"


def _usage(data: dict[str, Any]) -> str:
    """What the agents reported in total: cost and tokens, each when known. A CLI that
    reports tokens but no cost (Codex, Gemini CLI) still shows its tokens."""
    parts = []
    if data.get("agent_cost_usd") is not None:
        parts.append(_cost(data["agent_cost_usd"]))
    if data.get("agent_tokens") is not None:
        parts.append(f"{data['agent_tokens']:,} tokens")
    return ", ".join(parts)
