"""Phase 1: the template-create questions as data, and their answers.

`questions(analysis)` gives each question with its default computed from the (heuristic)
analysis and the option that answers it on the command line, so a CLI can prompt, read
flags, or take every default (`--skip-qa`) from the same list. `answers(...)` checks and
normalises what came back; `apply_answers` makes the user's choices win in the analysis.

What the person chose wins; what they merely accepted does not. A value given as an
option, or an answer other than the default offered, is a choice (`QAAnswers.given`);
a default taken with `--skip-qa`, without a terminal, or by pressing Enter yields to the
agent's analysis, and the default purpose is written from the final analysis.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any, cast

from executor.datamodel import dump, validate
from executor.errors import UserError
from executor.templates.models import Analysis, Choice, QAAnswers, Question
from executor.templates.naming import kebab, split_words

TEMPLATE_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
ARCHITECTURES = (
    "Layered",
    "MVVM",
    "MVC",
    "Clean Architecture",
    "Hexagonal",
    "Component-based",
    "Modular",
    "Microservices",
)
AGENT_CHOICES = (
    Choice(value="ai", label="Ask the architectural-reviewer agent to recommend specialists"),
    Choice(value="builtin", label="Built-in specialists only (language, architecture, tests)"),
    Choice(value="none", label="No agents"),
)


def default_name(analysis: Analysis) -> str:
    return kebab(split_words(analysis.project_name)) or "template"


def default_purpose(analysis: Analysis) -> str:
    return f"{analysis.architecture} {analysis.language} project like {analysis.project_name}"


def questions(analysis: Analysis) -> list[Question]:
    languages = list(dict.fromkeys([analysis.language, *analysis.languages]))
    architectures = list(dict.fromkeys([analysis.architecture, *ARCHITECTURES]))
    return [
        Question(
            id="template_name",
            kind="text",
            flag="--name",
            default=default_name(analysis),
            text="Template name?",
            help="lowercase letters, digits, '.', '_' or '-'",
        ),
        Question(
            id="language",
            kind="select",
            flag="--language",
            default=analysis.language,
            text="Primary language?",
            choices=[Choice(value=v, label=v) for v in languages],
        ),
        Question(
            id="purpose",
            kind="text",
            flag="--purpose",
            default=default_purpose(analysis),
            text="What is the template for (one line)?",
        ),
        Question(
            id="architecture",
            kind="select",
            flag="--architecture",
            default=analysis.architecture,
            text="Architecture?",
            choices=[Choice(value=v, label=v) for v in architectures],
        ),
        Question(
            id="example_files",
            kind="text",
            flag="--example-files",
            default="",
            text="Files to make templates from (comma-separated globs; empty: all)?",
            help="e.g. src/**, pyproject.toml",
        ),
        Question(
            id="agents",
            kind="select",
            flag="--agents",
            default="ai",
            text="Which specialist agents should the template include?",
            choices=list(AGENT_CHOICES),
        ),
        Question(
            id="confirmed",
            kind="confirm",
            flag="--yes",
            default=True,
            text=f"Create the template from {analysis.project_name}?",
        ),
    ]


def answers(
    analysis: Analysis, given: Mapping[str, Any], *, chosen: Collection[str] | None = None
) -> QAAnswers:
    """Answers from `given` (question id -> value), defaults for the rest. `chosen`: the
    ids of `given` the person chose (see the module docstring; default: all of them).

    Raises UserError (naming the option) for a template name that is not a valid
    folder name or an agents choice that is not offered."""
    qs = {q.id: q for q in questions(analysis)}
    picked = set(given if chosen is None else chosen) & set(qs)
    values = {qid: given.get(qid, q.default) for qid, q in qs.items()}
    name = str(values["template_name"]).strip()
    if not TEMPLATE_NAME.match(name):
        raise UserError(
            f"template name {name!r} is not valid ({qs['template_name'].flag}): use "
            "lowercase letters, digits, '.', '_' or '-', at most 64 characters"
        )
    agents = str(values["agents"])
    offered = [c.value for c in AGENT_CHOICES]
    if agents not in offered:
        raise UserError(f"--agents must be one of {', '.join(offered)}, got {agents!r}")
    raw = values["example_files"]
    globs = raw if isinstance(raw, list) else str(raw).split(",")
    return QAAnswers(
        template_name=name,
        language=str(values["language"]).strip() or analysis.language,
        purpose=str(values["purpose"]).strip(),
        architecture=str(values["architecture"]).strip() or analysis.architecture,
        example_files=[str(g).strip() for g in globs if str(g).strip()],
        agents=cast(Any, agents),
        confirmed=bool(values["confirmed"]),
        given=sorted(picked),
    )


def chose(qa: QAAnswers, field: str, *, asked: Analysis) -> bool:
    """Whether the person chose `field` (an older state without `given`: whether the
    answer differs from the default offered, computed from `asked`)."""
    if qa.given is not None:
        return field in qa.given
    if field == "purpose":
        return True  # an older state kept its purpose as it was
    return bool(getattr(qa, field)) and getattr(qa, field) != getattr(asked, field)


def apply_answers(analysis: Analysis, qa: QAAnswers, *, asked: Analysis) -> Analysis:
    """The analysis with the language and architecture the person chose (source `user`),
    even where the agent said otherwise; a default they only accepted is no choice, so
    the agent's finding stands (`asked`: the analysis the defaults came from)."""
    out = validate(Analysis, dump(analysis))
    for field in ("language", "architecture"):
        if chose(qa, field, asked=asked):
            setattr(out, field, getattr(qa, field))
            out.sources[field] = "user"
    return out


def purpose(qa: QAAnswers, analysis: Analysis) -> str:
    """What the template is for: the person's words, else the default written from the
    final `analysis` (so it names the architecture the agent found)."""
    if qa.given is None or "purpose" in qa.given:
        return qa.purpose
    return default_purpose(analysis)
