"""The TDD workflow in-process: every edge of its table, through the real driver, runner,
state store and git, with a fake agent, a fake test runner and scripted people.

Each test declares the edges it drives with `@covers(...)` and checks it really went
through them; `test_every_edge_of_the_table_is_covered` checks the declarations cover
the whole table, so an edge added without a test fails here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest

from executor.choices import Decision
from executor.engine.machine import Node, Outcome, Workflow
from executor.errors import (
    BlockedError,
    DirtyWorktreeError,
    Interrupted,
    Paused,
    TransitionNotAllowed,
    UserCancelled,
    UserError,
    VerificationFailedError,
)
from executor.strength.job import Job
from executor.strength.runner import Measured, Survivor
from executor.workflows.tdd.runner.scope import PlanScope, SessionScope
from executor.workflows.tdd.step import Step
from executor.workflows.tdd.table import TDD, TddSession, drawn
from tests.conftest import git
from tests.engine.conftest import CALL_PASSED
from tests.engine.harness import PLAN, World, write

F = TypeVar("F", bound=Callable[..., Any])
CLAIMED: set[tuple[str, str]] = set()
_EDGES: dict[str, set[tuple[str, str]]] = {}


def covers(*edges: tuple[str, str]) -> Callable[[F], F]:
    def mark(fn: F) -> F:
        CLAIMED.update(edges)
        _EDGES[fn.__name__] = set(edges)
        return fn

    return mark


@pytest.fixture
def world(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[World]:
    """A World whose test, once passed, is checked to have driven the edges it claims
    (a parametrized test: at least one of them per case)."""
    w = World(tmp_path).watch(monkeypatch)
    yield w
    claimed = _EDGES.get(request.node.originalname)
    if claimed is None or not request.node.stash.get(CALL_PASSED, False):
        return
    if hasattr(request.node, "callspec"):
        assert claimed & w.seen, f"{request.node.name} drove none of {sorted(claimed)}"
    else:
        missing = claimed - w.seen
        assert not missing, f"{request.node.name} claims edges it did not drive: {missing}"


HAPPY = [
    ("not_started", "ok"),
    ("before_start", "approve"),
    ("red_agent", "ok"),
    ("red_verify", "ok"),
    ("after_red", "approve"),
    ("green_agent", "ok"),
    ("green_verify", "ok"),
    ("green_strength", "ok"),
    ("after_green", "approve"),
    ("refactor_agent", "ok"),
    ("refactor_verify", "ok"),
    ("refactor_strength", "ok"),
    ("hooks", "ok"),
    ("after_refactor", "approve"),
    ("evidence", "ok"),
    ("commit", "ok"),
    ("session_complete", "approve"),
]


@covers(*HAPPY)
def test_happy_path_with_yes_commits_once_and_logs_every_step(world: World) -> None:
    result = world.run(yes=True)
    assert result.sessions == [1]
    rec = world.record(1)
    assert rec["step"] == "done"
    assert [(h["step"], h["outcome"]) for h in rec["history"]] == HAPPY
    assert rec["commit_hash"] == git(world.repo, "rev-parse", "HEAD").strip()
    assert world.commits() == ["feat(pkg): First Thing", "plan"]
    assert rec["red"]["files"] == ["tests/test_s1.py"]
    assert (rec["tests_written"], rec["tests_passing"]) == (1, 1)
    assert [c["step"] for c in rec["agent_calls"]] == ["red_agent", "green_agent", "refactor_agent"]
    assert git(world.repo, "status", "--porcelain") == ""


def test_a_person_approves_each_checkpoint_on_a_terminal(world: World) -> None:
    world.run(answers=["approve"] * 4)
    assert world.prompter is not None and world.prompter.remaining == 0
    assert [q for q, _, _ in world.prompter.asked] == [
        "Start session 1: First Thing?",
        "Tests fail as expected. Implement (GREEN)?",
        "All tests pass. Refactor?",
        "Tests still pass. Commit?",
    ]
    assert world.record(1)["step"] == "done"


@covers(
    ("before_start", "request_changes"),
    ("after_red", "request_changes"),
    ("after_green", "request_changes"),
    ("after_refactor", "request_changes"),
)
def test_requested_changes_send_the_same_step_back_with_the_feedback(world: World) -> None:
    def change(text: str) -> Decision:
        return Decision("request_changes", text)

    answers = [
        change("start small"),
        change("name tests well"),
        "approve",
        change("simpler please"),
        "approve",
        change("more docstrings"),
        "approve",
    ]
    world.run(answers=answers)
    attempts = [(c.tdd_step, c.attempt) for c in world.agent.calls]
    assert attempts == [
        ("red", 1),
        ("red", 2),
        ("green", 1),
        ("green", 2),
        ("refactor", 1),
        ("refactor", 2),
    ]
    briefs = world.plan / ".agent-briefs"
    assert "start small" in (briefs / "s1.red.a1.f0.md").read_text("utf-8")
    assert "name tests well" in (briefs / "s1.red.a2.f0.md").read_text("utf-8")
    assert "more docstrings" in (briefs / "s1.refactor.a2.f0.md").read_text("utf-8")
    assert world.record(1)["feedback"] == []


@covers(("after_green", "skip"))
def test_skip_refactor_still_asks_before_the_commit(world: World) -> None:
    world.run(answers=["approve", "approve", "skip_refactor", "approve"])
    assert [c.tdd_step for c in world.agent.calls] == ["red", "green"]
    assert world.prompter is not None
    assert world.prompter.asked[-1][0] == "Tests still pass. Commit?"
    assert world.record(1)["step"] == "done"


def test_show_tests_and_show_diff_return_to_the_same_checkpoint(world: World) -> None:
    world.run(answers=["approve", "show_tests", "approve", "show_diff", "approve", "approve"])
    assert world.prompter is not None
    questions = [q for q, _, _ in world.prompter.asked]
    assert questions.count("Tests fail as expected. Implement (GREEN)?") == 2
    assert questions.count("All tests pass. Refactor?") == 2
    details = [detail for _, _, detail in world.prompter.asked]
    # the asked-again question carries what was asked for, once, above its own detail
    assert details[2].count("--- tests/test_s1.py") == 1
    assert "--- tests/test_s1.py" not in details[1]
    assert "+OK = 1" in details[4]  # the diff, new untracked files included


@pytest.mark.parametrize(
    ("answers", "edge"),
    [
        (["abort"], ("before_start", "abort")),
        (["approve", "abort"], ("after_red", "abort")),
        (["approve", "approve", "abort"], ("after_green", "abort")),
        (["approve", "approve", "approve", "abort"], ("after_refactor", "abort")),
    ],
)
@covers(
    ("before_start", "abort"),
    ("after_red", "abort"),
    ("after_green", "abort"),
    ("after_refactor", "abort"),
    ("rollback", "ok"),
)
def test_abort_rolls_back_with_a_backup_and_forgets_the_session(
    world: World, answers: list[str], edge: tuple[str, str]
) -> None:
    with pytest.raises(UserCancelled) as caught:
        world.run(answers=answers)
    assert edge in world.seen and ("rollback", "ok") in world.seen
    assert "1" not in world.records()
    assert not (world.repo / "tests" / "test_s1.py").exists()
    assert git(world.repo, "status", "--porcelain") == ""
    if caught.value.backup_ref and len(answers) > 1:
        files = git(world.repo, "ls-tree", "-r", "--name-only", caught.value.backup_ref)
        assert "tests/test_s1.py" in files


@covers(("session_complete", "abort"))
def test_abort_after_the_commit_drops_our_own_commit(world: World) -> None:
    answers = ["approve"] * 4 + ["abort"]
    with pytest.raises(UserCancelled):
        world.run(PlanScope(), answers=answers)
    assert world.commits() == ["plan"]
    assert "1" not in world.records()


def test_review_at_session_complete_shows_the_commit_with_its_message(world: World) -> None:
    answers = ["approve"] * 4 + ["show_diff", "pause"]
    with pytest.raises(Paused):
        world.run(PlanScope(), answers=answers)
    assert world.prompter is not None
    shown = world.prompter.asked[5][2]
    sha = git(world.repo, "rev-parse", "HEAD").strip()
    assert shown.startswith(f"commit {sha}\n\n{world.commits()[0]}\n")
    assert "+++ b/tests/test_s1.py" in shown


def test_pause_saves_and_the_same_question_is_asked_again(world: World) -> None:
    with pytest.raises(Paused) as caught:
        world.run(answers=["approve", "approve", "pause"])
    assert (caught.value.session, caught.value.plan) == (1, world.plan)
    rec = world.record(1)
    assert rec["step"] == "after_green" and rec["paused"] is True
    world.run(answers=["approve", "approve"])
    rec = world.record(1)
    assert rec["step"] == "done" and rec["paused"] is False


@covers(("after_red", "recheck"), ("after_green", "recheck"), ("after_refactor", "recheck"))
def test_files_a_person_takes_into_the_session_are_verified_again(world: World) -> None:
    """Taken into the session at a gate, a person's edit is verified before the gate asks
    again (it was committed under counts measured without it), and a RED test the person
    edited is the RED test from then on (GREEN failed on it as "modified")."""
    test, impl = world.repo / "tests" / "test_s1.py", world.repo / "pkg" / "s1.py"
    with pytest.raises(Paused):
        world.run(answers=["approve", "pause"])  # at after_red
    write(test, test.read_text("utf-8") + "# the person's note on RED\n")
    with pytest.raises(Paused):
        world.run(answers=["include", "pause"])
    assert world.record(1)["last_summary"].startswith("RED verified")
    with pytest.raises(Paused):
        world.run(answers=["approve", "pause"])  # at after_green
    write(test, test.read_text("utf-8") + "# and on GREEN\n")
    with pytest.raises(Paused):
        world.run(answers=["include", "pause"])
    assert world.record(1)["step"] == "after_green"
    with pytest.raises(Paused):
        world.run(answers=["approve", "pause"])  # at after_refactor
    write(impl, impl.read_text("utf-8") + "# the person's last word\n")
    world.run(answers=["include", "approve", "approve"])
    assert world.record(1)["step"] == "done"
    shown = git(world.repo, "show", "HEAD:pkg/s1.py")
    assert shown.endswith("# the person's last word\n")


def _commit_s1_implementation(world: World) -> None:
    write(world.repo / "pkg" / "__init__.py", "")
    write(world.repo / "pkg" / "s1.py", "OK = 1\n")
    git(world.repo, "add", "-A")
    git(world.repo, "commit", "-q", "-m", "already there")


@covers(("red_verify", "failed"))
def test_red_that_passes_stops_without_a_person(world: World) -> None:
    _commit_s1_implementation(world)
    with pytest.raises(VerificationFailedError, match="not RED"):
        world.run(yes=True)
    rec = world.record(1)
    assert rec["step"] == "red_escalated"
    assert "RED check failed" in rec["problem"]


@covers(("red_escalated", "retry"), ("red_escalated", "skip"), ("rollback", "skip"))
def test_escalation_retry_then_skip(world: World) -> None:
    _commit_s1_implementation(world)
    world.run(answers=["approve", "retry", "skip"])
    assert [(c.tdd_step, c.attempt) for c in world.agent.calls] == [("red", 1), ("red", 2)]
    rec = world.record(1)
    assert rec["step"] == "skipped"
    assert not (world.repo / "tests" / "test_s1.py").exists()


@covers(("red_agent", "failed"), ("red_escalated", "abort"))
def test_a_failure_retrying_cannot_fix_is_not_retried(world: World) -> None:
    world.agent.plan(1, "red", "error:AGENT_NOT_FOUND")
    with pytest.raises(UserCancelled):
        world.run(answers=["approve", "rollback"])
    assert len(world.agent.calls) == 1


def test_agent_errors_follow_the_one_retry_policy(world: World) -> None:
    # two transient failures (one with an exception name as error_type), then success
    world.agent.plan(1, "green", "error:INVOCATION_FAILED", "error:TimeoutError")
    world.run(yes=True)
    assert [c.tdd_step for c in world.agent.calls] == ["red", "green", "green", "green", "refactor"]
    rec = world.record(1)
    assert [c["status"] for c in rec["agent_calls"]][1:4] == ["error", "error", "success"]


@covers(("green_agent", "failed"))
def test_after_three_failed_answers_a_person_decides(world: World) -> None:
    world.agent.plan(1, "green", "timeout", "timeout", "timeout")
    with pytest.raises(VerificationFailedError, match="The agent failed for the GREEN step"):
        world.run(yes=True)
    assert [c.tdd_step for c in world.agent.calls] == ["red", "green", "green", "green"]
    assert world.record(1)["step"] == "green_escalated"


@covers(
    ("green_verify", "failed [retries left]"),
    ("green_verify", "failed [else]"),
    ("green_escalated", "retry"),
)
def test_failing_green_is_retried_with_the_output_then_a_person_decides(world: World) -> None:
    world.agent.plan(1, "green", "broken", "broken", "broken")
    world.run(answers=["approve", "approve", "retry", "approve", "approve"], max_retries=2)
    green = [c.attempt for c in world.agent.calls if c.tdd_step == "green"]
    assert green == [1, 2, 3, 4]
    brief = (world.plan / ".agent-briefs" / "s1.green.a2.f0.md").read_text("utf-8")
    assert "Why the previous attempt was rejected" in brief
    said = [line.split("; ")[-1] for line in world.lines if "; automatic retry" in line]
    assert said == [f"automatic retry {k}/2 with the failure output" for k in (1, 2)]
    assert any("GREEN could not be verified after 2 automatic retries" in x for x in world.lines)
    assert world.record(1)["step"] == "done"


@covers(
    ("green_strength", "failed [retries left]"),
    ("green_strength", "failed [else]"),
    ("refactor_strength", "failed [retries left]"),
    ("refactor_strength", "failed [else]"),
)
def test_weak_tests_are_retried_with_the_survivors_then_a_person_accepts(world: World) -> None:
    jobs: list[Job] = []

    def weak(job: Job) -> Measured:  # one mutant of four killed, whatever the tree
        jobs.append(job)
        return Measured(made=4, killed=1, survivors=[Survivor(m, "no test runs this line")
                                                     for m in job.mutants[:3]])  # fmt: skip

    def implement(repo: Path) -> None:
        write(repo / "pkg/__init__.py", "")
        write(repo / "pkg/s1.py", "def double(n):\n    return n * 2\n")

    world.measure = weak
    world.agent.plan(1, "green", implement, implement)
    answers = ["approve", "approve", "accept_strength", "approve", "accept_strength", "approve"]
    world.run(answers=answers, max_retries=1, min_mutation_score=80)
    rec = world.record(1)
    steps = [(h["step"], h["outcome"]) for h in rec["history"]]
    retried = "failed [retries left]"
    assert steps.count(("green_strength", retried)) == 1  # then the same tree: not measured again
    assert steps.count(("refactor_strength", retried)) == 1
    brief = (world.plan / ".agent-briefs" / "s1.green.a2.f0.md").read_text("utf-8")
    assert "test strength 1/4 (25%) is below the minimum 80%" in brief
    assert "pkg/s1.py:" in brief and "survived: no test runs this line" in brief
    assert jobs[0].tests.files == ["tests/test_s1.py"] and jobs[0].mutants
    asked = world.prompter.asked if world.prompter else []
    assert any("below the minimum 80%" in q for q, _, _ in asked)
    shown = next(d for q, _, d in asked if q == "All tests pass. Refactor?")
    assert "Test strength: 1/4 mutants of the changed lines killed (25%" in shown
    assert "- pkg/s1.py:2: `return n * 2` -> " in shown and "survived: no test runs" in shown
    assert rec["step"] == "done" and rec["strength"]["accepted"]
    assert "Mutation-Score: 1/4" in git(world.repo, "log", "-1", "--format=%B")


@pytest.mark.parametrize("role", ["green", "refactor"])
@covers(
    ("green_escalated", "abort"),
    ("green_escalated", "skip"),
    ("refactor_escalated", "abort"),
    ("refactor_escalated", "skip"),
)
def test_escalated_roll_back_or_skip(world: World, role: str) -> None:
    world.agent.plan(1, role, "error:PARSE_ERROR", "error:PARSE_ERROR")
    prefix = ["approve", "approve"] + (["approve"] if role == "refactor" else [])
    with pytest.raises(UserCancelled):
        world.run(answers=[*prefix, "rollback"])
    world.run(answers=[*prefix, "skip"])
    assert world.record(1)["step"] == "skipped"


@covers(
    ("refactor_agent", "failed"),
    ("refactor_verify", "failed [retries left]"),
    ("refactor_verify", "failed [else]"),
    ("refactor_escalated", "retry"),
)
def test_refactor_that_breaks_the_tests_is_retried_then_escalated(world: World) -> None:
    def breaks(repo: Path) -> None:
        write(repo / "pkg" / "s1.py", "BROKEN\n")

    def mends(repo: Path) -> None:
        write(repo / "pkg" / "s1.py", "OK = 2\n")

    world.agent.plan(1, "refactor", "error:VALIDATION_ERROR", breaks, breaks, mends)
    world.run(answers=["approve", "approve", "approve", "retry", "retry", "approve"], max_retries=1)
    assert world.record(1)["step"] == "done"


def hook(world: World, script: str) -> Path:
    """A real pre-commit hook in the world's repository (as a person installs one)."""
    path = world.repo / ".git" / "hooks" / "pre-commit"
    write(path, "#!/bin/sh\n" + script)
    path.chmod(0o755)
    return path


