"""A question put to a person, the options it offers and the decision taken: plain
data shared by the prompts (a terminal), the bridge (a human request) and the engine.

`parse_decision` is THE check of an answer relayed through the bridge: `executor bridge
respond` and `bridge validate` run it before anything is written, `--resume` before the
answer is used.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from executor.errors import InvalidResponseError

REQUEST_CHANGES = "request_changes"
#: Feedback longer than this is refused (it goes into state, .bak and every brief).
MAX_FEEDBACK = 64 * 1024


@dataclass(frozen=True)
class Option:
    value: str  # the stable identifier a step branches on ("approve", "show_diff", ...)
    label: str  # what the person reads


@dataclass(frozen=True)
class Decision:
    """What the person chose: `action` is one of the offered options' values."""

    action: str
    feedback: str = ""
    #: asked live (a terminal prompt): time passed while the person thought, so what
    #: changed meanwhile is checked again (a bridge answer was there when the run began)
    waited: bool = False
    #: how it was given (terminal, bridge, yes) and the seconds the question waited for it
    via: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class Question:
    key: str
    text: str
    options: tuple[Option, ...]
    detail: str
    checkpoint: str | None  # None: an escalation after a failure
    session: int
    phase: int
    #: where the full detail is written when it is long (the bridge request names it)
    detail_file: Path


#: The keys a JSON answer may carry (other keys are named when the answer is refused).
ANSWER_FIELDS = ("decision", "feedback")


def options_of(context: Mapping[str, object]) -> tuple[Option, ...] | None:
    """The options a human request offers (its context's `options`); None when it offers
    none (an agent request, or a file someone else wrote)."""
    raw = context.get("options")
    if not isinstance(raw, list):
        return None
    options = tuple(
        Option(str(o["value"]), str(o.get("label", o["value"])))
        for o in raw
        if isinstance(o, dict) and isinstance(o.get("value"), str)
    )
    return options or None


def parse_decision(
    text: str, options: Sequence[Option], *, path: Path, where: str | None = None
) -> Decision:
    """A person's answer relayed through the bridge, as a Decision.

    THE check of an answer to a human request: `executor bridge respond` and `bridge
    validate` run it before anything is written or applied, `--resume` before it is used.

    Accepts an option value or label (case-insensitive, surrounding whitespace and JSON
    string quotes ignored), or JSON `{"decision": ..., "feedback": ...}` (other keys are
    ignored when the answer is good, and named when it is refused).
    "request_changes" must carry non-empty feedback (at most 64 KB). Anything else raises
    InvalidResponseError naming `path` (or `where`), each problem as `field: problem`, and
    the accepted answers.
    """
    values = ", ".join(o.value for o in options)
    accepted = values + ', or JSON {"decision": "<one of those>", "feedback": "..."}'
    where = where or f"in {path}"
    unknown: list[str] = []

    def invalid(why: str) -> InvalidResponseError:
        problems = [*unknown, why]
        return InvalidResponseError(
            f"invalid decision {where}: {'; '.join(problems)}. Accepted answers: {accepted}",
            path=path,
            problems=problems,
        )

    raw = text.strip()
    feedback = ""
    if not raw:
        raise invalid("decision: the answer is empty")
    if raw.startswith(("{", '"')):
        try:
            loaded = json.loads(raw)
        except json.JSONDecodeError as e:
            raise invalid(f"(answer): not valid JSON ({e.msg})") from None
        if isinstance(loaded, dict):
            expected = ", ".join(ANSWER_FIELDS)
            unknown = [
                f"{k}: unknown field; expected one of {expected}"
                for k in loaded
                if k not in ANSWER_FIELDS
            ]
            word, feedback = loaded.get("decision"), loaded.get("feedback", "")
            if not isinstance(word, str):
                raise invalid(f"decision: required, a string (one of {values})")
            if not isinstance(feedback, str):
                raise invalid("feedback: must be a string")
            word, feedback = word.strip(), feedback.strip()
        else:
            word = str(loaded).strip()
    else:
        word = raw
    action = _match(word, options)
    if action is None:
        raise invalid(f"decision: {word[:80]!r} is not one of the options ({values})")
    if action == REQUEST_CHANGES and not feedback:
        raise invalid(
            "feedback: request_changes needs feedback: answer with JSON "
            '{"decision": "request_changes", "feedback": "what should change"}'
        )
    if len(feedback.encode("utf-8")) > MAX_FEEDBACK:
        raise invalid(f"feedback: the feedback is over {MAX_FEEDBACK // 1024} KB")
    return Decision(action=action, feedback=feedback)


def _match(word: str, options: Sequence[Option]) -> str | None:
    folded = word.casefold()
    for option in options:
        if option.value.casefold() == folded:
            return option.value
    for option in options:
        if option.label.strip().casefold() == folded:
            return option.value
    return None
