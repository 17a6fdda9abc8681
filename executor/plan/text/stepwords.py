"""The words of a step: its TDD role from a heading (`step_role`), what a task plan's step
does (`step_meaning`), and whether a person makes a check by hand (`by_hand`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from executor.plan.models import StepRole
from executor.plan.text import words
from executor.plan.text.words import Unit

#: A step: `**Step 3: Write minimal implementation**` (bold optional, `Step 3.` too).
STEP_LINE = Unit(words.STEP, r"\d+[a-z]?", rest=False, bold=True)


_ROLE_WORDS: list[tuple[StepRole, re.Pattern[str]]] = [
    ("red", re.compile(words.RED_WORD, re.I)),
    ("green", re.compile(words.GREEN_WORD, re.I)),
    ("refactor", re.compile(words.REFACTOR_WORD, re.I)),
]
_ROLE_FALLBACK: list[tuple[StepRole, re.Pattern[str]]] = [
    ("red", re.compile(r"fail(?!-?\s*fast)|write (?:the )?tests?|tests? first", re.I)),
    ("green", re.compile(r"implement|make (?:the )?tests? pass|pass", re.I)),
    ("refactor", re.compile(r"clean ?up|polish|tidy", re.I)),
]


@dataclass(frozen=True)
class HeadingRole:
    """A heading read as a TDD step (`role`), a container of all three, or neither."""

    role: StepRole | None
    container: bool = False
    unrecognised_step: bool = False


@lru_cache(maxsize=1024)  # plans repeat the same few labels in every session
def step_role(text: str) -> HeadingRole:
    """Recognise RED / GREEN / REFACTOR from a heading's words.

    One role word (`(RED)`, `GREEN`, `Refactor`) names the step; several (`TDD Workflow
    (RED-GREEN-REFACTOR)`) make a container. A `Step N:` heading without role words falls
    back to its verbs (write failing tests / implement / clean up); if none fits, it is
    flagged so the parser can say so.
    """
    found = [role for role, pat in _ROLE_WORDS if pat.search(text)]
    if len(found) == 1:
        return HeadingRole(found[0])
    if len(found) > 1:
        return HeadingRole(None, container=True)
    if STEP_LINE.match(text) is not None:
        for role, pat in _ROLE_FALLBACK:
            if pat.search(text):
                return HeadingRole(role)
        return HeadingRole(None, unrecognised_step=True)
    return HeadingRole(None)


StepMeaning = Literal["commit", "refactor", "write_test", "verify_fail", "verify_pass", "implement"]

#: The TDD step a step meaning belongs to (commit: none, the executor commits).
MEANING_ROLE: dict[StepMeaning, StepRole] = {
    "write_test": "red",
    "verify_fail": "red",
    "implement": "green",
    "verify_pass": "green",
    "refactor": "refactor",
}

_LEADING_CONDITION = re.compile(r"^if\b[^.]*\.\s*(?:(?:then\s+)?proceed\.\s*)?", re.I)
#: Ordered: the first match names the step. Each row is grown from a real plan's wording
#: (tests/plan/test_vocabulary.py has one case per phrasing).
_STEP_MEANINGS: list[tuple[StepMeaning, re.Pattern[str]]] = [
    (
        "commit",
        re.compile(
            rf"^(?:final\s+)?commit\b|^(?:{words.COMMIT})|をコミット|提交(?:代码|更改|变更|所有)",
            re.I,
        ),
    ),
    (
        "refactor",
        re.compile(rf"{words.REFACTOR_WORD}|^(?:clean\s*up|tidy|simplify|polish)\b", re.I),
    ),
    (
        "write_test",
        re.compile(
            r"\b(?:write|add|create|author)\b[^.]*\b(?:failing|tests?|specs?)\b|^tests?\s+first\b"
            rf"|{words.WRITE_TEST}",
            re.I,
        ),
    ),
    (
        "verify_fail",
        re.compile(
            r"^(?:red\b|(?:run|re-?run|verify|confirm|check|watch|see|observe|expect)\b"
            r".*\b(?:fail\w*|red)\b)"
            rf"|(?:{words.RUNS}).*(?:{words.FAILS})|(?:{words.FAILS}).*(?:{words.RUNS})",
            re.I,
        ),
    ),
    (
        "verify_pass",
        re.compile(
            r"^(?:green\b|regression\b|smoke\b|full\s+(?:test|suite|verification|check)"
            r"|(?:run|re-?run|execute|verify|confirm|check|validate|test|watch|see|ensure"
            rf"|compare|make\s+sure|{words.BUILD})\b)"
            r"|\bgreen\b|\bpass(?:es|ing)?\b|\b(?:checks?|verification|type-?check)$"
            rf"|(?:{words.RUNS}).*(?:{words.PASSES})|(?:{words.PASSES}).*(?:{words.RUNS})"
            rf"|{words.FULL_SUITE}|^(?:{words.RUNS}|{words.BUILD})|(?:{words.RUNS})$",
            re.I,
        ),
    ),
]
#: A step a person does by hand: its commands are not the executor's to run.
_MANUAL = re.compile(words.MANUAL)  # searched in lowered text (see words.LOOK)


def is_manual(title: str) -> bool:
    """`Manual API test`, `Test in browser console`, `Test manually with curl`."""
    return bool(_MANUAL.search(title.lower()))


@lru_cache(maxsize=1024)  # plans repeat the same few labels in every session
def step_meaning(title: str) -> StepMeaning:
    """What a step of a task plan does, from its title (`Write the failing test`,
    `Run tests and verify GREEN`, `Commit`); anything else is implementation work."""
    text = _LEADING_CONDITION.sub("", words.normal(title).strip().strip("*_ ").strip())
    for meaning, pattern in _STEP_MEANINGS:
        if pattern.search(text):
            return meaning
    return "implement"


_TEST_SECTION = re.compile(
    r"\btests?\b|\btdd\b|テスト|测试|測試|테스트|\bpruebas?\b|\btestes?\b|ki[eể]m\s+th[uử]", re.I
)
_IMPL_SECTION = re.compile(
    rf"\bimplement|{words.IMPLEMENT}|検証|验证|驗證|검증|verification|verif|validat", re.I
)


_NAMES_TESTS = re.compile(
    r"\btests\b|\b(?:unit|integration|e2e|component)\s+tests?\b|\btest\s+(?:suite|coverage)"
    r"|\bsuite\b|\blint|\btype-?check|\bbuild\b|\bcompil|全部?测试|所有测试|全テスト|테스트\s*통과"
    r"|\bpruebas\b|\btestes\b|ビルド|构建|建置|빌드|\btsc\b|\bmypy\b|\bpytest\b",
    re.I,
)


_LOOK = re.compile(words.LOOK)


def looks_at_product(text: str) -> bool:
    """Words for what a person looks at in the running product (a page, a screen, a
    dashboard, a phone): a verification of it that no check runs is a person's."""
    return _LOOK.search(words.normal(text).lower()) is not None and not names_tests(text)


