"""What a run records for its review (each answer with when and how, each test run, the
tree each agent attempt left) and the review built from it, in-process: a real git
repository, the engine's fake agent and test runner (tests/engine/harness.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from executor.choices import Decision
from executor.errors import Paused
from executor.store import seal
from executor.workflows.tdd.review.build import review
from executor.workflows.tdd.review.terminal import show_lines, summary_lines
from executor.workflows.tdd.runner.scope import PlanScope, SessionScope
from tests.engine.harness import World
from tests.engine.test_bridge_inprocess import host


def test_terminal_answers_are_recorded_with_how_and_what_changed_between_attempts(
    tmp_path: Path,
) -> None:
    world = World(tmp_path)
    changes = Decision("request_changes", "name the module after what it does")
    world.run(answers=["approve", "approve", changes, "approve", "approve", "approve"])
    answers = world.record(1)["answers"]
    assert [(a["step"], a["action"], a["via"]) for a in answers] == [
        ("before_start", "approve", "terminal"),
        ("after_red", "approve", "terminal"),
        ("after_green", "request_changes", "terminal"),
        ("after_green", "approve", "terminal"),
        ("after_refactor", "approve", "terminal"),
    ]
    assert answers[2]["feedback"] == "name the module after what it does"
    assert all(a["at"].endswith("Z") and a["waited"] >= 0 for a in answers)

    s = review(world.plan).sessions[0]
    green = [a for a in s.attempts if a.step == "green_agent"]
    assert [a.attempt for a in green] == [1, 2]
    assert green[0].tree and green[1].tree and green[0].patch is None
    # the fake agent writes the same implementation again: said, not invented
    assert green[1].patch is not None and green[1].changed == []
    assert s.retries == 1
    # a person answered every question; only the mutation step had nothing to run with
    assert [g.text for g in s.unverified] == ["test strength not measured: no mutation runner here"]
    shown = "\n".join(show_lines(s))
    assert "after GREEN: request_changes at the terminal" in shown
    assert "feedback: name the module after what it does" in shown
    assert "changed since the attempt before: nothing" in shown


def test_each_test_run_is_recorded_with_its_counts_step_and_attempt(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.agent.plan(1, "green", "broken")  # attempt 1 fails its tests; the retry passes
    world.run(yes=True)
    runs = world.record(1)["runs"]
    assert [(r["step"], r["attempt"], r["verdict"]) for r in runs] == [
        ("red_verify", 1, "red"),
        ("green_verify", 1, "red"),
        ("green_verify", 2, "green"),
        ("refactor_verify", 1, "green"),
    ]
    assert runs[1]["failed"] == 1 and runs[2]["passed"] == 1
    assert runs[0]["summary"].startswith("0 failed, 0 passed, 1 error")
    s = review(world.plan).sessions[0]
    green = [a for a in s.attempts if a.step == "green_agent"]
    assert green[1].changed == ["pkg/s1.py"]  # the retry fixed the broken implementation
    assert green[1].patch is not None and "-BROKEN" in green[1].patch


def test_yes_and_left_out_checkpoints_are_said_as_not_verified(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.run(yes=True)
    world.run(SessionScope(2), checkpoints="session")
    run = review(world.plan)
    one, two = run.sessions
    assert {a["via"] for a in world.record(1)["answers"]} == {"yes"}
    assert [g.kind for g in one.unverified].count("checkpoints approved by --yes") == 4
    assert {g.kind for g in two.unverified} - {"sessions without a mutation score"} == {
        "checkpoints not asked"
    }
    assert "after RED: not asked (--checkpoints leaves it out)" in [g.text for g in two.unverified]
    summary = "\n".join(summary_lines(run))
    assert "2 of 2 sessions done" in summary
    assert "4 checkpoints approved by --yes, 3 checkpoints not asked" in summary


def test_an_answer_through_the_bridge_is_recorded_with_its_wait(tmp_path: Path) -> None:
    world = World(tmp_path)
    host(world)
    answers = world.record(1)["answers"]
    assert {a["via"] for a in answers} == {"bridge"}
    assert all(a["waited"] > 0 for a in answers)  # from the request's creation to the answer
    run = review(world.plan)
    assert run.sessions[0].split.person == sum(a["waited"] for a in answers)


def test_a_state_recorded_before_these_fields_still_loads_and_reviews(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.run(yes=True)
    with pytest.raises(Paused):  # one in progress, in the state
        world.run(SessionScope(2), answers=["approve", "pause"])
    for path in [world.plan / ".agent-sessions" / "session-1.json"]:
        data = json.loads(path.read_text("utf-8"))
        _strip(data)
        path.write_text(json.dumps(data), "utf-8")
    state_file = world.plan / ".agent-state.json"
    data = json.loads(state_file.read_text("utf-8"))
    _strip(data["run"]["sessions"]["2"])
    data["checksum"] = ""
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
    state_file.write_bytes(seal(body))

    run = review(world.plan)
    one, two = run.sessions
    assert one.status == "completed" and one.answers == [] and one.runs == []
    assert [a.tree for a in one.attempts] == [None, None, None]
    assert two.status == "awaiting_approval"
    assert one.split.tests > 0 or one.split.agent >= 0  # the steps' own times stand in
    world.run(SessionScope(2), yes=True)  # and the run goes on from it
    assert world.record(2)["step"] == "done"


def _strip(record: dict[str, object]) -> None:
    record.pop("answers", None)
    record.pop("runs", None)
    for h in record["history"]:  # type: ignore[attr-defined]
        h.pop("tree", None)


def test_a_progress_header_says_where_a_run_is(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.agent.plan(1, "green", "broken")  # an automatic retry: attempt 2
    world.run(PlanScope(), yes=True)
    headers = [line for line in world.lines if line.startswith("-- ")]
    assert headers == [
        "-- session 1 of 2, RED, attempt 1 --",
        "-- session 1 of 2, GREEN, attempt 1 --",
        "-- session 1 of 2, GREEN, attempt 2 --",
        "-- session 1 of 2, REFACTOR, attempt 1 --",
        "-- session 2 of 2, RED, attempt 1 --",
        "-- session 2 of 2, GREEN, attempt 1 --",
    ]
    (tmp_path / "again").mkdir()
    again = World(tmp_path / "again")
    again.run(yes=True)
    again.lines.clear()
    again.run(SessionScope(2), yes=True)
    assert next(x for x in again.lines if x.startswith("-- ")) == (
        "-- session 2 (1 of 1), RED, attempt 1 --"
    )
