"""The agent's brief: session-scoped, never the whole plan.

It holds the session's own markdown section (without the plan's commit steps: the
executor commits), what this step must do, a bounded digest of the sessions it depends
on (what they built, their commits, their agent's last word: context that agents lose
to compaction), the test command we will run, and (when retrying) the failure output
and the person's feedback. Its size depends on the session, not on the plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from executor.plan.cache import PlanView
from executor.plan.models import Session
from executor.words import plural
from executor.workflows.tdd.record.session import SessionRecord
from executor.workflows.tdd.record.state import RunState, SessionArchive

if TYPE_CHECKING:
    from executor.engine.agents import AgentResult

#: The digest of the sessions a brief's session depends on stays under this.
DIGEST_BYTES = 4096

#: Bump when the wording below changes meaningfully: it is part of the definition hash.
BRIEF_VERSION = "2"

_STEP_TEXT = {
    "red": (
        "RED: write the failing tests for this session, and nothing else. Do not implement "
        "the feature. The executor will run the test command below and requires it to FAIL "
        "because the new tests fail (a missing module counts). An empty run (no tests "
        "collected) is rejected."
    ),
    "green": (
        "GREEN: implement the code so the tests written in RED pass. Do not delete, skip or "
        "weaken tests (the executor checks). The executor will run the test command below "
        "and the project's whole suite; both must pass."
    ),
    "refactor": (
        "REFACTOR: improve the code (names, duplication, docstrings) without changing "
        "behaviour. Tests must still pass; do not delete or skip any."
    ),
}

_MAX_FAILURE_CHARS = 6000


def render_brief(
    *,
    session: Session,
    state: SessionRecord,
    role: str,
    test_command: str | None,
    suite_command: str | None,
    repo_root: Path,
    digest: str,
) -> str:
    lines = [
        f"# Brief: session {session.number}: {session.title} ({role.upper()} step, "
        f"attempt {state.attempt})",
        "",
        f"Repository root (your working directory): {repo_root}",
        "",
        "## Your task",
        _STEP_TEXT[role],
        "",
        "Rules: work only inside the repository; do not run `git commit` (the executor "
        "verifies and commits); answer briefly with the files you changed.",
        "",
        "## Test command the executor will run",
        f"`{test_command}`" if test_command else "(none named; the project's suite)",
    ]
    if role != "red" and suite_command and suite_command != test_command:
        lines += ["", f"Whole suite (must not regress): `{suite_command}`"]
    if session.files:
        lines += ["", "## Files this session creates or modifies"]
        lines += [f"- `{f.path}`" + (f" ({f.note})" if f.note else "") for f in session.files]
    if session.context_files:
        lines += ["", "## Read these first (the plan's requirements and design)"]
        lines += [f"- `{_shown(p, repo_root)}`" for p in session.context_files]
    if digest:
        lines += ["", "## What the sessions this one depends on did", digest]
    if state.feedback:
        lines += ["", "## Feedback from the person (apply it)"]
        lines += [f"- {fb}" for fb in state.feedback]
    if state.last_failure:
        failure = state.last_failure[-_MAX_FAILURE_CHARS:]
        lines += ["", "## Why the previous attempt was rejected", "```", failure, "```"]
    lines += [
        "",
        "## The session, as written in the plan",
        "",
        (session.brief_text or session.source_text).strip(),
        "",
    ]
    return "\n".join(lines)


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def digest(
    plan: PlanView,
    state: RunState,
    archive: SessionArchive | None,
    dependencies: Sequence[int],
) -> str:
    """Title, commit, changed files and the agent's final message of each session this
    one depends on (from the archive of finished sessions, or its record while it is
    still in progress); at most DIGEST_BYTES in all (each gets an equal share)."""
    found = {d: state.record(d) or (archive.get(d) if archive else None) for d in dependencies}
    done = [(d, rec) for d, rec in sorted(found.items()) if rec is not None]
    if not done:
        return ""
    share = DIGEST_BYTES // len(done)
    parts = []
    for number, rec in done:
        session = plan.session(number)
        title = session.title if session else "(no longer in the plan)"
        lines = [f"### Session {number}: {title}"]
        if rec.commit_hash:
            lines.append(f"- commit {rec.commit_hash[:12]}")
        if rec.files_modified:
            lines.append("- files: " + ", ".join(f"`{f}`" for f in rec.files_modified[:30]))
        said = [c.message for c in rec.agent_calls if c.status == "success" and c.message]
        if said:
            lines.append(f"- its agent said last: {said[-1].strip()}")
        text = "\n".join(lines)
        if len(text.encode("utf-8")) > share:
            text = text.encode("utf-8")[: share - 20].decode("utf-8", "ignore") + " [cut]"
        parts.append(text)
    return "\n".join(parts)


def usage_line(result: AgentResult) -> str:
    """What an agent call cost, as its CLI reported it."""
    parts = []
    if result.cost_usd is not None:
        parts.append(f"${result.cost_usd:.4f}")
    if result.input_tokens is not None or result.output_tokens is not None:
        parts.append(f"{result.input_tokens or 0:,} tokens in, {result.output_tokens or 0:,} out")
    if result.turns is not None:
        parts.append(plural(result.turns, "turn"))
    return ", ".join(parts)
