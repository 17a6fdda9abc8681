"""The agent's brief: session-scoped, never the whole plan.

It holds the session's own markdown section, what this step must do, the files its
dependencies created, the test command we will run, and (when retrying) the failure
output and the person's feedback. Its size depends on the session, not on the plan.
"""

from __future__ import annotations

from pathlib import Path

from executor.engine.state import SessionRecord
from executor.plan.models import Session

#: Bump when the wording below changes meaningfully: it is part of the definition hash.
BRIEF_VERSION = "1"

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
    dependency_files: dict[int, list[str]],
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
    if dependency_files:
        lines += ["", "## Files created by the sessions this one depends on"]
        for dep, files in sorted(dependency_files.items()):
            shown = ", ".join(f"`{f}`" for f in files[:30]) or "(none recorded)"
            lines.append(f"- session {dep}: {shown}")
    if state.feedback:
        lines += ["", "## Feedback from the person (apply it)"]
        lines += [f"- {fb}" for fb in state.feedback]
    if state.last_failure:
        failure = state.last_failure[-_MAX_FAILURE_CHARS:]
        lines += ["", "## Why the previous attempt was rejected", "```", failure, "```"]
    lines += ["", "## The session, as written in the plan", "", session.source_text.strip(), ""]
    return "\n".join(lines)
