"""The parsed-plan cache: a hit gives what a parse gives; an edited plan or a damaged
cache is a miss (the plan is parsed again), never a wrong plan."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from executor.plan import load_plan
from executor.plan.cache import CACHE_NAME, CachedPlan, load_valid
from tests.conftest import REPO_ROOT


def ledger(tmp_path: Path) -> Path:
    plan = tmp_path / "plan"
    shutil.copytree(REPO_ROOT / "plans" / "examples" / "ledger", plan)
    return plan


def test_a_hit_reads_the_same_plan_the_parser_gives(tmp_path: Path) -> None:
    plan = ledger(tmp_path)
    cache = plan / CACHE_NAME
    parsed = load_valid(plan, cache=cache)
    hit = load_valid(plan, cache=cache)
    assert isinstance(hit, CachedPlan) and not isinstance(parsed, CachedPlan)
    assert hit.outline() == parsed.outline()
    assert hit.sessions() == parsed.sessions()
    assert hit.phase_names() == parsed.phase_names()


def test_an_edited_plan_is_parsed_again(tmp_path: Path) -> None:
    plan = ledger(tmp_path)
    cache = plan / CACHE_NAME
    load_valid(plan, cache=cache)
    first = next(plan.glob("PHASE_*.md"))
    first.write_text(first.read_text("utf-8").replace("Ledger Models", "Ledger Records"), "utf-8")
    again = load_valid(plan, cache=cache)
    assert not isinstance(again, CachedPlan)
    assert again.outline()[0].title == "Ledger Records"
    assert load_plan(plan).outline() == again.outline()


def test_a_cached_plan_reads_its_sessions_from_what_it_read_first(tmp_path: Path) -> None:
    """Two runs of one plan (two terminals): the other one ticks boxes and rewrites the
    cache while this one still reads sessions from it; its offsets are not the new file's."""
    plan = ledger(tmp_path)
    cache = plan / CACHE_NAME
    parsed = load_valid(plan, cache=cache)
    hit = load_valid(plan, cache=cache)
    assert isinstance(hit, CachedPlan)
    first = next(plan.glob("PHASE_*.md"))
    first.write_text("# Phase 1: Other\n\n" + first.read_text("utf-8"), "utf-8")
    load_valid(plan, cache=cache)  # the other run's cache, every offset moved
    assert hit.sessions() == parsed.sessions()


def test_a_damaged_outline_row_is_a_miss(tmp_path: Path) -> None:
    plan = ledger(tmp_path)
    cache = plan / CACHE_NAME
    load_valid(plan, cache=cache)
    head, _, rest = cache.read_bytes().partition(b"\n")
    index = json.loads(head)
    index["outline"][0][2] = 7  # a title that is not text
    cache.write_bytes(json.dumps(index).encode() + b"\n" + rest)
    again = load_valid(plan, cache=cache)
    assert not isinstance(again, CachedPlan)
    assert isinstance(load_valid(plan, cache=cache), CachedPlan)  # rewritten
