"""The fourth hostile pass over parallel runs (issue 29), through the real CLI, real git,
real pytest and a hostile stand-in agent (`hostile.py`): what lands is what a session's
own run verified, and the main run's state says only what happened."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from executor.sandbox import bubblewrap
from tests import forkserver
from tests.conftest import git, run_cli
from tests.parallel.helpers import (
    HOSTILE,
    PLAN,
    agent,
    make_project,
    make_solutions,
    simple,
    state,
    subjects,
)
from tests.parallel.hostile import forge_state

pytestmark = pytest.mark.slow

#: What a hostile agent puts in session 2's commit: code that does not work, and a test
#: that no longer tests it (the whole suite passes on it).
BROKEN = {
    "beta.py": "def beta() -> str:\n    return 'wrong'\n",
    "tests/test_beta.py": "def test_beta() -> None:\n    pass\n",
}


def test_integration_takes_the_commit_the_lane_verified_not_what_its_branch_holds(
    git_repo: Path, tmp_path: Path
) -> None:
    """Session 1's agent replaces session 2's verified commit on its branch (same message,
    same trailers) while session 2 waits for session 1 to be integrated first."""
    specs = [simple(1, "alpha"), simple(2, "beta")]
    make_project(git_repo, specs)
    command = agent(make_solutions(tmp_path, specs), script=HOSTILE, at="1:green",
                    attack="amend", target=2, files=BROKEN)  # fmt: skip
    run = ["execute-plan", "--plan", PLAN, "--parallel", "2", "--yes", "--agent-command", command]
    proc = run_cli(*run, cwd=git_repo)
    assert proc.returncode == 22, proc.stdout + proc.stderr
    assert "session 2: its branch executor/session-2 moved" in proc.stderr
    assert "since its run verified" in proc.stderr
    assert subjects(git_repo)[0] == "feat(tools): Alpha"
    assert not (git_repo / "beta.py").exists()
    # the same command again, nobody having looked: still blocked, nothing lands
    again = run_cli(*run, cwd=git_repo)
    assert again.returncode == 22, again.stdout + again.stderr
    assert "executor/session-2 moved" in again.stderr
    assert not (git_repo / "beta.py").exists()
    assert subjects(git_repo)[0] == "feat(tools): Alpha"


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_a_lanes_agent_cannot_mark_a_session_completed_in_the_main_state(
    git_repo: Path, tmp_path: Path, sandbox: str
) -> None:
    """Session 1's agent marks session 2 (which waits for it) completed in the main run's
    state, checksum recomputed. Where bubblewrap works the state is read-only to it;
    elsewhere the run puts its own state back, and runs session 2 either way."""
    specs = [simple(1, "alpha"), simple(2, "beta", deps=[1])]
    plan = make_project(git_repo, specs)
    command = agent(make_solutions(tmp_path, specs), script=HOSTILE, at="1:red",
                    attack="forge-state", target=2, state=plan / ".agent-state.json")  # fmt: skip
    proc = run_cli("execute-plan", "--plan", PLAN, "--parallel", "2", "--yes", "--sandbox",
                   sandbox, "--agent-command", command, cwd=git_repo)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert subjects(git_repo)[:2] == ["feat(tools): Beta", "feat(tools): Alpha"]
    assert (git_repo / "beta.py").exists()
    walled = sandbox == "auto" and bubblewrap() is not None
    assert ("changed by another program" in proc.stdout) is not walled, proc.stdout
    kept_aside = list(plan.glob(".agent-state.json.foreign-*"))
    assert bool(kept_aside) is not walled, "the changed state is kept aside"


def test_a_session_counts_completed_only_with_its_commit_on_the_branch(
    git_repo: Path, tmp_path: Path
) -> None:
    """Between two runs the state says session 2 is completed, naming a commit that is
    not session 2's: the next run does not believe it, says so, and runs session 2."""
    specs = [simple(1, "alpha"), simple(2, "beta", deps=[1])]
    plan = make_project(git_repo, specs)
    command = agent(make_solutions(tmp_path, specs))
    first = run_cli("execute-session", "1", "--plan", PLAN, "--parallel", "1", "--yes",
                    "--agent-command", command, cwd=git_repo)  # fmt: skip
    assert first.returncode == 0, first.stdout + first.stderr
    # session 2 completed as HEAD: session 1's commit
    forge_state(2, plan / ".agent-state.json", git(git_repo, "rev-parse", "HEAD").strip())
    assert [e["status"] for e in state(plan)["phases"][0]["sessions"]] == ["completed"] * 2
    proc = run_cli("execute-plan", "--plan", PLAN, "--parallel", "2", "--yes", "--agent-command",
                   command, cwd=git_repo)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[session 2] the state says it is completed" in proc.stdout
    assert subjects(git_repo)[:2] == ["feat(tools): Beta", "feat(tools): Alpha"]
    assert "Agent-Step: session-2" in git(git_repo, "log", "-1", "--format=%B")


