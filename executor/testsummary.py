"""Cross-check a runner's report with what the runner itself said: its exit status and
its own summary line.

Code under test runs inside the runner's process and can rewrite the report file after
the runner wrote it; forging the exit status and the summary line too is harder. A
report that disagrees with either is not believed (`disagreement`), and the run proves
nothing (`TestRun.verdict`). What is compared, so that a runner's own quirks never
raise a false alarm: docs/reliability.md, "The runner's report must agree with the runner".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")
#: pytest: `===== 1 failed, 2 passed, 1 warning in 0.12s =====` (`-q`: without the `=`).
_PYTEST_RE = re.compile(
    r"^(?:=+ )?(?P<body>(?:\d+ [a-z]+|no tests ran)(?:, \d+ [a-z]+)*)"
    r" in [\d.]+s(?: \([^)]*\))?(?: =+)?$",
    re.M,
)
#: jest: `Tests:       1 failed, 1 skipped, 1 passed, 3 total`
_JEST_RE = re.compile(r"^Tests:\s+(?P<body>.*?), \d+ total$", re.M)
#: vitest: `      Tests  1 failed | 1 passed | 1 skipped (3)`
_VITEST_RE = re.compile(r"^\s*Tests\s+(?P<body>\d+ [a-z]+(?: \| \d+ [a-z]+)*) \(\d+\)$", re.M)
#: node --test (spec reporter): `ℹ pass 1`, `ℹ fail 1`, `ℹ cancelled 0`
_NODE_RE = re.compile(r"^[ℹ#] (?P<word>pass|fail|cancelled) (?P<n>\d+)$", re.M)
_COUNT_RE = re.compile(r"(?P<n>\d+) (?P<word>[a-z]+)")


@dataclass(frozen=True)
class Said:
    """What a runner's own summary line counted."""

    passed: int
    failing: int


def said_by(runner: str, output: str) -> Said | None:
    """The counts of the last summary line `runner` printed in `output`, if any."""
    text = _ANSI_RE.sub("", output)
    if runner == "node":
        words: dict[str, int] = {}
        for found in _NODE_RE.finditer(text):
            words[found["word"]] = int(found["n"])
        if "pass" not in words or "fail" not in words:
            return None
        return Said(words["pass"], words["fail"] + words.get("cancelled", 0))
    pattern = {"pytest": _PYTEST_RE, "jest": _JEST_RE, "vitest": _VITEST_RE}.get(runner)
    found_lines = list(pattern.finditer(text)) if pattern else []
    if not found_lines:
        return None
    counts: dict[str, int] = {}
    for part in _COUNT_RE.finditer(found_lines[-1]["body"]):
        counts[part["word"]] = counts.get(part["word"], 0) + int(part["n"])
    passed = counts.get("passed", 0) + counts.get("xpassed", 0)
    failing = counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
    return Said(passed, failing)


def disagreement(
    runner: str, *, exit_code: int, passed: int, failing: int, output: str
) -> str | None:
    """How the report (`passed`, `failing` tests) disagrees with the runner's exit status
    or its summary line in `output`; None when they agree."""
    if exit_code == 0 and failing:
        return f"{runner} exited 0, but its report lists {failing} failing"
    if exit_code != 0 and passed and not failing:
        return f"{runner} exited {exit_code}, but its report lists only passing tests ({passed})"
    said = said_by(runner, output)
    if said is None:
        return None
    if bool(said.failing) != bool(failing):
        return f"{runner}'s summary line counts {said.failing} failing, its report {failing}"
    if passed > said.passed:
        return f"{runner}'s summary line counts {said.passed} passed, its report {passed}"
    return None
