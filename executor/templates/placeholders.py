"""Source text -> template text: names become placeholders, `{{` is escaped.

A *concept* is a name with words (`ProjectName`); each case of it that occurs in the
code is its own placeholder (`ProjectNameSnake`, ...). Matching is case-sensitive and
bounded like identifiers, longest spelling first; a one-word name's case is chosen by
its neighbours, else the file type. The choice only matters when the template is
applied with a multi-word name: the round trip holds either way, because every default
is the exact text it replaced. The rules: docs/template-create.md, "Placeholders".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from executor.templates.models import Placeholder
from executor.templates.naming import CASES, pluralize, spell, split_words
from executor.templates.render import ESCAPED_BRACES

#: case -> placeholder name suffix
SUFFIXES: dict[str, str] = {
    "pascal": "",
    "camel": "Camel",
    "snake": "Snake",
    "kebab": "Kebab",
    "upper": "Upper",
    "lower": "Lower",
    "title": "Title",
}
#: ambiguous spellings resolve to the first of these present
_PREFERENCE = ("pascal", "upper", "snake", "camel", "kebab", "lower", "title")
_SNAKE_FILES = frozenset({".py", ".pyi", ".rs", ".rb", ".ex", ".exs", ".sql"})
_CAMEL_FILES = frozenset(
    {
        ".js",
        ".jsx",
        ".ts",
        ".tsx",
        ".mjs",
        ".cjs",
        ".vue",
        ".cs",
        ".java",
        ".kt",
        ".go",
        ".swift",
        ".dart",
        ".scala",
        ".xaml",
    }
)
MIN_LENGTH = 3


@dataclass(frozen=True)
class Concept:
    """A name the template leaves open, spelled from `words`."""

    base: str
    words: tuple[str, ...]
    description: str
    derived_from: str | None = None  # EntityNamePlural <- EntityName


def _name_words(name: str) -> tuple[str, ...]:
    """Words of a name that can start an identifier (`2048-game` -> game)."""
    words = split_words(name)
    while words and words[0][0].isdigit():
        words.pop(0)
    return tuple(words)


def concepts(project_name: str, entity: str | None) -> list[Concept]:
    """ProjectName (`Project` when the name has no usable word), and EntityName /
    EntityNamePlural when an entity is known and distinct from it."""
    project = _name_words(project_name) or ("project",)
    out = [Concept("ProjectName", project, "Project name")]
    words = _name_words(entity or "")
    plural = (*words[:-1], pluralize(words[-1])) if words else ()
    if words and out[0].words not in (words, plural):
        out.append(Concept("EntityName", words, "Main domain entity"))
        out.append(Concept("EntityNamePlural", plural, "Plural of the entity", "EntityName"))
    return out


def _bounded(literal: str) -> str:
    first, last = literal[0], literal[-1]
    if first.isupper() and literal[1:2].islower():  # PascalCase: also after an interface `I`
        before = r"(?:(?<![A-Z0-9])|(?<=(?<![A-Za-z0-9_])I))"
    elif first.isupper():
        before = r"(?<![A-Z0-9])"
    else:
        before = r"(?<![A-Za-z0-9])"
    if last.islower():
        after = r"(?![a-z0-9])"
    elif last.isupper():
        after = r"(?![A-Z0-9])"
    else:
        after = r"(?![0-9])"
    return before + re.escape(literal) + after


def _identifier(text: str, start: int, end: int) -> str:
    """The whole identifier (letters, digits, `_`) around `text[start:end]`."""
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    return text[start:end]


@dataclass
class Substitution:
    """The spellings to look for, compiled once for a whole project; `reserved`: the
    identifiers left as they are (`executor.templates.reserved`)."""

    concepts: list[Concept]
    reserved: frozenset[str] = frozenset()
    spellings: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    regex: re.Pattern[str] = field(init=False)

    def __post_init__(self) -> None:
        for concept in self.concepts:
            for case in CASES:
                literal = spell(list(concept.words), case)
                if len(literal) >= MIN_LENGTH:
                    self.spellings.setdefault(literal, []).append((concept.base, case))
        ordered = sorted(self.spellings, key=lambda s: (-len(s), s))
        self.regex = re.compile("|".join([r"\{\{", *(_bounded(s) for s in ordered)]))

    def _choose(self, literal: str, text: str, start: int, end: int, default: str) -> str:
        options = dict((case, base) for base, case in reversed(self.spellings[literal]))
        before, after = text[start - 1 : start] if start else "", text[end : end + 1]
        for case, hit in (
            ("snake", after == "_"),
            ("kebab", "-" in (before, after)),
            ("camel", after.isupper()),
            ("snake", before == "_" and default == "kebab"),
            (default, True),
        ):
            if hit and case in options:
                return options[case] + SUFFIXES[case]
        case = next(c for c in _PREFERENCE if c in options)
        return options[case] + SUFFIXES[case]

    def apply(self, text: str, path: str, *, default: str | None = None) -> tuple[str, list[str]]:
        """(template text, placeholder names used) for the source `text` of file `path`;
        `default`: the case of a one-word name the neighbours leave open (else by file
        type)."""
        suffix = PurePosixPath(path).suffix.lower()
        default = default or (
            "snake" if suffix in _SNAKE_FILES else "camel" if suffix in _CAMEL_FILES else "kebab"
        )
        config = suffix in _CONFIG_FILES
        used: list[str] = []

        def replace(m: re.Match[str]) -> str:
            literal = m.group(0)
            if literal == "{{":
                return ESCAPED_BRACES
            if _identifier(m.string, m.start(), m.end()) in self.reserved:
                return literal
            here = default
            if config and default == "kebab" and _names_a_module(m.string, m.start()):
                here = "snake"
            name = self._choose(literal, m.string, m.start(), m.end(), here)
            if name not in used:
                used.append(name)
            return "{{" + name + "}}"

        return self.regex.sub(replace, text), used


_CONFIG_FILES = frozenset({".toml", ".cfg", ".ini"})
_TABLE = re.compile(r"^\s*\[+\s*([^\]]+?)\s*\]+\s*$", re.M)
_KEY = re.compile(r"^\s*([\w.\"'-]+)\s*=", re.M)
#: settings whose values are module or package names (snake), not a distribution's
_MODULE_KEYS = frozenset(
    {"module", "modules", "packages", "package", "source", "files", "include", "testpaths",
     "known-first-party", "known_first_party", "src", "where", "py-modules", "py_modules"}
)  # fmt: skip


def _names_a_module(text: str, at: int) -> bool:
    """In a TOML/INI file: whether the value at `at` is a module or package name (the
    key it belongs to, or its table, says so: `[tool.flit.module] name`, coverage's
    `source`, mypy's `files`), where a project's distribution name would be kebab."""
    tables = list(_TABLE.finditer(text, 0, at))
    table = tables[-1].group(1).lower() if tables else ""
    keys = list(_KEY.finditer(text, tables[-1].end() if tables else 0, at))
    key = keys[-1].group(1).strip("\"'").lower() if keys else ""
    parts = table.split(".")
    if parts[-1] == "urls":  # `Source = "https://..."` is a link, not a module
        return False
    return key in _MODULE_KEYS or "module" in parts or "packages" in parts


def occurs(name: str, texts: Iterable[str]) -> bool:
    """Whether `name` appears, in any of its spellings, in one of `texts`."""
    words = list(_name_words(name))
    spellings = {spell(words, case) for case in CASES} if words else set()
    spellings = {s for s in spellings if len(s) >= MIN_LENGTH}
    if not spellings:
        return False
    regex = re.compile("|".join(_bounded(s) for s in sorted(spellings, key=lambda s: -len(s))))
    return any(regex.search(text) for text in texts)


def declare(subst: Substitution, used: set[str]) -> dict[str, Placeholder]:
    """Manifest entries for the placeholders used, the bases they derive from, and
    ProjectName (always: it is what a user sets first)."""
    wanted = set(used) | {"ProjectName"}
    by_name: dict[str, tuple[Concept, str]] = {
        c.base + SUFFIXES[case]: (c, case) for c in subst.concepts for case in CASES
    }
    concepts_by_base = {c.base: c for c in subst.concepts}
    for name in list(wanted):
        concept = by_name[name][0]
        wanted.add(concept.base)
        if concept.derived_from:
            wanted.add(concept.derived_from)
    out: dict[str, Placeholder] = {}
    for name in sorted(wanted, key=lambda n: (list(concepts_by_base).index(by_name[n][0].base), n)):
        concept, case = by_name[name]
        value = spell(list(concept.words), case)
        if case == "pascal" and concept.derived_from is None:
            derived, how = None, None
            text = f"{concept.description} in PascalCase (e.g. {value})"
        elif case == "pascal":
            derived, how = concept.derived_from, "plural"
            text = f"{concept.description}; computed from {{{{{derived}}}}} unless set"
        else:
            derived, how = concept.base, case
            text = (
                f"{concept.description} spelled {case} ({value}); computed from "
                f"{{{{{concept.base}}}}} unless set"
            )
        out[name] = Placeholder(
            name="{{" + name + "}}",
            description=text,
            required=derived is None,
            pattern=CASES[case][1],
            default=value,
            derived_from=derived,
            case=how,
        )
    return out


def derive(placeholder: Placeholder, base_value: str) -> str:
    """The value of a derived placeholder computed from its base's (valid) value."""
    words = split_words(base_value)
    if placeholder.case == "plural":
        return spell([*words[:-1], pluralize(words[-1])], "pascal")
    return spell(words, placeholder.case or "pascal")