LINT_HOOK = 'if grep -q LINT pkg/s1.py; then echo "lint: LINT in pkg/s1.py"; exit 1; fi\n'


@covers(("hooks", "failed [retries left]"), ("hooks", "failed [else]"), ("hooks", "ok"))
def test_the_persons_failing_hook_goes_back_to_the_agent_then_to_the_person(
    world: World,
) -> None:
    hook(world, LINT_HOOK)

    def linty(repo: Path) -> None:
        write(repo / "pkg" / "__init__.py", "")
        write(repo / "pkg" / "s1.py", "OK = 1  # LINT\n")

    def mends(repo: Path) -> None:
        write(repo / "pkg" / "s1.py", "OK = 1\n")

    world.agent.plan(1, "green", linty)
    world.agent.plan(1, "refactor", "ok", "ok", mends)
    answers = ["approve", "approve", "approve", "retry", "approve", "approve"]
    world.run(answers=answers, max_retries=1)
    rec = world.record(1)
    assert rec["step"] == "done", world.lines
    assert any("your commit hooks failed" in e for e in rec["errors"])
    refactor_briefs = [c for c in world.agent.calls if c.tdd_step == "refactor"]
    assert len(refactor_briefs) == 3  # the step, the automatic retry, the person's retry
    assert "lint: LINT in pkg/s1.py" in refactor_briefs[1].brief.read_text("utf-8")
    assert "LINT" not in git(world.repo, "show", "HEAD:pkg/s1.py")


