"""template-create's questions, answered by a person, by options, or by the defaults.

Every question (`executor.templates.questions`) is also an option (its `flag`). For each
one: the option's value when given; else, with a terminal and without `--skip-qa`, the
person's answer (questionary, through `executor.prompts`); else the detected default.
Without a terminal nobody is asked and nothing hangs: the defaults are taken, and the run
says which. Ctrl+C at a prompt raises KeyboardInterrupt (exit 130); a closed input
(EOFError) means the terminal went away: the remaining questions take their defaults.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from executor.choices import Option
from executor.templates.qa import TEMPLATE_NAME

if TYPE_CHECKING:
    from executor.prompts import FormPrompter
    from executor.templates import Question


def _valid_name(text: str) -> bool | str:
    return bool(TEMPLATE_NAME.match(text.strip())) or (
        "lowercase letters, digits, '.', '_' or '-' (at most 64 characters)"
    )


def _ask(prompter: FormPrompter, q: Question) -> Any:
    if q.kind == "confirm":
        return prompter.confirm(q.text, default=bool(q.default))
    if q.kind == "select":
        options = [Option(value=c.value, label=c.label) for c in q.choices]
        return prompter.select(q.text, options, default=str(q.default))
    validate = _valid_name if q.id == "template_name" else None
    question = f"{q.text} ({q.help})" if q.help else q.text
    return prompter.text(question, default=str(q.default), validate=validate)


def ask_questions(
    questions: Sequence[Question],
    given: Mapping[str, Any],
    *,
    prompter: FormPrompter | None,
    report: Callable[[str], None],
    why_not_asked: str,
) -> dict[str, Any]:
    """question id -> answer, for the questions answered here (options and person);
    the ones left out take their defaults in `executor.templates.answers`.
    `why_not_asked` ends the line that names the defaults taken without a person."""
    got = dict(given)
    defaulted: list[Question] = []
    for q in questions:
        if q.id in got:
            continue
        if prompter is not None:
            try:
                got[q.id] = _ask(prompter, q)
                continue
            except EOFError:
                prompter = None
                why_not_asked = "the terminal closed"
        defaulted.append(q)
    if defaulted:
        shown = ", ".join(f"{q.flag} {q.default!r}" for q in defaulted if q.kind != "confirm")
        report(f"Q&A: {why_not_asked}: taking the detected defaults ({shown or 'confirmed'})")
    return got
