"""Which stops are questions a session may wait on, parked, and how they are said: at the
end of a run that leaves them waiting, and in `executor status`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from executor.choices import Question
from executor.fsutil import quote
from executor.workflows.tdd.record.session import ParkedSession, SessionRecord
from executor.workflows.tdd.record.state import RunState
from executor.workflows.tdd.step import Step, is_escalation

#: The checks whose findings a person may accept (changed tests, changed test
#: infrastructure, a test strength below the minimum): a stop after one of them is a
#: question, one after an agent step (its tampering, its failure), the person's hooks or
#: the evidence check is not.
VERIFYING = frozenset(
    {Step.RED_VERIFY, Step.GREEN_VERIFY, Step.REFACTOR_VERIFY, Step.GREEN_STRENGTH,
     Step.REFACTOR_STRENGTH}
)  # fmt: skip
#: An answer that takes in what a check measured: only a person gives it.
ACCEPT = "accept_"


def is_question(q: Question | None, rec: SessionRecord) -> bool:
    """Whether a stop nobody could answer (`--yes`, no terminal) is a question the session
    may wait on, parked, while the run goes on: a verification stopped it, and its gate
    offers to accept what that verification found. Anything else it found is in the same
    question; nothing of a parked session is committed without a person's answer."""
    return (
        q is not None
        and q.checkpoint is None
        and is_escalation(rec.step)
        and rec.base_commit is not None
        and bool(rec.history)
        and rec.history[-1].step in VERIFYING
        and any(o.value.startswith(ACCEPT) for o in q.options)
    )


def answer_words(number: int) -> list[str]:
    """The subcommand that takes a parked session up again and asks its question."""
    return ["resume-session", str(number)]


def waiting_on(
    dependencies: Mapping[int, Iterable[int]], parked: Iterable[int], done: Callable[[int], bool]
) -> dict[int, list[int]]:
    """Each session not done that waits, through its dependencies, on a parked one: the
    parked sessions it waits on (`dependencies`: each session's, as the plan gives them)."""
    roots = set(parked)
    dependents: dict[int, list[int]] = {}
    for number, deps in dependencies.items():
        for d in deps:
            dependents.setdefault(d, []).append(number)
    # From each parked session down its dependents, through the ones not done: a walk
    # with its own stack, each session once per parked one (a chain of 10,000 sessions
    # neither exceeds the recursion limit nor is walked again from each of its sessions).
    waits: dict[int, set[int]] = {}
    for root in roots:
        reached = {root}
        queue = [root]
        while queue:
            for number in dependents.get(queue.pop(), ()):
                if number in reached or number in roots or done(number):
                    continue
                reached.add(number)
                waits.setdefault(number, set()).add(root)
                queue.append(number)
    return {n: sorted(waits[n]) for n in dependencies if n in waits}


def question_data(number: int, parked: ParkedSession) -> dict[str, Any]:
    """One waiting question as `status --json` and the end of a run give it."""
    return {
        "session": number,
        "question": parked.question,
        "options": [{"value": c.value, "label": c.label} for c in parked.options],
        "step": parked.record.step.value,
        "parked_at": parked.at,
        "ref": parked.ref,
        "conflicts": list(parked.conflicts),
        "answer": answer_words(number),
    }


def questions_data(state: RunState | None) -> list[dict[str, Any]]:
    return [question_data(n, p) for n, p in sorted(state.run.parked.items())] if state else []


def waiting_lines(
    state: RunState,
    numbers: Iterable[int],
    waiting: Mapping[int, list[int]],
    title: Callable[[int], str],
    plan: Path,
    *,
    why: str,
) -> list[str]:
    """What the end of a run says about the questions left waiting (`numbers`: the parked
    sessions of its scope) and the sessions waiting on them; `why` they were not asked."""
    roots = {r for behind in waiting.values() for r in behind}
    asked = sorted({n for n in numbers if n in state.run.parked} | roots)
    where = quote(plan)
    one = len(asked) == 1
    who = f"Session {asked[0]}" if one else "Sessions " + ", ".join(map(str, asked))
    lines = [
        f"{who} {'waits' if one else 'wait'} for a person's answer, and {why}; the "
        f"sessions that do not depend on "
        f"{'it' if one else 'them'} ran. Nothing of {'it' if one else 'them'} is committed. "
        f"State saved."
    ]
    for n in asked:
        p = state.run.parked[n]
        choices = ", ".join(c.value for c in p.options)
        lines.append(
            f"  session {n} ({title(n)}) asks: {p.question} (choices: {choices}); its work "
            f"is kept under {p.ref}"
        )
        # what a person would have been shown with the question, as a stop shows it
        lines += [f"    {line}" for line in p.detail.strip().splitlines()]
    for n, behind in sorted(waiting.items()):
        on = ", ".join(map(str, behind))
        lines.append(f"  session {n} ({title(n)}) waits on session(s) {on}: not started")
    first = asked[0]
    lines.append(
        f"Answer at a terminal: executor {' '.join(answer_words(first))} --plan {where} "
        f"(each waiting session has its own; executor execute-plan --plan {where} asks each "
        f"in turn and goes on with the sessions waiting on them). From a host, the same "
        f"command without --yes asks it over the bridge (exit 42): executor bridge "
        f"respond --dir {where} --response CHOICE --resume. executor status --plan {where} "
        f"lists them."
    )
    return lines