@covers(("hooks", "recheck"), ("hooks", "ok"))
def test_files_a_hook_reformats_are_tested_again_then_committed(
    world: World, tmp_path: Path
) -> None:
    staged = tmp_path / "staged.txt"
    reformat = "if grep -q 'OK=1' pkg/s1.py; then sed -i 's/OK=1/OK = 1/' pkg/s1.py; exit 1; fi\n"
    hook(world, f"git diff --cached --name-only > {staged}\n" + reformat)

    def cramped(repo: Path) -> None:
        write(repo / "pkg" / "__init__.py", "")
        write(repo / "pkg" / "s1.py", "OK=1\n")

    world.agent.plan(1, "green", cramped)
    world.run(yes=True)
    assert world.record(1)["step"] == "done", world.lines
    assert any("your hooks changed pkg/s1.py" in line for line in world.lines)
    assert git(world.repo, "show", "HEAD:pkg/s1.py").startswith("OK = 1")
    assert "pkg/s1.py" in staged.read_text("utf-8").split()  # the tested tree, staged
    assert git(world.repo, "status", "--porcelain") == ""


@pytest.mark.parametrize("role", ["green", "refactor"])
@covers(("green_verify", "needs_person"), ("refactor_verify", "needs_person"))
def test_a_missing_dependency_goes_to_a_person_with_no_retry(world: World, role: str) -> None:
    """No agent attempt can install a dependency: the retries left are not spent on it."""

    def imports(repo: Path) -> None:
        write(repo / "pkg" / "__init__.py", "")
        write(repo / "pkg" / "s1.py", "import fancydep\nOK = 1\n")

    world.agent.plan(1, role, imports)
    prefix = ["approve", "approve"] + (["approve"] if role == "refactor" else [])
    with pytest.raises(UserCancelled):
        world.run(answers=[*prefix, "rollback"], max_retries=2)
    assert [c.tdd_step for c in world.agent.calls].count(role) == 1
    assert not any("automatic retry" in line for line in world.lines)
    assert world.prompter is not None
    assert any("the tests cannot import 'fancydep'" in q for q, _, _ in world.prompter.asked)


