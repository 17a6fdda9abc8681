"""The session commit: its subject, message and the trailers that identify it (P20)."""

from __future__ import annotations

import re
import unicodedata

from executor.plan.cache import PlanView
from executor.plan.models import Session
from executor.workflows.tdd.record.counts import tests_line
from executor.workflows.tdd.record.session import SessionRecord
from executor.workflows.tdd.trust.testfiles import is_test_file


def trailers(plan: PlanView, session: Session, run_id: str) -> dict[str, str]:
    """`Agent-Run` + `Agent-Step` find the commit again after a crash (adoption)."""
    return {
        "Plan": plan.name,
        "Session": str(session.number),
        "Agent-Run": run_id,
        "Agent-Step": f"session-{session.number}",
    }


def person_checks(session: Session) -> list[str]:
    """The checks the plan asks a person to make for `session` (a checkpoint session is
    one whole)."""
    found = list(session.checkpoints)
    if session.is_checkpoint and not found:
        found.append(session.title)
    return found


def unchecked_trailer(unchecked: list[str]) -> dict[str, str]:
    """`Not-Verified: a person's check (2): Test the page on a phone; ...` when the checks
    a person makes were approved with no person looking."""
    if not unchecked:
        return {}
    said = "; ".join(" ".join(c.split()) for c in unchecked)
    said = said if len(said) <= 200 else said[:197].rstrip() + "..."
    return {"Not-Verified": f"a person's check ({len(unchecked)}): {said}"}


def person_trailer(edited: list[str]) -> dict[str, str]:
    """`Person-Edited: pkg/s1.py, ...`: files of the session a person changed while it
    waited, taken in with nobody to ask: the commit is not only the agent's."""
    if not edited:
        return {}
    said = ", ".join(edited)
    return {"Person-Edited": said if len(said) <= 200 else said[:197].rstrip() + "..."}


def _scope(plan: PlanView, session: Session) -> str:
    for f in session.files:
        first = f.path.strip("/").split("/")[0]
        if "/" in f.path and not is_test_file(f.path) and first not in {"tests", "test", "src"}:
            return first
    slug = "".join(ch if ch.isalnum() else "-" for ch in plan.name.lower()).strip("-")
    return slug or "plan"


def commit_subject(plan: PlanView, session: Session) -> str:
    """`feat(<scope>): <title>`; a spec-kit title's `(Priority: P1)` and emoji tags are
    the plan's bookkeeping, not what the commit did."""
    title = re.sub(r"\s*\(Priority:[^)]*\)", "", session.title)
    tag = next((i for i, ch in enumerate(title) if unicodedata.category(ch) == "So"), None)
    title = " ".join(title[:tag].split())  # from an emoji on (`🎯 MVP`): a tag
    return f"feat({_scope(plan, session)}): {title or session.title}"


def commit_message(
    plan: PlanView, session: Session, rec: SessionRecord, test_command: str | None
) -> str:
    body = [commit_subject(plan, session), ""]
    body += [f"- {o.text}" for o in session.objectives]
    body += [
        "",
        f"Tests (measured by the executor): "
        f"{tests_line(rec.tests_written, rec.tests_passing, rec.tests_counted)} in "
        f"`{test_command or ''}`.",
        "",
        f"Session {session.number} complete.",
    ]
    return "\n".join(body)