def by_hand(text: str, *, verifying: bool = False) -> bool:
    """A check a person makes: said so (`check the dashboard by hand`, `手動驗證`), or a
    verification of what a person looks at (`Test dark mode appearance`, `Ensure the
    responsive design works on mobile`, `Test on web browser`); `verifying`: the text is
    a check by where it stands (a test strategy). A browser named by work (`Build the
    exercise browser screen`) is no check."""
    low = words.normal(text).lower()
    may_say = not low.isascii() or _MANUAL_HINT.search(low) is not None
    if may_say and is_manual(_BROWSER.sub("", text)):
        return True
    if _BROWSER.search(text) is None and not looks_at_product(text):
        return False
    if verifying:
        return True
    built = _BUILDS.match(low.strip()) is not None  # `Build the exercise browser screen`: work
    return step_meaning(text).startswith("verify") and not built


_BROWSER = re.compile(r"\bbrowsers?\b", re.I)
#: A piece of each ASCII word of `words.MANUAL` (any other alphabet is searched in full):
#: most work items hold none, and these literals cost little beside the whole pattern.
_MANUAL_HINT = re.compile("manu|hand|brows|mano|main|cong")
_BUILDS = re.compile(rf"(?:{words.BUILD})\b", re.I)


def names_tests(text: str) -> bool:
    """Words that name the project's tests or build (`Verify all tests pass`, `全テスト`):
    a verification of them is the suite's to make, not a person's."""
    return _NAMES_TESTS.search(text) is not None


def is_test_word(label: str) -> bool:
    """A label naming tests (`Test`, `Tests`, `測試`, `テスト`): what a task's test field is."""
    return bool(_TEST_SECTION.search(label))


def is_test_section(heading: str) -> bool:
    """A spec-kit sub-heading holding test tasks (`Tests for User Story 1 (OPTIONAL)`)."""
    return bool(_TEST_SECTION.search(heading)) and not _IMPL_SECTION.search(heading)