@pytest.mark.parametrize("role", ["green", "refactor"])
@covers(("green_strength", "needs_person"), ("refactor_strength", "needs_person"))
def test_a_strength_not_measured_goes_to_a_person_with_no_retry(world: World, role: str) -> None:
    """The agent cannot make a mutation run measure: a person decides at once."""
    jobs: list[Job] = []

    def breaks(job: Job) -> Measured:  # GREEN's measured in full when REFACTOR's breaks
        jobs.append(job)
        if role == "refactor" and len(jobs) == 1:
            return Measured(made=1, killed=1)
        return Measured(made=1, problem="the mutation run broke")

    def implement(repo: Path) -> None:
        write(repo / "pkg/__init__.py", "")
        write(repo / "pkg/s1.py", "def double(n):\n    return n * 2\n")

    world.measure = breaks
    world.agent.plan(1, "green", implement)
    prefix = ["approve", "approve"] + (["approve"] if role == "refactor" else [])
    with pytest.raises(UserCancelled):
        world.run(answers=[*prefix, "rollback"], max_retries=2, min_mutation_score=80)
    assert [c.tdd_step for c in world.agent.calls].count(role) == 1
    assert not any("automatic retry" in line for line in world.lines)
    assert world.prompter is not None
    assert any("test strength was not measured" in q for q, _, _ in world.prompter.asked)