def test_a_conflict_without_markers_is_not_taken_as_resolved_by_running_again(
    git_repo: Path, tmp_path: Path
) -> None:
    """A binary file both sessions change, a file one deletes and the other changes: git
    writes no markers. Running the same `--yes` command again does not take the
    untouched worktree as resolved; a person's edit there is."""
    one, two = simple(1, "alpha"), simple(2, "beta")
    one.extra = {"data.bin": "\0one\n", "old.py.__delete__": ""}
    two.extra = {"data.bin": "\0two\n", "old.py": "VALUE = 2\n"}
    make_project(git_repo, [one, two], setup={"data.bin": "\0zero\n", "old.py": "VALUE = 0\n"})
    run = ["execute-plan", "--plan", PLAN, "--parallel", "2", "--yes", "--agent-command",
           agent(make_solutions(tmp_path, [one, two]))]  # fmt: skip
    proc = run_cli(*run, cwd=git_repo)
    assert proc.returncode == 22, proc.stdout + proc.stderr
    assert "its commit conflicts with main" in proc.stderr
    assert "data.bin, old.py" in proc.stderr and "modify/delete" in proc.stderr
    again = run_cli(*run, cwd=git_repo)
    assert again.returncode == 22, again.stdout + again.stderr
    assert "data.bin, old.py did not change in its worktree" in again.stdout
    assert not (git_repo / "beta.py").exists()
    assert (git_repo / "data.bin").read_bytes() == b"\0one\n" and not (git_repo / "old.py").exists()
    # the person resolves both there; the same command integrates that
    worktree = git_repo / ".executor-worktrees" / "session-2"
    (worktree / "data.bin").write_bytes(b"\0one and two\n")
    (worktree / "old.py").unlink()
    done = run_cli(*run, cwd=git_repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (git_repo / "data.bin").read_bytes() == b"\0one and two\n"
    assert (git_repo / "beta.py").exists() and not (git_repo / "old.py").exists()


def test_no_executor_git_command_runs_a_program_a_files_attributes_name(
    git_repo: Path, tmp_path: Path
) -> None:
    """A clean/smudge filter and a merge driver configured for every file (in
    `.git/config` and `.git/info/attributes`, as an agent can write them): worktrees
    made, checked out, fast-forwarded, merged, and none of them runs."""
    one, two = simple(1, "alpha"), simple(2, "beta")
    one.extra = {"shared.py": "A = 1\nB = 0\n"}  # both change it: a merge, its driver asked
    two.extra = {"shared.py": "A = 0\nB = 2\n"}
    make_project(git_repo, [one, two], setup={"shared.py": "A = 0\nB = 0\n"})
    marker = tmp_path / "ran"
    for kind in ("clean", "smudge"):
        git(git_repo, "config", f"filter.evil.{kind}", f"sh -c 'echo {kind} >> {marker}; cat'")
    git(git_repo, "config", "filter.evil.required", "true")
    git(git_repo, "config", "merge.evil.driver", f"sh -c 'echo merge >> {marker}; exit 0'")
    (git_repo / ".git" / "info" / "attributes").write_text("* filter=evil merge=evil\n")
    proc = run_cli("execute-plan", "--plan", PLAN, "--parallel", "2", "--yes", "--agent-command",
                   agent(make_solutions(tmp_path, [one, two])), cwd=git_repo)  # fmt: skip
    assert not marker.exists(), marker.read_text()
    # the merge driver is no judge: both changed shared.py, a person decides
    assert proc.returncode == 22, proc.stdout + proc.stderr
    assert "session 2: its commit conflicts with main" in proc.stderr
    assert subjects(git_repo)[0] == "feat(tools): Alpha"
    assert (git_repo / "alpha.py").read_text() == "def alpha() -> str:\n    return 'alpha'\n"


def test_the_fast_forward_never_overwrites_a_file_git_ignores_in_the_persons_checkout(
    git_repo: Path, tmp_path: Path
) -> None:
    """A session un-ignores `.env` and commits one: the person's own `.env` (ignored) is
    in the way of the fast-forward. Refused as git refuses an untracked file, named."""
    one = simple(1, "alpha")
    one.extra = {".env": "SECRET=example\n", ".gitignore": "__pycache__/\n.pytest_cache/\n"}
    make_project(git_repo, [one])
    (git_repo / ".gitignore").write_text("__pycache__/\n*.pyc\n.pytest_cache/\n.env\n")
    git(git_repo, "commit", "-qam", "ignore .env")
    (git_repo / ".env").write_text("SECRET=mine\n")
    proc = run_cli("execute-plan", "--plan", PLAN, "--parallel", "1", "--yes", "--agent-command",
                   agent(make_solutions(tmp_path, [one])), cwd=git_repo)  # fmt: skip
    assert proc.returncode == 22, proc.stdout + proc.stderr
    assert "would overwrite .env in" in proc.stderr
    assert (git_repo / ".env").read_text() == "SECRET=mine\n"
    assert subjects(git_repo)[0] == "ignore .env"


#: A test that walks up to the first `.git` folder (a worktree's `.git` is a file, so it
#: finds the person's checkout) and writes there, as a generator at the project root does.
WALK_UP = """

def test_writes_the_project_root() -> None:
    from pathlib import Path

    here = Path(__file__).resolve().parent
    while not (here / ".git").is_dir():
        here = here.parent
    for name in ("README.md", "draft.txt"):
        try:
            (here / name).write_text("generated\\n")
        except OSError:
            pass
"""


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_a_sessions_test_runs_and_agent_never_write_the_persons_checkout(
    git_repo: Path, tmp_path: Path, sandbox: str
) -> None:
    """The person has an edit they did not commit and a new file; a session's test
    writes both at the root it finds, and its agent writes one. Where bubblewrap works
    (`auto`) the checkout is read-only to them; elsewhere (`off`) it is put back, what
    was there kept under a backup ref, and the run says so."""
    one = simple(1, "alpha")
    one.test += WALK_UP
    make_project(git_repo, [one])
    (git_repo / "README.md").write_text("# mine\n")
    (git_repo / "draft.txt").write_text("mine\n")
    command = agent(make_solutions(tmp_path, [one]), script=HOSTILE, at="1:green",
                    attack="write", files={str(git_repo / "draft.txt"): "agent\n"})  # fmt: skip
    proc = run_cli("execute-plan", "--plan", PLAN, "--parallel", "1", "--yes", "--sandbox",
                   sandbox, "--agent-command", command, cwd=git_repo)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert subjects(git_repo)[0] == "feat(tools): Alpha"
    assert (git_repo / "README.md").read_text() == "# mine\n"
    assert (git_repo / "draft.txt").read_text() == "mine\n"
    walled = sandbox == "auto" and bubblewrap() is not None
    assert ("changed while sessions worked" in proc.stdout) is not walled, proc.stdout
    if not walled:
        backup = git(git_repo, "for-each-ref", "--format=%(refname)", "refs/executor/backup/")
        assert "checkout-during-sessions" in backup


def test_43_09_a_lane_cannot_give_every_lane_a_plugin_through_the_checkouts_venv(
    git_repo: Path, tmp_path: Path
) -> None:
    """Session 1's agent finds the person's checkout and puts a pytest plugin (an
    `.egg-info` entry point) into its ignored `.venv`, which every lane and the
    integration suite run with: session 2's broken `beta` passed with it and landed on
    the person's branch (the checkout watch recorded only what git does not ignore, and
    the integration suite checked no environment). The run's environment is pinned once
    for all lanes; the lane that changed it fails, and nothing more is integrated."""
    from tests.engine.test_pinned import egg_plugin, project_venv, shell_env, site_packages

    specs = [simple(1, "alpha"), simple(2, "beta")]
    specs[1].code = "def beta() -> str:\n    return 'wrong'\n"
    make_project(git_repo, specs)
    venv = project_venv(git_repo)
    plant = tmp_path / "plant.py"
    plant.write_text("import pathlib\n" + egg_plugin(site_packages(venv)), "utf-8")
    solutions = make_solutions(tmp_path, specs)
    command = (
        f'sh -c \'if [ "$EXECUTOR_SESSION:$EXECUTOR_TDD_STEP" = 1:red ]; then '
        f"{sys.executable} {plant}; fi; {agent(solutions)}'"
    )
    proc = run_process(
        ["execute-plan", "--plan", PLAN, "--parallel", "2", "--yes", "--agent-command", command],
        cwd=git_repo, env=shell_env(),
    )  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 16, out
    assert "helper-1.0.egg-info/entry_points.txt (added)" in out, out
    assert not (git_repo / "beta.py").exists()
    assert "feat(tools): Beta" not in subjects(git_repo)


def run_process(
    args: list[str], *, cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """The real CLI in exactly `env`."""
    return forkserver.run_process([sys.executable, "-m", "executor", *args], cwd=cwd, env=env,
                                  capture_output=True, text=True, timeout=600)  # fmt: skip
