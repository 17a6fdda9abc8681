"""Human decisions behind one seam: the ONLY module that imports questionary (lazily).

The engine asks a `Prompter` and gets a `Decision` back:
  TerminalPrompter  a person at a terminal (questionary select, then a text prompt for
                    the feedback when they choose "request_changes");
  ScriptedPrompter  canned answers for the engine's unit tests.
(A person answering through the bridge is `executor.engine.decisions.parse_decision`.)

Forms (template-create's questions) ask a `FormPrompter` one field at a time:
`TerminalPrompter.text`, `.select` and `.confirm`.

On a terminal, Ctrl+C raises KeyboardInterrupt (the CLI maps it to "interrupted") and
a closed input raises EOFError, which the engine treats as "no terminal".
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from executor import console
from executor.choices import REQUEST_CHANGES, Decision, Option


class Prompter(Protocol):
    def ask(self, question: str, options: Sequence[Option], *, detail: str = "") -> Decision:
        """Ask `question`, offering `options`; `detail` is context shown first."""
        ...


class FormPrompter(Protocol):
    """One field of a form at a time; each raises EOFError when the input is closed."""

    def text(
        self,
        question: str,
        *,
        default: str = "",
        validate: Callable[[str], bool | str] | None = None,
    ) -> str: ...

    def select(self, question: str, options: Sequence[Option], *, default: str) -> str: ...

    def confirm(self, question: str, *, default: bool) -> bool: ...


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
        shown = console.shown  # the question quotes an agent's or a test run's words
        choices = [questionary.Choice(title=shown(o.label), value=o.value) for o in options]
        ask = questionary.select(shown(question), choices=choices, **self._io)
        action = _answered(_run(ask))
        feedback = ""
        if action == REQUEST_CHANGES:
            answer = questionary.text(
                "What should change? (this goes into the agent's brief)",
                validate=lambda text: bool(text.strip()) or "Please describe the change.",
                **self._io,
            )
            feedback = str(_answered(_run(answer))).strip()
        return Decision(action=str(action), feedback=feedback)

    # -- forms ------------------------------------------------------------------------
    def text(
        self,
        question: str,
        *,
        default: str = "",
        validate: Callable[[str], bool | str] | None = None,
    ) -> str:
        """A line of text (Enter keeps `default`); `validate` returns True or why not."""
        import questionary

        extra: dict[str, Any] = {"validate": validate} if validate is not None else {}
        ask = questionary.text(console.shown(question), default=default, **extra, **self._io)
        return str(_answered(_run(ask)))

    def select(self, question: str, options: Sequence[Option], *, default: str) -> str:
        """One of `options` (its value); the cursor starts on `default`."""
        import questionary

        choices = [questionary.Choice(title=console.shown(o.label), value=o.value) for o in options]
        start = default if any(o.value == default for o in options) else None
        answer = questionary.select(
            console.shown(question), choices=choices, default=start, **self._io
        )
        return str(_answered(_run(answer)))

    def confirm(self, question: str, *, default: bool) -> bool:
        import questionary

        ask = questionary.confirm(console.shown(question), default=default, **self._io)
        return bool(_answered(_run(ask)))


def _run(question: Any) -> Any:
    """`question.unsafe_ask()`, where a SIGINT from outside (`kill -INT`) ends the prompt as
    Ctrl+C does: prompt_toolkit turns the signal into a `<sigint>` key nothing is bound to."""
    from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings
    from prompt_toolkit.keys import Keys

    interrupt = KeyBindings()

    @interrupt.add(Keys.SIGINT)
    def _(event: Any) -> None:
        event.app.exit(exception=KeyboardInterrupt, style="class:aborting")

    app = question.application
    app.key_bindings = merge_key_bindings([app.key_bindings or KeyBindings(), interrupt])
    return question.unsafe_ask()


def _answered(answer: Any) -> Any:
    if answer is None:  # the prompt ended without an answer: no usable terminal
        raise EOFError("the prompt was closed without an answer")
    return answer


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