@covers(("hooks", "needs_person"))
def test_a_hook_that_tampers_goes_to_a_person_with_no_retry(world: World) -> None:
    """What a hook runs may be the agent's own script: a person decides, no retry."""
    hook(world, "echo '- [ ] planted' >> plans/demo/PHASE_1_CORE.md\n")
    with pytest.raises(UserCancelled):
        world.run(answers=["approve", "approve", "approve", "rollback"], max_retries=2)
    assert [c.tdd_step for c in world.agent.calls].count("refactor") == 1
    assert not any("automatic retry" in line for line in world.lines)
    assert world.prompter is not None
    assert any("tampering during your commit hooks" in q for q, _, _ in world.prompter.asked)


def test_no_verify_skips_the_hooks_and_is_saved(world: World) -> None:
    hook(world, "exit 1\n")
    world.run(yes=True, no_verify=True)
    assert world.record(1)["step"] == "done", world.lines
    assert world.state()["run"]["options"]["no_verify"] is True


def test_a_hook_changed_during_the_session_is_not_run(world: World) -> None:
    path = hook(world, "exit 0\n")

    def plants(repo: Path) -> None:
        write(repo / "pkg" / "__init__.py", "")
        write(repo / "pkg" / "s1.py", "OK = 1\n")
        path.write_text("#!/bin/sh\nexit 0 # changed\n", encoding="utf-8")

    world.agent.plan(1, "green", plants)
    with pytest.raises(UserError):
        world.run(yes=True, max_retries=0)
    rec = world.record(1)
    # git's own files are the run's pin: the agent's hook is put back, its step fails
    assert rec["step"] == "green_escalated"
    assert ".git/hooks/pre-commit (changed); they were put back" in rec["last_failure"]
    assert path.read_text("utf-8").endswith("exit 0\n")


@pytest.mark.parametrize(
    ("tamper", "problem"),
    [
        (lambda repo: (repo / "tests" / "test_s1.py").unlink(), "was deleted"),
        (lambda repo: write(repo / "tests" / "test_s1.py", "import os\n"), "weakened during GREEN"),
    ],
)
def test_green_may_not_delete_or_edit_the_red_tests(
    world: World, tamper: Callable[[Path], None], problem: str
) -> None:
    def green(repo: Path) -> None:
        write(repo / "pkg" / "__init__.py", "")
        write(repo / "pkg" / "s1.py", "OK = 1\n")
        tamper(repo)

    world.agent.plan(1, "green", green)
    with pytest.raises(VerificationFailedError, match=problem):
        world.run(yes=True, max_retries=0)
    assert world.commits() == ["plan"]


