"""The workflow through the exit-42 bridge, in-process: the runner raises NeedAgent, a
host answers with `executor.bridge.host.write_response`, the next run resumes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from executor.bridge.host import show_pending, write_response
from executor.engine.agents import AgentCall
from executor.errors import InvalidResponseError, NeedAgent, NothingToResumeError
from executor.plan import load_plan
from executor.workflows.tdd.runner.scope import PlanScope, SessionScope
from executor.workflows.tdd.views.status import status_data
from tests.engine.harness import World


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


Request = dict[str, Any]
Answer = Callable[[Request], tuple[str, str | None]]
ONE = SessionScope(1)


def approve(request: Request) -> tuple[str, str | None]:
    return "success", "approve"


def what(request: Request) -> tuple[str, str]:
    """(kind, checkpoint) for a person, (kind, tdd_step) for an agent."""
    ctx = request["context"]
    return request["kind"], ctx["checkpoint"] if request["kind"] == "human" else ctx["tdd_step"]


def host(
    world: World, answer: Answer = approve, *, scope: SessionScope | PlanScope = ONE
) -> list[Request]:
    """Run until the run ends; answer people with `answer`, agents by doing the work."""
    seen: list[Request] = []
    resume = False
    for _ in range(40):
        try:
            world.run(scope, bridge=True, resume=resume)
            return seen
        except NeedAgent:
            resume = True
        info = show_pending(world.plan)
        seen.append(info)
        if info["kind"] == "human":
            status, text = answer(info)
        else:
            ctx = info["context"]
            assert isinstance(ctx, dict)
            call = AgentCall(
                key="k", agent_name="a", prompt="", brief=Path(str(ctx["prompt_file"])),
                phase=1, phase_name="p", session=int(ctx["session"]),
                tdd_step=str(ctx["tdd_step"]), attempt=int(ctx["attempt"]),
            )  # fmt: skip
            result = world.agent.call(call, ledger=None)  # type: ignore[arg-type]
            status, text = result.status, result.text or None
        write_response(
            world.plan,
            status=status,
            response=text if status == "success" else None,
            response_file=None,
            error_message=None if status == "success" else text or "failed",
            error_type=None,
        )
    raise AssertionError("the host loop did not end")


def test_a_session_through_the_bridge(world: World) -> None:
    asked = host(world)
    assert [what(r) for r in asked] == [
        ("human", "before_start"),
        ("agent", "red"),
        ("human", "after_red"),
        ("agent", "green"),
        ("human", "after_green"),
        ("agent", "refactor"),
        ("human", "after_refactor"),
    ]
    assert world.record(1)["step"] == "done"
    assert not (world.plan / ".agent-request.json").exists()
    assert not (world.plan / ".agent-response.json").exists()
    assert all(len(json.dumps(r)) < 2048 for r in asked)


def test_every_escalation_choice_can_be_answered_through_the_bridge(world: World) -> None:
    """9.1: after three failed agent answers the person is asked; `retry` continues."""
    answers = iter(["approve", "retry", "approve", "approve", "approve"])
    failures = iter(["error:INVOCATION_FAILED"] * 3)

    def answer(request: Request) -> tuple[str, str | None]:
        return "success", next(answers)

    world.agent.plan(1, "red", *failures)
    asked = host(world, answer)
    assert [what(r) for r in asked].count(("human", "escalation")) == 1
    red = [r["context"]["attempt"] for r in asked if what(r) == ("agent", "red")]
    assert red == [1, 1, 1, 2]  # three failed answers at attempt 1, then the retry
    assert world.record(1)["step"] == "done"


def test_a_request_left_pending_never_blocks_when_the_session_finishes_another_way(
    world: World,
) -> None:
    """9.2: a pending bridge request, then the session finished with an in-process agent."""
    with pytest.raises(NeedAgent):
        world.run(bridge=True, yes=True)
    assert (world.plan / ".agent-request.json").exists()
    world.run(yes=True)  # the fake agent now: the pending bridge request is superseded
    assert world.record(1)["bridge"]["pending"] is None
    assert not (world.plan / ".agent-request.json").exists()
    world.run(SessionScope(2), yes=True)
    assert world.record(2)["step"] == "done"


def test_resume_with_nothing_pending_touches_nothing(world: World) -> None:
    with pytest.raises(NothingToResumeError):
        world.run(bridge=True, resume=True)
    assert not (world.plan / ".agent-state.json").exists()


def test_an_answer_that_is_not_an_option_is_rejected_and_moved_aside(world: World) -> None:
    """9.11: the bad answer is moved aside, so the next resume asks again."""
    with pytest.raises(NeedAgent):
        world.run(bridge=True)
    for bad in ("", "rm -rf /"):
        with pytest.raises(InvalidResponseError, match=r"not one of the options|empty"):
            write_response(world.plan, status="success", response=bad, response_file=None,
                           error_message=None, error_type=None)  # fmt: skip
        request_id = show_pending(world.plan)["request_id"]
        body = {"request_id": request_id, "status": "success", "response": bad}
        (world.plan / ".agent-response.json").write_text(json.dumps(body), encoding="utf-8")
        with pytest.raises(InvalidResponseError, match=r"not one of the options|empty"):
            world.run(bridge=True, resume=True)
        assert not (world.plan / ".agent-response.json").exists()
    with pytest.raises(NeedAgent):
        world.run(bridge=True, resume=True)
    assert len(list(world.plan.glob(".agent-response.json.rejected-*"))) == 2


def test_status_is_derived_from_the_steps(world: World) -> None:
    plan = load_plan(world.plan)
    assert status_data(plan)["status"] == "not_started"
    with pytest.raises(NeedAgent):
        world.run(bridge=True)
    data = status_data(plan)
    first = data["phases"][0]["sessions"][0]
    assert (data["status"], data["current_session"]) == ("in_progress", 1)
    assert (first["status"], first["checkpoint"]) == ("awaiting_approval", "before_start")
    assert data["pending_request"]["kind"] == "human"
    world.run(PlanScope(), yes=True)
    data = status_data(plan)
    assert data["status"] == "completed" and data["pending_request"] is None
    assert [s["status"] for s in data["phases"][0]["sessions"]] == ["completed", "completed"]
