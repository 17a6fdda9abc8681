"""A session's lane as a run of its own: it stops the parallel run with its own exit code,
is checked again when the person fixed the cause, runs again on the new tip when asked,
and its test runs cannot write the main run's files; a plan not committed is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from executor.prompts import ScriptedPrompter
from executor.runoptions import Overrides
from executor.sandbox import bubblewrap
from executor.workflows.tdd.parallel.orchestrator import Parallel
from executor.workflows.tdd.runner.opening import RunRequest
from executor.workflows.tdd.runner.scope import PlanScope
from tests.conftest import git, run_cli
from tests.parallel.helpers import (
    PLAN,
    agent,
    branches,
    make_project,
    make_solutions,
    simple,
    state,
    subjects,
    worktrees,
)

pytestmark = pytest.mark.slow


def test_a_lane_that_stops_stops_the_run_with_its_code_and_is_checked_again(
    git_repo: Path, tmp_path: Path
) -> None:
    one, two = simple(1, "alpha"), simple(2, "beta")
    two.code = "def beta() -> str:\n    return 'wrong'\n"  # its GREEN never passes
    make_project(git_repo, [one, two])
    run = ["execute-plan", "--plan", PLAN, "--parallel", "2", "--yes", "--max-retries", "0",
           "--agent-command", agent(make_solutions(tmp_path, [one, two]))]  # fmt: skip
    proc = run_cli(*run, cwd=git_repo)
    assert proc.returncode == 16, proc.stdout + proc.stderr
    assert "session 2 stopped: Session 2 GREEN could not be verified" in proc.stderr
    assert subjects(git_repo)[0] == "feat(tools): Alpha"  # the other lane went on
    # the person fixes the cause in the lane's worktree; the same command checks again
    (git_repo / ".executor-worktrees" / "session-2" / "beta.py").write_text(
        "def beta() -> str:\n    return 'beta'\n", encoding="utf-8"
    )
    again = run_cli(*run, cwd=git_repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert subjects(git_repo)[:2] == ["feat(tools): Beta", "feat(tools): Alpha"]
    assert worktrees(git_repo) == [str(git_repo)]


def test_a_blocked_session_runs_again_on_the_new_tip_when_asked(
    git_repo: Path, tmp_path: Path
) -> None:
    one, two = simple(1, "alpha"), simple(2, "beta")
    one.extra, two.extra = {"shared.py": "VALUE = 1\n"}, {"shared.py": "VALUE = 2\n"}
    make_project(git_repo, [one, two], setup={"shared.py": "VALUE = 0\n"})
    run = ["execute-plan", "--plan", PLAN, "--parallel", "2", "--checkpoints", "none",
           "--agent-command", agent(make_solutions(tmp_path, [one, two]))]  # fmt: skip
    proc = run_cli(*run, cwd=git_repo)
    assert proc.returncode == 42, proc.stdout + proc.stderr
    shown = json.loads(run_cli("bridge", "show", "--all", "--dir", PLAN, "--json",
                               cwd=git_repo).stdout)  # fmt: skip
    (ask,) = shown["pending"]
    assert "could not be integrated: its commit conflicts" in ask["context"]["question"]
    old = git(git_repo, "rev-parse", "executor/session-2").strip()
    again = run_cli("bridge", "respond", "--dir", ask["dir"], "--response", "rerun", "--resume",
                    cwd=git_repo)  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr
    assert subjects(git_repo)[:2] == ["feat(tools): Beta", "feat(tools): Alpha"]
    assert (git_repo / "shared.py").read_text() == "VALUE = 2\n"
    # what it had before is kept under a backup ref
    refs = git(git_repo, "for-each-ref", "--format=%(objectname)", "refs/executor/backup/")
    assert old in refs.split()
    assert branches(git_repo) == ["main"]


@pytest.mark.skipif(bubblewrap() is None, reason="bubblewrap does not work here")
def test_a_lanes_test_runs_cannot_write_the_main_runs_files(git_repo: Path, tmp_path: Path) -> None:
    one = simple(1, "alpha")
    # its test tries to forge the main run's state and plan (four folders up: the repo)
    one.test += (
        "\n\ndef test_forge() -> None:\n    import pathlib\n\n"
        "    main = pathlib.Path(__file__).resolve().parents[3]\n"
        f"    for name in ({PLAN + '/.agent-state.json'!r}, {PLAN + '/PHASE_1_TOOLS.md'!r}):\n"
        "        try:\n            (main / name).write_text('forged')\n"
        "        except OSError:\n            continue\n"
        "        raise AssertionError(f'wrote {name}')\n"
    )
    make_project(git_repo, [one])
    plan_text = (git_repo / PLAN / "PHASE_1_TOOLS.md").read_text()
    proc = run_cli("execute-plan", "--plan", PLAN, "--parallel", "1", "--yes", "--agent-command",
                   agent(make_solutions(tmp_path, [one])), cwd=git_repo)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert state(git_repo / PLAN)["status"] == "completed"
    assert "forged" not in (git_repo / PLAN / "PHASE_1_TOOLS.md").read_text()
    assert (git_repo / PLAN / "PHASE_1_TOOLS.md").read_text() != plan_text  # its box, ticked


def test_a_plan_not_committed_is_refused(git_repo: Path, tmp_path: Path) -> None:
    make_project(git_repo, [simple(1, "alpha")])
    phase = git_repo / PLAN / "PHASE_1_TOOLS.md"
    phase.write_text(phase.read_text() + "\n", encoding="utf-8")
    proc = run_cli("execute-plan", "--plan", PLAN, "--parallel", "2", "--yes", cwd=git_repo)
    assert proc.returncode == 64, proc.stdout + proc.stderr
    assert "the plan must be committed" in proc.stderr and "PHASE_1_TOOLS.md" in proc.stderr
    assert worktrees(git_repo) == [str(git_repo)]


def test_a_person_at_the_terminal_answers_every_sessions_checkpoints(
    git_repo: Path, tmp_path: Path
) -> None:
    """The parallel run is the host of its sessions' questions when it has a terminal:
    each is put to the person there, one at a time, while the other session works."""
    specs = [simple(1, "alpha"), simple(2, "beta")]
    plan = make_project(git_repo, specs)
    person = ScriptedPrompter(["approve"] * 20)
    req = RunRequest(
        plan=plan, scope=PlanScope(), prompter=person, resume_argv=["execute-plan", "--resume"],
        overrides=Overrides(agent_command=agent(make_solutions(tmp_path, specs)), parallel=2,
                            checkpoints="all"),
    )  # fmt: skip
    said: list[str] = []
    result = Parallel(req, report=said.append).execute()
    assert result.sessions == [1, 2]
    asked = [question for question, _, _ in person.asked]
    # before_start, after_red and after_refactor of each (no REFACTOR step: no after_green)
    assert sorted(asked) == sorted(
        f"[session {n}] {q}"
        for n, title in ((1, "Alpha"), (2, "Beta"))
        for q in (f"Start session {n}: {title}?", "Tests fail as expected. Implement (GREEN)?",
                  "Tests still pass. Commit?")
    )  # fmt: skip
    assert subjects(git_repo)[:2] == ["feat(tools): Beta", "feat(tools): Alpha"]