@covers(("evidence", "failed"), ("evidence_escalated", "retry"))
def test_evidence_wants_every_listed_file(world: World) -> None:
    plan = PLAN.replace("- `pkg/s1.py`\n", "- `pkg/s1.py`\n- `pkg/extra.py`\n", 1)
    (world.plan / "PHASE_1_CORE.md").write_text(plan, encoding="utf-8")
    git(world.repo, "commit", "-qam", "list an extra file")

    def green(repo: Path) -> None:
        write(repo / "pkg" / "__init__.py", "")
        write(repo / "pkg" / "s1.py", "OK = 1\n")
        write(repo / "pkg" / "extra.py", "X = 1\n")

    world.agent.plan(1, "green", "ok", green)
    world.run(answers=["approve"] * 4 + ["retry", "approve", "approve"])
    rec = world.record(1)
    assert rec["step"] == "done"
    assert "pkg/extra.py" in rec["files_modified"]


def _break_refactor(repo: Path) -> None:
    write(repo / "pkg" / "s1.py", "BROKEN\n")


@pytest.mark.parametrize(
    ("role", "action", "fix"),
    [
        ("red", "nothing", ("tests/test_s1.py", "from pkg import s1\n")),
        ("green", "broken", ("pkg/s1.py", "OK = 1\n")),
        ("refactor", _break_refactor, ("pkg/s1.py", "OK = 3\n")),
        ("evidence", None, ("pkg/extra.py", "X = 1\n")),
    ],
)
@covers(
    ("red_escalated", "ok"),
    ("green_escalated", "ok"),
    ("refactor_escalated", "ok"),
    ("evidence_escalated", "ok"),
)
def test_an_unattended_run_again_takes_a_fix_to_the_sessions_files_and_stops_at_others(
    world: World, role: str, action: object, fix: tuple[str, str]
) -> None:
    if role == "evidence":  # the plan lists a file no step writes
        plan = PLAN.replace("- `pkg/s1.py`\n", "- `pkg/s1.py`\n- `pkg/extra.py`\n", 1)
        (world.plan / "PHASE_1_CORE.md").write_text(plan, encoding="utf-8")
        git(world.repo, "commit", "-qam", "list an extra file")
    else:
        world.agent.plan(1, role, action)
    with pytest.raises(VerificationFailedError, match="Fix the cause and run the same"):
        world.run(yes=True, max_retries=0)
    calls = len(world.agent.calls)
    write(world.repo / fix[0], fix[1])  # the person fixes the cause
    write(world.repo / "notes.txt", "mine\n")
    # unattended, a file only the person changed is nobody's to commit: the run stops
    with pytest.raises(DirtyWorktreeError, match="not committed as the session's work") as e:
        world.run(yes=True, max_retries=0)
    own = role in ("red", "evidence")  # RED wrote nothing; the evidence file is new
    theirs = ["notes.txt", *([fix[0]] if own else [])]
    assert sorted(e.value.files) == sorted(theirs)
    assert (world.repo / "notes.txt").read_text() == "mine\n"
    (world.repo / "notes.txt").unlink()  # the person takes it back
    if own:  # a file of their own: taken in on a terminal
        world.run(yes=True, max_retries=0, answers=["include"])
    else:  # the session's own file: taken in, and its commit says whose the edit is
        world.run(yes=True, max_retries=0)
    assert world.record(1)["step"] == "done"
    said = "\n".join(world.lines)
    message = git(world.repo, "log", "-1", "--format=%B")
    if not own:
        assert f"nobody to ask (--yes): {fix[0]}, which the session changed too" in said
        assert f"Person-Edited: {fix[0]}" in message
    committed = git(world.repo, "show", "--name-only", "--format=", "HEAD").split()
    assert fix[0] in committed and "notes.txt" not in committed
    again = [c.tdd_step for c in world.agent.calls[calls:]]
    assert role not in again  # checked again, not asked again


@pytest.mark.parametrize("choice", ["abort", "skip"])
@covers(("evidence_escalated", "abort"), ("evidence_escalated", "skip"))
def test_evidence_failure_can_be_rolled_back_or_skipped(world: World, choice: str) -> None:
    plan = PLAN.replace("- `pkg/s1.py`\n", "- `pkg/s1.py`\n- `pkg/extra.py`\n", 1)
    (world.plan / "PHASE_1_CORE.md").write_text(plan, encoding="utf-8")
    git(world.repo, "commit", "-qam", "list an extra file")
    answer = "rollback" if choice == "abort" else "skip"
    if choice == "abort":
        with pytest.raises(UserCancelled):
            world.run(answers=["approve"] * 4 + [answer])
    else:
        world.run(answers=["approve"] * 4 + [answer])
        assert world.record(1)["step"] == "skipped"


@covers(("not_started", "blocked"), ("blocked", "blocked"), ("blocked", "ok"))
def test_a_session_waits_for_its_dependencies(world: World) -> None:
    for _ in range(2):
        with pytest.raises(BlockedError, match="waiting for session"):
            world.run(SessionScope(2), yes=True)
    assert world.record(2)["step"] == "blocked"
    world.run(SessionScope(1), yes=True)
    world.run(SessionScope(2), yes=True)
    assert world.record(2)["step"] == "done"


