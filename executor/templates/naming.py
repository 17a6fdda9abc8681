"""Words and cases: split identifiers into words, spell words in a case, tell a case apart.

Placeholders are names with cased variants (`ProjectName` = `TodoApi`, `ProjectNameSnake` =
`todo_api`, ...). Every variant is computed from the same word list, so a template made
from one project renders consistently with another project's name.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_WORD_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")


def split_words(name: str) -> list[str]:
    """`TodoAPIService` -> ['todo', 'api', 'service']; separators are any non-alphanumerics."""
    return [w.lower() for w in _WORD_RE.findall(name)]


def pascal(words: list[str]) -> str:
    return "".join(w[:1].upper() + w[1:] for w in words)


def camel(words: list[str]) -> str:
    head = pascal(words)
    return head[:1].lower() + head[1:]


def snake(words: list[str]) -> str:
    return "_".join(words)


def kebab(words: list[str]) -> str:
    return "-".join(words)


def upper(words: list[str]) -> str:
    return "_".join(w.upper() for w in words)


def lower(words: list[str]) -> str:
    return "".join(words)


def title(words: list[str]) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in words)


#: case name -> (spelling, regex a value in that case must match). The regexes are the
#: manifest's placeholder `pattern`s: they keep values that would break paths or code out.
CASES: dict[str, tuple[Callable[[list[str]], str], str]] = {
    "pascal": (pascal, r"^[A-Z][A-Za-z0-9]*$"),
    "camel": (camel, r"^[a-z][A-Za-z0-9]*$"),
    "snake": (snake, r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$"),
    "kebab": (kebab, r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$"),
    "upper": (upper, r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$"),
    "lower": (lower, r"^[a-z][a-z0-9]*$"),
    "title": (title, r"^[A-Z][A-Za-z0-9]*(?: [A-Z][A-Za-z0-9]*)*$"),
}


def spell(words: list[str], case: str) -> str:
    return CASES[case][0](words)


def pluralize(word: str) -> str:
    """English plural of the last word, keeping its case: Category -> Categories."""
    low = word.lower()
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        plural = word[:-1] + "ies"
    elif low.endswith(("s", "x", "z", "ch", "sh")):
        plural = word + "es"
    else:
        plural = word + "s"
    return plural.upper() if word.isupper() and len(word) > 1 else plural


def singularize(word: str) -> str:
    """Inverse of `pluralize` for the regular forms (used to group file names)."""
    low = word.lower()
    if low.endswith("ies") and len(low) > 4:
        return word[:-3] + "y"
    if low.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if low.endswith("s") and not low.endswith("ss") and len(low) > 3:
        return word[:-1]
    return word


def style_of(identifier: str) -> str | None:
    """The naming style of one identifier, or None when it has a single ambiguous word."""
    core = identifier.strip("_")
    if not core or not core[0].isalpha():
        return None
    if "_" in core:
        if core.isupper():
            return "UPPER_SNAKE_CASE"
        return "snake_case" if core.islower() else None
    if "-" in core:
        return "kebab-case" if core.islower() else None
    if core.isupper():
        return "UPPER_SNAKE_CASE" if len(core) > 1 else None
    if core[0].isupper():
        return "PascalCase"
    if any(c.isupper() for c in core):
        return "camelCase"
    return "lowercase"
