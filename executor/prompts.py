"""Human decisions behind one seam: the ONLY module that imports questionary (lazily).

The engine asks a `Prompter` and gets a `Decision` back. Three ways to answer:
  TerminalPrompter  a person at a terminal (questionary select, then a text prompt for
                    the feedback when they choose "request_changes");
  ScriptedPrompter  canned answers for the engine's unit tests;
  parse_decision    the bridge form, for a person answering through the host:
                    `approve`, `pause`, `abort` (any option value, case-insensitive), or
                    JSON `{"decision": "request_changes", "feedback": "..."}`, which works
                    for every decision.

On a terminal, Ctrl+C raises KeyboardInterrupt (the CLI maps it to "interrupted") and
a closed input raises EOFError, which the engine treats as "no terminal".
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from executor import console, errors

APPROVE = "approve"
REQUEST_CHANGES = "request_changes"
PAUSE = "pause"
ABORT = "abort"


@dataclass
class Decision:
    """What the person chose: `action` is one of the offered options' values."""

    action: str
    feedback: str = ""


@dataclass
class Option:
    value: str  # stable identifier the engine branches on ("approve", "show_diff", ...)
    label: str  # what the person reads


class Prompter(Protocol):
    def ask(self, question: str, options: Sequence[Option], *, detail: str = "") -> Decision:
        """Ask `question`, offering `options`; `detail` is context shown first."""
        ...


class TerminalPrompter:
    """questionary prompts on a terminal.

    `input`/`output` are prompt_toolkit Input/Output objects for tests; by default the
    current prompt_toolkit app session's (the real terminal).
    """

    def __init__(self, *, input: Any = None, output: Any = None) -> None:
        self._io: dict[str, Any] = {}
        if input is not None:
            self._io["input"] = input
        if output is not None:
            self._io["output"] = output

    def ask(self, question: str, options: Sequence[Option], *, detail: str = "") -> Decision:
        import questionary

        if not options:
            raise ValueError("a question needs at least one option")
        if detail:
            console.out(detail)
        choices = [questionary.Choice(title=o.label, value=o.value) for o in options]
        action = questionary.select(question, choices=choices, **self._io).unsafe_ask()
        if action is None:  # the prompt ended without an answer: no usable terminal
            raise EOFError("the prompt was closed without an answer")
        feedback = ""
        if action == REQUEST_CHANGES:
            answer = questionary.text(
                "What should change? (this goes into the agent's brief)",
                validate=lambda text: bool(text.strip()) or "Please describe the change.",
                **self._io,
            ).unsafe_ask()
            if answer is None:
                raise EOFError("the prompt was closed without an answer")
            feedback = str(answer).strip()
        return Decision(action=str(action), feedback=feedback)


class ScriptedPrompter:
    """Answers from a list, in order; records every question (for engine tests).

    A plain string answer is shorthand for `Decision(action=string)`. An answer that is
    not among the offered options, or running out of answers, raises RuntimeError: the
    test's script does not match what the engine asked.
    """

    def __init__(self, answers: Iterable[Decision | str]) -> None:
        self._answers: deque[Decision] = deque(
            a if isinstance(a, Decision) else Decision(action=a) for a in answers
        )
        self.asked: list[tuple[str, list[Option], str]] = []

    def ask(self, question: str, options: Sequence[Option], *, detail: str = "") -> Decision:
        self.asked.append((question, list(options), detail))
        if not self._answers:
            raise RuntimeError(f"ScriptedPrompter has no answer left for {question!r}")
        answer = self._answers.popleft()
        values = [o.value for o in options]
        if answer.action not in values:
            raise RuntimeError(
                f"scripted answer {answer.action!r} is not an option of {question!r}: {values}"
            )
        return answer

    @property
    def remaining(self) -> int:
        return len(self._answers)


class _DecisionJSON(BaseModel):
    """The JSON form of a bridge answer (written by a host: unknown keys are ignored)."""

    model_config = ConfigDict(extra="ignore")

    decision: str
    feedback: str = ""


def parse_decision(text: str, options: Sequence[Option], *, path: Path) -> Decision:
    """A person's answer relayed through the bridge, as a Decision.

    Accepts an option value or label (case-insensitive, surrounding whitespace and JSON
    string quotes ignored), or JSON `{"decision": ..., "feedback": ...}`.
    "request_changes" must carry non-empty feedback. Anything else raises
    InvalidResponseError naming `path` and the accepted answers.
    """
    values = [o.value for o in options]
    accepted = ", ".join(values) + ', or JSON {"decision": "<one of those>", "feedback": "..."}'
    raw = text.strip()
    feedback = ""
    if not raw:
        raise _invalid(path, "the answer is empty", accepted)
    if raw.startswith("{"):
        try:
            parsed = _DecisionJSON.model_validate_json(raw)
        except ValidationError as e:
            problems = [_problem(err) for err in e.errors()]
            raise _invalid(path, "; ".join(problems), accepted, problems) from e
        word, feedback = parsed.decision.strip(), parsed.feedback.strip()
    elif raw.startswith('"'):
        try:
            loaded = json.loads(raw)
        except json.JSONDecodeError as e:
            raise _invalid(path, f"not valid JSON ({e.msg})", accepted) from e
        word = str(loaded).strip()
    else:
        word = raw
    action = _match(word, options)
    if action is None:
        raise _invalid(path, f"{word!r} is not one of the options", accepted)
    if action == REQUEST_CHANGES and not feedback:
        raise _invalid(
            path,
            "request_changes needs feedback: answer with JSON "
            '{"decision": "request_changes", "feedback": "what should change"}',
            accepted,
        )
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


def _problem(err: Any) -> str:
    where = ".".join(str(p) for p in err.get("loc", ())) or "answer"
    return f"{where}: {err.get('msg', 'invalid')}"


def _invalid(
    path: Path, why: str, accepted: str, problems: Sequence[str] = ()
) -> errors.InvalidResponseError:
    return errors.InvalidResponseError(
        f"invalid decision in {path}: {why}. Accepted answers: {accepted}",
        path=path,
        problems=list(problems) or [why],
    )