def test_execute_plan_runs_in_order_and_asks_between_sessions(world: World) -> None:
    world.run(PlanScope(), answers=["approve"] * 5 + ["approve"] * 3)
    assert world.prompter is not None
    asked = [q for q, _, _ in world.prompter.asked]
    assert "Session 1 complete. Continue to the next session?" in asked
    assert not any("Session 2 complete" in q for q in asked)  # the last one is not asked
    assert world.commits()[:2] == ["feat(pkg): Second Thing", "feat(pkg): First Thing"]
    assert [c.tdd_step for c in world.agent.calls if c.session == 2] == ["red", "green"]


NON_TDD = """# Phase 1: Setup

## Session 1: Configure

### Objectives
- [ ] Configure things

**Run tests**: `pytest`

### Files to Create/Modify
- `pkg/s1.py`
"""


@covers(("red_agent", "skip"))
def test_a_session_without_tdd_steps_is_one_implement_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = World(tmp_path, NON_TDD).watch(monkeypatch)
    write(world.repo / "tests" / "test_s1.py", "from pkg import s1\n")
    git(world.repo, "add", "-A")
    git(world.repo, "commit", "-q", "-m", "a test exists")
    world.run(yes=True)
    assert [c.tdd_step for c in world.agent.calls] == ["green"]
    assert world.record(1)["step"] == "done"
    assert ("red_agent", "skip") in world.seen


TESTS_FIRST = """# Phase 1: Core

## Session 1: Tests first (TDD)

### TDD Workflow

#### Step 1: Write Tests FIRST (RED)
Create `tests/test_s1.py`.

**Run tests**: `pytest tests/test_s1.py`

### Files to Create/Modify
- `tests/test_s1.py`

---

## Session 2: Make them pass

### Objectives
- [ ] Implement pkg/s1.py

**Run tests**: `pytest`

### Files to Create/Modify
- `pkg/s1.py`

### Dependencies
- Session 1
"""


@covers(("green_agent", "skip"))
def test_a_session_that_only_writes_failing_tests_commits_them_after_red(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """spec-kit's "Tests First" phase, a superpowers task that ends at the failing run:
    RED is verified failing, the tests are committed, the next session implements."""
    world = World(tmp_path, TESTS_FIRST).watch(monkeypatch)

    def implement(repo: Path) -> None:
        write(repo / "pkg" / "__init__.py", "")
        write(repo / "pkg" / "s1.py", "OK = 1\n")

    world.agent.plan(2, "green", implement)
    world.run(PlanScope(), yes=True)
    assert [(c.session, c.tdd_step) for c in world.agent.calls] == [(1, "red"), (2, "green")]
    assert ("green_agent", "skip") in world.seen
    assert world.record(1)["step"] == world.record(2)["step"] == "done"
    first = git(world.repo, "show", "--name-only", "--format=", "HEAD~1").split()
    assert "tests/test_s1.py" in first and "pkg/s1.py" not in first


def test_the_driver_refuses_an_edge_the_table_does_not_have() -> None:
    with pytest.raises(TransitionNotAllowed, match="no transition from step 'done'"):
        TDD.next(Step.DONE, Outcome.OK, cast(TddSession, None))
    tiny: Workflow[str, object] = Workflow(
        name="tiny",
        start="a",
        nodes=(Node("a", lambda _: Outcome.OK, {Outcome.OK: "b"}), Node("b", None, final="done")),
    )
    assert tiny.steps() == ["a", "b"] and tiny.outcomes("a") == [Outcome.OK]
    assert tiny.table == {("a", "ok"): "b"} and tiny.final == {"b": "done"}


def test_the_docs_draw_the_table_the_code_declares() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "engine.md").read_text("utf-8")
    shown = docs.split("<!-- tdd-workflow:start -->\n")[1].split("\n<!-- tdd-workflow:end -->")[0]
    assert shown == drawn(), "update docs/engine.md: python -m executor.workflows.tdd.table"


def test_every_edge_of_the_table_is_covered() -> None:
    table = {(step.value, edge) for (step, edge) in TDD.table}
    assert sorted(table - CLAIMED) == []
    assert sorted(CLAIMED - table) == []


def test_refactor_may_not_skip_a_session_test(world: World) -> None:
    def skips(repo: Path) -> None:
        test = repo / "tests" / "test_s1.py"
        write(test, test.read_text("utf-8") + "# skip\n")

    world.agent.plan(1, "refactor", skips)
    ran_in_red = "1 test that ran in RED is skipped or xfail now"
    with pytest.raises(VerificationFailedError, match=ran_in_red):
        world.run(yes=True, max_retries=0)
    assert world.record(1)["step"] == "refactor_escalated"


def test_an_agent_that_claims_success_without_work_gets_no_commit(world: World) -> None:
    world.agent.plan(1, "green", "nothing")
    with pytest.raises(VerificationFailedError, match=r"not green|has failures"):
        world.run(yes=True, max_retries=0)
    assert world.commits() == ["plan"]
    rec = world.record(1)
    assert rec["step"] == "green_escalated" and rec["commit_hash"] is None


