"""What a checkpoint shows, built from a real plan and real test files (one seam each;
the engine and terminal tests show the same text reaching a person)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from executor.plan import load_plan
from executor.workflows.tdd.record.session import AgentCall, SessionRecord
from executor.workflows.tdd.session import detail
from executor.workflows.tdd.step import Step
from executor.workflows.tdd.trust.redfacts import RedFacts
from tests.conftest import REPO_ROOT


def test_after_red_names_every_test_and_why_it_fails(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_money.py").write_text(
        "def test_adds():\n    pass\n\n"
        "class TestRound:\n    def test_half_up(self):\n        pass\n",
        encoding="utf-8",
    )
    rec = SessionRecord(
        last_summary="RED: 2 tests fail.",
        red=RedFacts(
            files=["tests/test_money.py"],
            why={
                # pytest's junit ids: the dotted module (and class) as classname
                "tests.test_money::test_adds": "ImportError: cannot import name 'add'",
                "tests.test_money.TestRound::test_half_up": "AssertionError: 2 != 3",
            },
            passed=["tests.test_money::test_other"],
        ),
    )
    text = detail.after_red(tmp_path, rec)
    assert "tests/test_money.py: 2 tests" in text
    assert "- test_adds: ImportError: cannot import name 'add'" in text
    assert "- TestRound.test_half_up: AssertionError: 2 != 3" in text
    assert "1 test already passes before any implementation" in text


def test_a_spec_kit_checkpoint_is_shown_before_the_commit() -> None:
    plan = load_plan(REPO_ROOT / "plans" / "examples" / "pantry")
    session = plan.sessions()[1]
    assert session.checkpoints  # the phase's **Checkpoint** line
    text = detail.after_refactor(session, SessionRecord(), " src/x.py | 2 +-", "feat: x")
    assert "The plan asks you to check before this is committed:" in text
    assert f"- {session.checkpoints[0]}" in text
    assert text.endswith("The commit message will be:\nfeat: x")


def test_after_red_names_the_failing_tests_of_other_languages(tmp_path: Path) -> None:
    rec = SessionRecord(
        red=RedFacts(
            files=["test/money.test.js"],
            why={"test/money.test.js::adds > two numbers": "expected 3 to be 4"},
        )
    )
    text = detail.after_red(tmp_path, rec)
    assert "test/money.test.js: 1 test\n- adds > two numbers: expected 3 to be 4" in text


def test_a_test_file_the_red_command_never_ran_is_not_given_a_reason(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_models.py").write_text("def test_a():\n    pass\n", "utf-8")
    (tmp_path / "tests" / "test_extra.py").write_text("def test_ok():\n    pass\n", "utf-8")
    rec = SessionRecord(
        red=RedFacts(
            files=["tests/test_models.py", "tests/test_extra.py"],
            why={"tests.test_models": "ModuleNotFoundError: No module named 'ledger'"},
            failing=["tests.test_models"],
        )
    )
    text = detail.after_red(tmp_path, rec)
    assert "- test_a: ModuleNotFoundError: No module named 'ledger'" in text
    assert "- test_ok: not run: the RED test command does not run this file" in text


def test_a_session_lasts_from_its_start_to_its_commit() -> None:
    rec = SessionRecord(
        commit_hash="0123456789abcdef",
        started_at="2026-11-23T10:00:00.000Z",
        completed_at="2026-11-23T10:22:30.500Z",  # through the bridge: waits included
        tests_passing=3,
        tests_written=3,
    )
    text = detail.session_complete(rec, "feat(x): y", "Session 2: Z")
    assert "the session took 22m30s from its start to its commit." in text  # as in status
    assert text.endswith("Next: Session 2: Z")


def test_each_step_shows_what_the_agent_said_and_where_its_transcript_is() -> None:
    rec = SessionRecord(
        last_summary="GREEN verified",
        agent_calls=[
            AgentCall(step=Step.GREEN_AGENT, attempt=1, status="error", seconds=1.0),
            AgentCall(
                step=Step.GREEN_AGENT,
                attempt=2,
                status="success",
                seconds=9.5,
                message="Implemented Money.\n\nAll 12 tests pass.",
                log="/p/.agent-logs/s1.green.a2.log",
            ),
        ],
    )
    text = detail.after_green(rec, " ledger/models.py | 40 +")
    assert text.endswith(
        "The agent said (attempt 2): Implemented Money. All 12 tests pass.\n"
        "Its transcript: /p/.agent-logs/s1.green.a2.log"
    )
    assert "The agent said" not in detail.after_red(Path("."), rec)  # no RED call


def test_a_commit_subject_leaves_out_the_plans_priority_and_emoji_tags(tmp_path: Path) -> None:
    from executor.workflows.tdd.record.commit import commit_subject

    tasks = tmp_path / "tasks.md"
    tasks.write_text(
        "# Tasks: Slugs\n\n## Phase 1: User Story 2 - Max length (Priority: P2) 🎯 MVP\n\n"
        "- [ ] T001 [US2] Implement max length in src/slug.py\n",
        "utf-8",
    )
    plan = load_plan(tasks)
    session = plan.sessions()[0]
    assert commit_subject(plan, session).endswith("): User Story 2 - Max length")


def test_a_missing_pytest_cov_is_said_once_at_after_green(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Named where the tests run (the project's environment), with the command that
    installs it there: not where the executor runs."""
    import dataclasses

    from executor import projectenv
    from tests.engine.harness import World

    real = projectenv.probe
    monkeypatch.setattr(  # the real probe, of an environment without pytest-cov
        projectenv, "probe",
        lambda *a, **k: dataclasses.replace(real(*a, **k), has_pytest_cov=False),
    )  # fmt: skip
    world = World(tmp_path)
    world.run(answers=["approve"] * 5)
    assert world.prompter is not None
    shown = [detail for _, _, detail in world.prompter.asked if "Coverage" in detail]
    assert len(shown) == 1, shown
    assert "pytest-cov is not installed in the active virtual environment" in shown[0], shown
    assert f"{sys.executable} -m pip install pytest-cov" in shown[0] or (
        f"{sys.prefix}/bin/python -m pip install pytest-cov" in shown[0]
    ), shown
    assert world.state()["run"]["hinted"] == ["coverage"]
