"""The slip corpus (issue 28): each kind of slip authors make, applied to plans that read
right, is read the same, or named at its line by `plan validate`.

Slips: a unit word in capitals, a one-letter typo, a full-width colon, a code fence left
open, a duplicated Kiro task line, bold spec-kit task ids, the template's `Phase N:`
kept for the last phase, unit and step words in Chinese, Japanese or German. The plans
they are applied to are our fixtures of every format and the real plans kept in the
repository.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from executor.plan import lint, load_plan
from executor.plan.models import Plan
from executor.plan.text.inline import plain
from tests.plan.corpus import ROOT

FIXTURES = ROOT / "tests" / "plan" / "fixtures"
REAL = ROOT / "tests" / "plan" / "real" / "files"
#: Plans that read right: (format, file).
BASES = {
    "superpowers": FIXTURES / "superpowers/docs/plans/2025-05-01-word-count.md",
    "superpowers-real": REAL / "superpowers/sp-romm-tui-latency/docs/plans/"
    "2026-04-18-tui-startup-latency-implementation-plan.md",
    "superpowers-de": REAL / "superpowers/de-typeless-m8/docs/superpowers/plans/"
    "2026-07-15-m8-prompt-cache.md",
    "speckit": FIXTURES / "speckit/specs/001-notes/tasks.md",
    "speckit-real": REAL / "speckit/sk-ytmcp-tool-registry/specs/002-tool-registry-dispatcher/"
    "tasks.md",
    "kiro": FIXTURES / "constructs/kiro/.kiro/specs/reminders/tasks.md",
    "kiro-real": REAL / "kiro/kr-rpidns-help-docs/.kiro/specs/help-documentation/tasks.md",
    "phase": FIXTURES / "phase-variants/PHASE_1_NOTES_CORE.md",
    "overview": FIXTURES / "overview/PROJECT_PLAN.md",
}

Slip = Callable[[list[str]], tuple[list[str], int] | None]
_UNIT = re.compile(r"^(#{1,6}\s+(?:\*\*)?)(Session|Task|Phase)(\s+\d+)(:)", re.I)


def _nth_unit(lines: list[str], n: int) -> int | None:
    found = [i for i, ln in enumerate(lines) if _UNIT.match(ln)]
    return found[n] if len(found) > n else None


def capitals(lines: list[str]) -> tuple[list[str], int] | None:
    i = _nth_unit(lines, 0)
    if i is None:
        return None
    out = list(lines)
    out[i] = _UNIT.sub(lambda m: m.group(1) + m.group(2).upper() + m.group(3) + m.group(4), out[i])
    return out, i + 1


def typo(lines: list[str]) -> tuple[list[str], int] | None:
    i = _nth_unit(lines, 1) if _nth_unit(lines, 1) is not None else _nth_unit(lines, 0)
    if i is None:
        return None
    out = list(lines)
    swapped = {"session": "Sesison", "task": "Tsak", "phase": "Phsae"}
    out[i] = _UNIT.sub(
        lambda m: m.group(1) + swapped[m.group(2).lower()] + m.group(3) + m.group(4), out[i]
    )
    return out, i + 1


def full_width(lines: list[str]) -> tuple[list[str], int] | None:
    i = _nth_unit(lines, 0)
    if i is None:
        return None
    out = list(lines)
    out[i] = _UNIT.sub(lambda m: m.group(1) + m.group(2) + m.group(3) + "：", out[i])
    return out, i + 1


def fence_left_open(lines: list[str]) -> tuple[list[str], int] | None:
    opening = next((i for i, ln in enumerate(lines) if re.match(r"^\s*```\w", ln)), None)
    if opening is None:
        return None
    close = next((i for i in range(opening + 1, len(lines)) if lines[i].strip() == "```"), None)
    if close is None:
        return None
    return [*lines[:close], *lines[close + 1 :]], opening + 1


def duplicated_task(lines: list[str]) -> tuple[list[str], int] | None:
    i = next((i for i, ln in enumerate(lines) if re.match(r"^\s*- \[.\]\*? \d+\.\d+ ", ln)), None)
    if i is None:
        return None
    return [*lines[: i + 1], lines[i], *lines[i + 1 :]], i + 2


def bold_ids(lines: list[str]) -> tuple[list[str], int] | None:
    out = [re.sub(r"^(\s*- \[.\] )(T\d{3})\b", r"\1**\2**", ln) for ln in lines]
    return (out, 1) if out != lines else None


def phase_n(lines: list[str]) -> tuple[list[str], int] | None:
    found = [i for i, ln in enumerate(lines) if re.match(r"^## Phase \d+:", ln)]
    if len(found) < 2:
        return None
    out = list(lines)
    out[found[-1]] = re.sub(r"Phase \d+:", "Phase N:", out[found[-1]])
    return out, found[-1] + 1


def words_in(language: dict[str, str]) -> Slip:
    def slip(lines: list[str]) -> tuple[list[str], int] | None:
        out = list(lines)
        for english, other in language.items():
            out = [re.sub(english, other, ln) for ln in out]
        return (out, 1) if out != lines else None

    return slip


SLIPS: dict[str, Slip] = {
    "capitals": capitals,
    "typo": typo,
    "full-width colon": full_width,
    "fence left open": fence_left_open,
    "duplicated task line": duplicated_task,
    "bold task ids": bold_ids,
    "Phase N kept": phase_n,
    "Chinese words": words_in(
        {r"^(#{2,4} )Task (\d+):": r"\1任务 \2：", r"\*\*Step (\d+):": r"**步骤 \1："}
    ),
    "Japanese words": words_in(
        {r"^(#{2,4} )Task (\d+):": r"\1タスク \2:", r"\*\*Step (\d+):": r"**ステップ \1:"}
    ),
    "German words": words_in({r"\*\*Step (\d+):": r"**Schritt \1:"}),
}


def _reading(plan: Plan) -> list[tuple[Any, ...]]:
    return [
        (
            s.number,
            re.sub(r"\s+", " ", plain(s.title, ticks=False)),
            s.tdd,
            tuple(s.test_command(r) for r in ("red", "green", "refactor")),
            tuple(sorted(f.path for f in s.files)),
            tuple(s.dependencies),
            s.optional,
            s.is_checkpoint,
            s.claimed_done,
        )
        for s in plan.sessions()
    ]


def _cases() -> list[tuple[str, str]]:
    return [(base, slip) for base in BASES for slip in SLIPS]


@pytest.mark.parametrize(("base", "slip"), _cases(), ids=lambda v: v)
def test_a_slip_reads_the_same_or_is_named_at_its_line(
    base: str, slip: str, tmp_path: Path
) -> None:
    path = BASES[base]
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    slipped = SLIPS[slip](lines)
    if slipped is None:
        pytest.skip(f"{base} has nothing this slip applies to")
    new_lines, line = slipped
    copy = tmp_path / path.name  # formats are told by content (and PHASE_ / PROJECT_ names)
    copy.write_text("\n".join(new_lines), encoding="utf-8")
    before = _reading(load_plan(path))
    after = load_plan(copy)
    if _reading(after) == before:
        return
    named = [d for d in lint(after) if d.line == line]
    assert named, f"{slip} on {base} changed the reading with nothing said at line {line}"
