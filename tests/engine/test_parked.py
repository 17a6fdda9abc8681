"""A question nobody can answer does not stop an unattended run (docs/engine.md, "A
question with nobody to ask"), through the real CLI, real git and the replay agent.

A plan of three sessions: session 1's RED takes an assertion out of an existing test
while it adds a failing one (the behaviour it pinned is what the session changes: a
person decides), session 2 is independent, session 3 depends on session 1.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output import DummyOutput

from executor.choices import Decision, Option
from executor.prompts import TerminalPrompter
from executor.workflows.tdd.parking.questions import waiting_on
from executor.workflows.tdd.runner.opening import RunRequest
from executor.workflows.tdd.runner.run import Runner
from executor.workflows.tdd.runner.scope import PlanScope
from tests.conftest import git, run_cli
from tests.engine.helpers import REPLAY_AGENT, commits, host_loop, respond, state

pytestmark = pytest.mark.slow


def _section(n: int, title: str, test: str, code: str, depends: str) -> str:
    return (
        f"## Session {n}: {title} (TDD)\n\n#### Step 1: Write Tests FIRST (RED)\nChange "
        f"`{test}`.\n\n**Run tests**: `python -m pytest {test} -q`\n\n#### Step 2: Implement "
        f"(GREEN)\nChange `{code}`.\n\n**Run tests**: `python -m pytest {test} -q`\n\n### "
        f"Files to Create/Modify\n- `{code}`\n- `{test}`\n\n### Dependencies\n{depends}\n\n"
    )


LIB = "LIMIT = 3\n\n\ndef double(x):\n    return x * 2\n"
TESTS = (
    "import lib\n\n\ndef test_double():\n    assert lib.double(2) == 4\n"
    "    assert lib.double(3) == 6\n\n\ndef test_limit():\n    assert lib.LIMIT == 3\n"
)
#: RED of session 1: an assertion out of test_double (a question), a failing test_triple
RED_1 = TESTS.replace("    assert lib.double(3) == 6\n", "") + (
    "\n\ndef test_triple():\n    assert lib.triple(2) == 6\n"
)
GREEN_1 = LIB + "\n\ndef triple(x):\n    return x * 3\n"
#: session 2 in its own files; or, to conflict with session 1, at the end of its test file
OTHER = {
    "red": {"tests/test_other.py": "import other\n\n\ndef test_other():\n    assert other.one()\n"},
    "green": {"other.py": "def one():\n    return 1\n"},
}
CONFLICTING = {
    "red": {"tests/test_lib.py": TESTS + "\n\ndef test_quad():\n    assert lib.quad(2) == 8\n"},
    "green": {"lib.py": LIB + "\n\ndef quad(x):\n    return x * 4\n"},
}
MORE = {
    "red": {"tests/test_more.py": "import more\n\n\ndef test_more():\n    assert more.more(2)\n"},
    "green": {"more.py": "import lib\n\n\ndef more(x):\n    return lib.double(lib.triple(x))\n"},
}


def _project(repo: Path, tmp: Path, second: dict[str, dict[str, str]] = OTHER) -> tuple[Path, str]:
    """The project, its plan (committed) and the replay agent's solutions."""
    (repo / "lib.py").write_text(LIB, encoding="utf-8")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_lib.py").write_text(TESTS, encoding="utf-8")
    (repo / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n", encoding="utf-8")
    plan = repo / "project-plans" / "p"
    plan.mkdir(parents=True)
    two_test, two_code = (next(iter(second[s])) for s in ("red", "green"))
    (plan / "PHASE_1_CHANGE.md").write_text(
        "# Phase 1: Change\n\n"
        + _section(1, "Change Things", "tests/test_lib.py", "lib.py", "None")
        + _section(2, "Other Things", two_test, two_code, "None")
        + _section(3, "More Things", "tests/test_more.py", "more.py", "- Session 1"),
        encoding="utf-8",
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the project")
    sessions = {1: {"red": {"tests/test_lib.py": RED_1}, "green": {"lib.py": GREEN_1}},
                2: second, 3: MORE}  # fmt: skip
    for n, steps in sessions.items():
        for step, files in steps.items():
            for rel, text in files.items():
                path = tmp / "solutions" / f"session-{n}" / step / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    agent = shlex.join([sys.executable, str(REPLAY_AGENT), "--solutions", str(tmp / "solutions")])
    return plan, agent


def _unattended(plan: Path, repo: Path, agent: str, env: dict[str, str] | None = None) -> Any:
    return run_cli("execute-plan", "--plan", str(plan), "--yes", "--agent-command", agent,
                   cwd=repo, env=env)  # fmt: skip


def _parked(plan: Path) -> dict[str, Any]:
    parked: dict[str, Any] = state(plan)["run"].get("parked", {})
    return parked


def _checkpoints_approved(req: dict[str, Any]) -> str:
    """A host's person: accepts the changed tests when asked, approves every checkpoint."""
    values = [o["value"] for o in req["context"]["options"]]
    return "accept_tests" if "accept_tests" in values else "approve"


def test_a_question_waits_parked_while_the_run_goes_on_and_its_answer_lands_it(
    git_repo: Path, tmp_path: Path
) -> None:
    plan, agent = _project(git_repo, tmp_path)
    out = _unattended(plan, git_repo, agent)
    assert out.returncode == 16, out.stdout + out.stderr
    # session 2 ran and is committed; session 1 is not; session 3 did not start
    assert commits(git_repo) == ["feat(p): Other Things", "the project", "initial"]
    assert "Session 1 waits for a person's answer, and nobody could give one" in out.stderr
    assert "session 1 (Change Things) asks: Session 1 RED check failed" in out.stderr
    assert "accept_tests" in out.stderr and "test_double (assertions removed)" in out.stderr
    assert "session 3 (More Things) waits on session(s) 1: not started" in out.stderr
    assert f"executor resume-session 1 --plan {plan}" in out.stderr
    # the run's summary counts it as waiting, and `show` tells its question
    assert "1 of 3 sessions done, 1 waiting, 1 stopped" in out.stderr
    one = run_cli("show", "1", "--plan", str(plan), cwd=git_repo)
    assert "Change Things (phase 1: " in one.stdout and ": parked" in one.stdout
    assert "waits for a person's answer: Session 1 RED check failed" in one.stdout
    # its work is kept under its ref, not in the checkout, not on the branch
    parked = _parked(plan)["1"]
    assert git(git_repo, "show", f"{parked['ref']}:tests/test_lib.py") == RED_1
    assert git(git_repo, "status", "--porcelain") == ""
    assert (git_repo / "tests" / "test_lib.py").read_text("utf-8") == TESTS
    assert parked["record"]["step"] == "red_escalated" and parked["cleared"]
    st = state(plan)
    assert st["run"]["sessions"]["3"]["step"] == "blocked" and st["status"] == "blocked"

    shown = run_cli("status", "--plan", str(plan), cwd=git_repo)
    assert shown.returncode == 0, shown.stderr
    assert "session 1 waits for your answer (parked since" in shown.stdout
    assert "session 3 waits on session(s) 1 (parked)" in shown.stdout
    assert "blocked (parked: a question)" in shown.stdout
    assert f"next: answer session 1's question at a terminal: executor resume-session 1 " \
           f"--plan {plan}" in shown.stdout  # fmt: skip
    data = json.loads(run_cli("status", "--plan", str(plan), "--json", cwd=git_repo).stdout)
    (question,) = data["questions"]
    assert question["answer"] == ["resume-session", "1"] and question["ref"] == parked["ref"]
    assert "accept_tests" in [o["value"] for o in question["options"]]

    # a host takes it up: the question goes over the bridge, its work back in the checkout
    asked = run_cli("resume-session", "1", "--plan", str(plan), cwd=git_repo)
    assert asked.returncode == 42, asked.stdout + asked.stderr
    assert "taken up again: its work is back in the checkout, merged onto" in asked.stdout
    request = json.loads((plan / ".agent-request.json").read_text("utf-8"))
    assert request["context"]["question"] == parked["question"]
    assert (git_repo / "tests" / "test_lib.py").read_text("utf-8") == RED_1
    assert (git_repo / "other.py").is_file()  # on top of what landed meanwhile
    assert respond(plan, git_repo, "accept_tests").returncode == 0
    done = host_loop(["resume-session", "1", "--plan", str(plan), "--resume"], repo=git_repo,
                     plan=plan, answer=_checkpoints_approved)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert commits(git_repo)[:2] == ["feat(p): Change Things", "feat(p): Other Things"]
    assert git(git_repo, "show", "HEAD:tests/test_lib.py") == RED_1
    assert git(git_repo, "for-each-ref", "refs/executor/parked") == ""
    assert "parked" not in state(plan)["run"]

    # and the session that waited on it runs now
    rest = run_cli("execute-plan", "--plan", str(plan), "--yes", cwd=git_repo)
    assert rest.returncode == 0, rest.stdout + rest.stderr
    assert commits(git_repo)[0] == "feat(p): More Things"
    assert git(git_repo, "status", "--porcelain") == ""


class Keyboard:
    """A person at a terminal (real questionary prompts): picks `choice` at each question."""

    def __init__(self, pipe: PipeInput, choice: str) -> None:
        self.pipe, self.choice = pipe, choice
        self.inner = TerminalPrompter(input=pipe, output=DummyOutput())
        self.questions: list[str] = []

    def ask(self, question: str, options: Sequence[Option], *, detail: str = "") -> Decision:
        self.questions.append(question)
        at = [o.value for o in options].index(self.choice)
        self.pipe.send_text("\x1b[B" * at + "\r")
        return self.inner.ask(question, options, detail=detail)


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as p, create_app_session(input=p, output=DummyOutput()):
        yield p


def test_answered_at_a_terminal_it_is_committed_then_the_session_waiting_on_it_runs(
    git_repo: Path, tmp_path: Path, pipe: PipeInput
) -> None:
    plan, agent = _project(git_repo, tmp_path)
    assert _unattended(plan, git_repo, agent).returncode == 16
    keys = Keyboard(pipe, "accept_tests")
    lines: list[str] = []
    # --yes at a terminal: the checkpoints approved, the question asked
    req = RunRequest(plan=plan, scope=PlanScope(), repo=git_repo, yes=True, prompter=keys,
                     backoff=0)  # fmt: skip
    Runner(req, report=lines.append).execute()
    assert len(keys.questions) == 1 and "test_double (assertions removed)" in keys.questions[0]
    assert commits(git_repo)[:3] == [
        "feat(p): More Things",
        "feat(p): Change Things",
        "feat(p): Other Things",
    ]
    assert git(git_repo, "status", "--porcelain") == ""
    assert "parked" not in state(plan)["run"]


def test_killed_while_parking_at_each_boundary_nothing_is_lost(
    git_repo: Path, tmp_path: Path
) -> None:
    """SIGKILL at each of parking's durable boundaries in turn, each run taking up what the
    one before left: the end is the uninterrupted run's."""
    plan, agent = _project(git_repo, tmp_path)
    for point in ("parking.kept", "parking.recorded", "parking.cleared"):
        killed = _unattended(plan, git_repo, agent, env={"EXECUTOR_FAULT": f"{point}:kill"})
        assert killed.returncode == -9, f"{point}: {killed.stdout}{killed.stderr}"
        assert commits(git_repo) == ["the project", "initial"]
        ref = git(git_repo, "for-each-ref", "--format=%(refname)", "refs/executor/parked")
        assert git(git_repo, "show", f"{ref.strip()}:tests/test_lib.py") == RED_1, point
    out = _unattended(plan, git_repo, agent)
    assert out.returncode == 16, out.stdout + out.stderr
    assert commits(git_repo) == ["feat(p): Other Things", "the project", "initial"]
    parked = _parked(plan)["1"]
    assert parked["cleared"] and parked["record"]["step"] == "red_escalated"
    assert git(git_repo, "show", f"{parked['ref']}:tests/test_lib.py") == RED_1
    assert git(git_repo, "status", "--porcelain") == ""
    assert state(plan)["run"]["sessions"]["3"]["step"] == "blocked"


def test_killed_while_taking_it_up_at_each_boundary_nothing_is_lost(
    git_repo: Path, tmp_path: Path
) -> None:
    plan, agent = _project(git_repo, tmp_path)
    assert _unattended(plan, git_repo, agent).returncode == 16
    take = ["resume-session", "1", "--plan", str(plan)]
    for point in ("parking.planned", "parking.written", "parking.taken"):
        killed = run_cli(*take, cwd=git_repo, env={"EXECUTOR_FAULT": f"{point}:kill"})
        assert killed.returncode == -9, f"{point}: {killed.stdout}{killed.stderr}"
    asked = run_cli(*take, cwd=git_repo)
    assert asked.returncode == 42, asked.stdout + asked.stderr
    assert (git_repo / "tests" / "test_lib.py").read_text("utf-8") == RED_1
    assert git(git_repo, "status", "--porcelain") == " M tests/test_lib.py\n"
    rec = state(plan)["run"]["sessions"]["1"]
    assert (
        rec["step"] == "red_escalated"
        and rec["base_commit"] == git(git_repo, "rev-parse", "HEAD").strip()
    )
    assert respond(plan, git_repo, "accept_tests").returncode == 0
    done = host_loop([*take, "--resume"], repo=git_repo, plan=plan, answer=_checkpoints_approved)
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(git_repo, "show", "HEAD:lib.py") == GREEN_1
    assert git(git_repo, "show", "HEAD:other.py").startswith("def one")
    # its ref is gone; its work as it was parked stays under a backup ref
    assert git(git_repo, "for-each-ref", "refs/executor/parked") == ""
    backups = git(git_repo, "for-each-ref", "--format=%(refname)", "refs/executor/backup/")
    kept = [r for r in backups.split() if "/parked-session-1-" in r]
    assert kept and all(git(git_repo, "show", f"{r}:tests/test_lib.py") == RED_1 for r in kept)


def test_a_conflict_with_what_landed_meanwhile_waits_for_a_person(
    git_repo: Path, tmp_path: Path
) -> None:
    plan, agent = _project(git_repo, tmp_path, CONFLICTING)
    assert _unattended(plan, git_repo, agent).returncode == 16
    take = ["resume-session", "1", "--plan", str(plan)]
    blocked = run_cli(*take, cwd=git_repo)
    assert blocked.returncode == 22, blocked.stdout + blocked.stderr
    assert "session 1's parked work conflicts with what was committed since" in blocked.stderr
    assert "git's markers in tests/test_lib.py" in blocked.stderr
    tests = git_repo / "tests" / "test_lib.py"
    assert "<<<<<<<" in tests.read_text("utf-8")
    assert _parked(plan)["1"]["conflicts"] == ["tests/test_lib.py"]
    # untouched, it is never taken as resolved
    assert run_cli(*take, cwd=git_repo).returncode == 22
    assert "1" in _parked(plan)
    resolved = RED_1 + "\n\ndef test_quad():\n    assert lib.quad(2) == 8\n"
    tests.write_text(resolved, encoding="utf-8")
    asked = run_cli(*take, cwd=git_repo)
    assert asked.returncode == 42, asked.stdout + asked.stderr
    assert "the conflict is resolved in the checkout" in asked.stdout
    assert tests.read_text("utf-8") == resolved
    assert "parked" not in state(plan)["run"]
    assert state(plan)["run"]["sessions"]["1"]["step"] == "red_escalated"


def test_a_stop_no_answer_settles_still_stops_the_run(git_repo: Path, tmp_path: Path) -> None:
    """RED's tests pass: no acceptance makes that RED. The run stops there, as before."""
    plan, agent = _project(git_repo, tmp_path)
    passing = tmp_path / "solutions" / "session-1" / "red" / "tests" / "test_lib.py"
    passing.write_text(TESTS + "\n\ndef test_more_double():\n    assert lib.double(4) == 8\n")
    out = _unattended(plan, git_repo, agent)
    assert out.returncode == 16, out.stdout + out.stderr
    assert "No human is available" in out.stderr
    assert commits(git_repo) == ["the project", "initial"]  # session 2 did not run
    assert "parked" not in state(plan)["run"]
    assert git(git_repo, "for-each-ref", "refs/executor/parked") == ""


def test_a_later_stop_says_what_waits_too(git_repo: Path, tmp_path: Path) -> None:
    """Session 1 parked, then session 2's RED passes: the run stops there, and its message
    names session 1's question as well."""
    plan, agent = _project(git_repo, tmp_path)
    passing = tmp_path / "solutions" / "session-2" / "red" / "tests" / "test_other.py"
    passing.write_text("def test_nothing_yet():\n    assert True\n", encoding="utf-8")
    out = _unattended(plan, git_repo, agent)
    assert out.returncode == 16, out.stdout + out.stderr
    assert "Session 2 RED check failed" in out.stderr and "No human is available" in out.stderr
    assert "Session 1 waits for a person's answer" in out.stderr
    assert "session 1 (Change Things) asks:" in out.stderr
    assert commits(git_repo) == ["the project", "initial"]
    assert "1" in _parked(plan) and state(plan)["run"]["sessions"]["2"]["step"] == "red_escalated"
    # session 2's work holds the checkout: session 1 is not taken up over it
    again = run_cli("resume-session", "1", "--plan", str(plan), cwd=git_repo)
    assert again.returncode == 16, again.stdout + again.stderr
    assert "session 2 was in progress in the checkout when the run came to it" in again.stderr
    assert "1" in _parked(plan)
    assert git(git_repo, "status", "--porcelain") == "?? tests/test_other.py\n"


def test_waiting_on_follows_dependencies_to_the_parked_session() -> None:
    deps = {1: [], 2: [], 3: [1], 4: [3], 5: [2], 6: [4, 5]}
    done = {2, 5}.__contains__
    assert waiting_on(deps, [1], done) == {3: [1], 4: [1], 6: [1]}
    assert waiting_on(deps, [], done) == {}


def test_waiting_on_a_chain_of_ten_thousand_sessions() -> None:
    deps = {n: [n - 1] if n > 1 else [] for n in range(1, 10_001)}
    assert waiting_on(deps, [], lambda n: False) == {}
    found = waiting_on(deps, [2], {1}.__contains__)
    assert len(found) == 9_998 and found[10_000] == [2] and 1 not in found and 2 not in found