@covers(("not_started", "adopt"), ("blocked", "adopt"))
def test_sessions_ticked_done_are_adopted_when_their_tests_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = World(tmp_path, PLAN.replace("- [ ] Build", "- [x] Build")).watch(monkeypatch)
    for n in (1, 2):
        write(world.repo / "tests" / f"test_s{n}.py", f"from pkg import s{n}\n")
        write(world.repo / "pkg" / f"s{n}.py", "OK = 1\n")
    write(world.repo / "pkg" / "__init__.py", "")
    git(world.repo, "add", "-A")
    git(world.repo, "commit", "-q", "-m", "already built")
    with pytest.raises(BlockedError):
        world.run(SessionScope(2), yes=True)
    world.run(PlanScope(), yes=True)
    assert world.agent.calls == []
    assert [world.record(n)["adopted"] for n in (1, 2)] == [True, True]
    assert world.commits()[0] == "already built"
    assert {("not_started", "adopt"), ("blocked", "adopt")} <= world.seen


def test_a_terminal_confirms_before_anything_is_rolled_back(world: World) -> None:
    world.run(answers=["approve", "abort", "no", "approve", "approve", "approve"])
    assert world.prompter is not None
    questions = [q for q, _, _ in world.prompter.asked]
    assert any(q.startswith("Abort session 1: reset the worktree") for q in questions)
    assert world.record(1)["step"] == "done"  # "no": back to the question, then approved


NO_REFACTOR = PLAN.replace(
    "#### Step 3: Refactor (REFACTOR)\n- tidy\n\n**Run tests**: Should still PASS\n\n", ""
)


def test_without_a_refactor_step_one_question_and_its_changes_reach_the_agent(
    tmp_path: Path,
) -> None:
    """A plan without REFACTOR (every superpowers and spec-kit plan): after GREEN comes
    the commit question alone, and changes asked for there go to an agent (they were
    dropped: "the plan has no REFACTOR step; skipped", then the same question)."""
    assert "(REFACTOR)" not in NO_REFACTOR
    world = World(tmp_path, NO_REFACTOR)
    wanted = Decision("request_changes", "add a docstring")
    world.run(answers=["approve", "approve", wanted, "approve", "approve"])
    assert world.prompter is not None
    questions = [q for q, _, _ in world.prompter.asked]
    assert not any("Refactor?" in q for q in questions), questions
    refactor = [c for c in world.agent.calls if c.tdd_step == "refactor"]
    assert len(refactor) == 1 and "add a docstring" in refactor[0].brief.read_text("utf-8")
    assert world.record(1)["step"] == "done"


SETUP = """# Phase 1: Setup

## Session 1: Project Skeleton

### Objectives
- [ ] Create the package

### Files to Create/Modify
- `pkg/__init__.py`

### Dependencies
None
"""


def test_a_session_without_tests_in_a_project_without_any_is_verified_by_its_files(
    tmp_path: Path,
) -> None:
    """spec-kit's Setup phase: no test tasks, and no tests in the project yet. It used
    to ask the agent three times, then stop: "the suite ran no tests"."""
    world = World(tmp_path, SETUP)
    with pytest.raises(UserError, match="session 1 has no test command"):
        world.run(yes=True)
    assert world.agent.calls == []  # said before any agent was asked
    world.run(yes=True, test_command="pytest")
    assert world.record(1)["step"] == "done"
    assert [c.tdd_step for c in world.agent.calls] == ["green"]
    assert len(world.commits()) == 2  # the plan, and the session


def test_earlier_tests_count_when_the_session_runs_the_whole_suite(tmp_path: Path) -> None:
    """Session 2's command is the suite itself (`pytest`): that run is the suite run, and
    the tests session 1 left passing may not vanish from it."""
    world = World(tmp_path, PLAN.replace("`pytest tests/test_s2.py`", "`pytest`"))
    world.run(SessionScope(1), yes=True)

    def drop_s1(repo: Path) -> None:  # GREEN's work, and session 1's test deleted
        write(repo / "pkg" / "s2.py", "OK = 2\n")
        (repo / "tests" / "test_s1.py").unlink()

    world.agent.plan(2, "green", drop_s1)
    with pytest.raises(VerificationFailedError, match="gone from the suite"):
        world.run(SessionScope(2), yes=True, max_retries=0)


@pytest.mark.parametrize("role", ["red", "green", "refactor"])
@covers(("red_agent", "abort"), ("green_agent", "abort"), ("refactor_agent", "abort"))
def test_a_persons_file_after_ctrl_c_in_an_agent_step_is_asked_about_first(
    world: World, role: str
) -> None:
    def stopped(repo: Path) -> None:
        write(repo / f"pkg/{role}.py", "PARTIAL = 1\n")  # what the agent wrote before it
        raise KeyboardInterrupt

    world.agent.plan(1, role, stopped)
    with pytest.raises(Interrupted):
        world.run(yes=True)
    calls = len(world.agent.calls)
    write(world.repo / "notes.txt", "mine\n")  # the person's, while the run was stopped
    with pytest.raises(UserCancelled, match="rolled back"):
        world.run(yes=True, answers=["abort"])
    assert len(world.agent.calls) == calls  # settled before the agent was asked again
    assert world.prompter is not None
    question = world.prompter.asked[0][0]
    assert question.startswith("Files changed while session 1 waited, not by its agent: notes.txt.")
