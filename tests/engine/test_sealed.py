"""The third hostile audit (issue 19), item by item, through the real CLI.

Each test is named after the item it reproduces (`test_19_NN_...`) and failed on the
engine before sealed verification. The agents are the replay agent followed by a small
hostile script (`hostile`), which runs after the replay's files are in place, at the
steps it names: what a hostile or careless agent could write.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from tests.conftest import git, run_cli, terminate_when
from tests.engine.helpers import commits, make_project, replay_cmd, respond, session_state

pytestmark = pytest.mark.slow

GOOD = "ledger/models.py"
#: What is found after a test run, without the sandbox that prevents it where bubblewrap
#: works (`tests/engine/test_sandbox.py`).
UNSANDBOXED = ("--sandbox", "off")


def hostile(tmp: Path, steps: str, code: str, *, once: bool = False) -> str:
    """An agent command: the replay agent, then `code` (Python, cwd: the repository) at
    the steps named in `steps` ("green", "red green", ...); `once`: the first time only."""
    script = tmp / f"hostile-{abs(hash((steps, code)))}.py"
    marker = tmp / f"{script.stem}.done"
    guard = f"if pathlib.Path({str(marker)!r}).exists(): sys.exit(0)\n" if once else ""
    script.write_text(
        "import os, pathlib, subprocess, sys\n"
        f"if os.environ.get('EXECUTOR_TDD_STEP') not in {steps.split()!r}: sys.exit(0)\n"
        + guard
        + f"pathlib.Path({str(marker)!r}).touch()\n"
        + code,
        encoding="utf-8",
    )
    return f"sh -c {shlex.quote(replay_cmd() + ' && ' + shlex.join([sys.executable, str(script)]))}"


def appended(path: str, payload: str) -> str:
    """Hostile code that appends `payload` (Python source) to the module at `path`: what
    runs when the tests import it."""
    return f"p = pathlib.Path({path!r})\np.write_text(p.read_text() + {payload!r})\n"


def run(plan: Path, repo: Path, agent: str, *extra: str, number: int = 1) -> str:
    """execute-session N unattended (--yes, no retries); its stderr and exit code."""
    proc = run_cli("execute-session", str(number), "--plan", str(plan), "--yes",
                   "--max-retries", "0", "--agent-command", agent, *extra, cwd=repo,
                   timeout=300)  # fmt: skip
    return f"{proc.returncode}\n{proc.stdout}{proc.stderr}"


# -- 1: phantom completion: the commit is not what was tested ----------------------------


def test_19_01_a_module_that_rewrites_itself_when_imported_is_not_committed(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    rewrite = appended(
        GOOD, "\nimport pathlib\npathlib.Path(__file__).write_text('BROKEN = (\\n')\n"
    )
    out = run(plan, git_repo, hostile(tmp_path, "green", rewrite))
    assert out.startswith("16\n"), out
    assert "tampering during a test run: the test run changed files" in out
    assert GOOD in out.split("tampering during a test run")[1]
    assert commits(git_repo) == ["add plan", "initial"]  # nothing committed
    assert (git_repo / GOOD).read_text("utf-8") != "BROKEN = (\n"  # put back as tested


def test_19_01_a_test_run_that_commits_is_undone(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    committing = (
        "p = pathlib.Path('ledger/models.py')\n"
        "p.write_text(p.read_text() + '\\nimport subprocess as _s\\n'\n"
        '  \'_s.run(["git", "commit", "-qam", "sneaky", "--allow-empty"])\\n\')\n'
    )
    out = run(plan, git_repo, hostile(tmp_path, "green", committing), *UNSANDBOXED)
    assert out.startswith("16\n"), out
    assert "the test run made a commit" in out
    assert "sneaky" not in commits(git_repo)


# -- 2: index flags -------------------------------------------------------------------------


def test_19_02_a_skip_worktree_entry_cannot_put_an_untested_file_in_the_commit(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    flags = (
        "good = pathlib.Path('ledger/models.py').read_text()\n"
        "pathlib.Path('ledger/models.py').write_text('BROKEN = (\\n')\n"
        "subprocess.run(['git', 'add', 'ledger/models.py'], check=True)\n"
        "subprocess.run(['git', 'update-index', '--skip-worktree', 'ledger/models.py'])\n"
        "pathlib.Path('ledger/models.py').write_text(good)\n"
    )
    out = run(plan, git_repo, hostile(tmp_path, "green", flags, once=True))
    assert out.startswith("0\n"), out
    committed = git(git_repo, "show", f"HEAD:{GOOD}")
    assert committed == (git_repo / GOOD).read_text("utf-8") and "BROKEN" not in committed
    assert git(git_repo, "status", "--porcelain") == ""
    assert "S " not in git(git_repo, "ls-files", "-v", GOOD)  # the agent's flag is gone


# -- 3: a nested repository -------------------------------------------------------------------


def test_19_03_a_nested_git_repository_fails_the_step(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    nested = (
        "subprocess.run(['git', 'init', '-q', 'vendor/lib'], check=True)\n"
        "pathlib.Path('vendor/lib/util.py').write_text('X = 1\\n')\n"
    )
    out = run(plan, git_repo, hostile(tmp_path, "green", nested))
    assert out.startswith("16\n"), out
    assert "vendor/lib/: a git repository inside the repository" in out
    assert commits(git_repo) == ["add plan", "initial"]


# -- 4: the plan and the plan cache -------------------------------------------------------------


def test_19_04_code_under_test_cannot_rewrite_the_plan(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    phase = "project-plans/ledger/PHASE_1_LEDGER_CORE.md"
    before = (git_repo / phase).read_text("utf-8")
    inject = appended(
        GOOD,
        f"\nimport pathlib\nq = pathlib.Path({phase!r})\n"
        "q.write_text(q.read_text().replace('pytest tests/test_models.py', 'true'))\n",
    )
    out = run(plan, git_repo, hostile(tmp_path, "green", inject), *UNSANDBOXED)
    assert out.startswith("16\n"), out
    assert f"changed files in the repository: {phase}" in out, out
    assert (git_repo / phase).read_text("utf-8") == before


def test_19_04_code_under_test_cannot_forge_the_plan_cache(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    cache = plan / ".agent-plan-cache.json"
    forge = appended(
        GOOD,
        f"\nimport pathlib\nc = pathlib.Path({str(cache)!r})\n"
        "c.write_text(c.read_text().replace('Balances', 'Forged'))\n",
    )
    out = run(plan, git_repo, hostile(tmp_path, "green", forge), *UNSANDBOXED)
    assert out.startswith("16\n"), out
    assert "the test run changed the executor's own files: .agent-plan-cache.json" in out
    assert not cache.exists() or "Forged" not in cache.read_text("utf-8")


# -- 5: test infrastructure the checks did not see ----------------------------------------------


@pytest.mark.parametrize(
    "toml",
    [
        "[ tool.pytest.ini_options ]\naddopts = '-k nothing_at_all'\n",
        '  [tool."pytest".ini_options]\naddopts = "-k nothing_at_all"\n',
        "[tool]\npytest.ini_options.addopts = '-k nothing_at_all'\n",
    ],
)
def test_19_05_pytest_settings_spelled_another_way_are_test_infrastructure(
    git_repo: Path, tmp_path: Path, toml: str
) -> None:
    plan = make_project(git_repo)
    quiet = f"pathlib.Path('pyproject.toml').write_text({toml!r})\n"
    out = run(plan, git_repo, hostile(tmp_path, "green", quiet))
    assert out.startswith("16\n"), out
    assert "test infrastructure changed during GREEN" in out and "pyproject.toml" in out, out


def test_19_05_a_project_file_that_also_holds_pytest_settings_may_change_elsewhere(
    git_repo: Path, tmp_path: Path
) -> None:
    """Precision beside 19_05 (mistune `acee737a2f`, replayed: a false block): the
    project's pyproject.toml holds pytest's settings from the start; GREEN adds a
    `[tool.rye]` table. Its pytest settings, read by meaning, did not change."""
    settings = "[tool.pytest.ini_options]\naddopts = '-q'\n"
    (git_repo / "pyproject.toml").write_text(settings, encoding="utf-8")
    git(git_repo, "add", "pyproject.toml")
    git(git_repo, "commit", "-q", "-m", "pytest settings")
    plan = make_project(git_repo)
    rye = appended("pyproject.toml", "[tool.rye]\nmanaged = true\n")
    out = run(plan, git_repo, hostile(tmp_path, "green", rye))
    assert out.startswith("0\n"), out
    assert "[tool.rye]" in git(git_repo, "show", "HEAD:pyproject.toml")


FORGE_REPORT = """
class Account:  # breaks every test that makes an account
    pass

import atexit, os, re, sys

def _forge():
    for arg in sys.argv:
        if arg.startswith("--junitxml="):
            path = arg.split("=", 1)[1]
            text = open(path).read()
            text = re.sub(r"<(failure|error)\\b.*?</\\1>", "", text, flags=re.S)
            open(path, "w").write(text)
    os._exit(0)

atexit.register(_forge)
"""


def test_19_05_a_report_code_under_test_forges_is_not_believed(
    git_repo: Path, tmp_path: Path
) -> None:
    """Code under test rewrites the runner's report at exit so every test passed, and
    exits 0: pytest's own summary line still counts the failures."""
    plan = make_project(git_repo)
    out = run(plan, git_repo, hostile(tmp_path, "green", appended(GOOD, FORGE_REPORT)))
    assert out.startswith("16\n"), out
    assert "the runner's report is not believed: pytest's summary line counts" in out
    assert commits(git_repo) == ["add plan", "initial"]


# -- 6: tests gutted, not deleted ----------------------------------------------------------------


EMPTY_BODIES = (
    "import re\n"
    "p = pathlib.Path('tests/test_models.py')\n"
    "p.write_text(re.sub(r'(def test_\\w+\\(.*?\\):)', r'\\1\\n    return', p.read_text()))\n"
)
NOT_A_TEST = (
    "p = pathlib.Path('tests/test_models.py')\n"
    "p.write_text(p.read_text() + '\\n__test__ = False\\n')\n"
)
SKIPPED = (
    "p = pathlib.Path('tests/test_models.py')\n"
    "p.write_text('import pytest\\npytest.skip(\"later\", allow_module_level=True)\\n'"
    " + p.read_text())\n"
)


@pytest.mark.parametrize("gut", [EMPTY_BODIES, NOT_A_TEST, SKIPPED])
def test_19_06_refactor_may_not_gut_the_red_tests(git_repo: Path, tmp_path: Path, gut: str) -> None:
    plan = make_project(git_repo)
    out = run(plan, git_repo, hostile(tmp_path, "refactor", gut))
    assert out.startswith("16\n"), out
    assert "tests in tests/test_models.py weakened during REFACTOR" in out, out
    assert commits(git_repo) == ["add plan", "initial"]


def test_19_06_a_later_session_may_not_empty_an_earlier_sessions_test(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    assert run(plan, git_repo, replay_cmd()).startswith("0\n")
    out = run(plan, git_repo, hostile(tmp_path, "green", EMPTY_BODIES), number=2)
    assert out.startswith("16\n"), out
    assert "tests in tests/test_models.py weakened during GREEN" in out, out


def test_19_06_a_person_accepts_changed_tests_at_the_question(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    tidy = (
        "p = pathlib.Path('tests/test_models.py')\n"
        "p.write_text(p.read_text().replace('def test_', 'def test_renamed_', 1))\n"
    )
    agent = hostile(tmp_path, "refactor", tidy)
    args = ["execute-session", "1", "--plan", str(plan), "--checkpoints", "none",
            "--max-retries", "0", "--agent-command", agent]  # fmt: skip
    proc = run_cli(*args, cwd=git_repo, timeout=300)
    while proc.returncode == 42:
        request = json.loads((plan / ".agent-request.json").read_text("utf-8"))
        values = [o["value"] for o in request["context"]["options"]]
        assert "accept_tests" in values
        respond(plan, git_repo, "accept_tests")
        proc = run_cli(*args, "--resume", cwd=git_repo, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "def test_renamed_" in git(git_repo, "show", "HEAD:tests/test_models.py")


# -- 7: no program the repository configures runs in our git writes ------------------------------


def test_19_07_signing_and_textconv_programs_never_run(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    marker = tmp_path / "ran"
    program = tmp_path / "evil.sh"
    program.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n", encoding="utf-8")
    program.chmod(0o755)
    configure = (
        f"subprocess.run(['git', 'config', 'gpg.program', {str(program)!r}], check=True)\n"
        "subprocess.run(['git', 'config', 'commit.gpgsign', 'true'], check=True)\n"
        f"subprocess.run(['git', 'config', 'diff.evil.textconv', {str(program)!r}], check=True)\n"
        "pathlib.Path('.git/info/attributes').write_text('* diff=evil\\n')\n"
    )
    config = (git_repo / ".git" / "config").read_bytes()
    out = run(plan, git_repo, hostile(tmp_path, "red", configure, once=True))
    assert not marker.exists()
    # git's own files are the run's pin: what the agent wrote there is put back (issue 43)
    assert out.startswith("16\n"), out
    assert ".git/config (changed), .git/info/attributes (added); they were put back" in out
    assert (git_repo / ".git" / "config").read_bytes() == config
    assert not (git_repo / ".git" / "info" / "attributes").exists()


# -- 9, 10: a person's files --------------------------------------------------------------------


def test_19_09_abort_keeps_a_persons_change_to_an_assume_unchanged_file(git_repo: Path) -> None:
    plan = make_project(git_repo)
    args = ["execute-session", "1", "--plan", str(plan), "--agent-command", replay_cmd()]
    git(git_repo, "update-index", "--assume-unchanged", "README.md")
    (git_repo / "README.md").write_text("my change\n", encoding="utf-8")
    assert run_cli(*args, cwd=git_repo).returncode == 42  # before_start
    respond(plan, git_repo, "approve")
    assert run_cli(*args, "--resume", cwd=git_repo).returncode == 42  # after_red
    respond(plan, git_repo, "abort")
    proc = run_cli(*args, "--resume", cwd=git_repo)
    assert proc.returncode == 1, proc.stderr
    assert (git_repo / "README.md").read_text("utf-8") == "my change\n"
    assert not (git_repo / "tests" / "test_models.py").exists()  # the session's work went


def test_19_10_a_kept_out_file_is_protected_from_the_next_agent_step(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    clobber = "pathlib.Path('notes.txt').write_text('overwritten by the agent\\n')\n"
    agent = hostile(tmp_path, "green", clobber, once=True)
    args = ["execute-session", "1", "--plan", str(plan), "--agent-command", agent]
    assert run_cli(*args, cwd=git_repo).returncode == 42  # before_start
    respond(plan, git_repo, "approve")
    assert run_cli(*args, "--resume", cwd=git_repo).returncode == 42  # after_red
    (git_repo / "notes.txt").write_text("my notes\n", encoding="utf-8")
    respond(plan, git_repo, "approve")
    assert run_cli(*args, "--resume", cwd=git_repo).returncode == 42  # edits: keep them out?
    respond(plan, git_repo, "keep_out")
    assert run_cli(*args, "--resume", cwd=git_repo).returncode == 42  # after_red again
    respond(plan, git_repo, "approve")
    proc = run_cli(*args, "--resume", cwd=git_repo, timeout=300)
    assert proc.returncode == 42, proc.stderr  # GREEN failed as tampering: a person decides
    request = json.loads((plan / ".agent-request.json").read_text("utf-8"))
    assert "files the person kept out of the session (notes.txt)" in request["context"]["question"]
    assert (git_repo / "notes.txt").read_text("utf-8") == "my notes\n"
    assert session_state(plan, 1)["step"] == "green_escalated"


# -- 11: two plans in one worktree ---------------------------------------------------------------


def test_19_11_a_second_plan_run_in_the_same_worktree_is_refused(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    other = git_repo / "project-plans" / "other"
    other.mkdir()
    for md in plan.glob("*.md"):
        (other / md.name).write_text(md.read_text("utf-8"), encoding="utf-8")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "another plan")
    started = tmp_path / "agent-started"
    waiting = f"{sys.executable} -c " + shlex.quote(
        f"import pathlib, time; pathlib.Path({str(started)!r}).touch(); time.sleep(30)"
    )
    second: list[str] = []

    def meanwhile() -> None:
        proc = run_cli("execute-session", "1", "--plan", str(other), "--yes", cwd=git_repo)
        second.append(f"{proc.returncode}\n{proc.stderr}")

    import threading

    def after_the_first_started() -> None:
        _wait(started)
        meanwhile()

    helper = threading.Thread(target=after_the_first_started)
    helper.start()
    terminate_when(started, "execute-session", "1", "--plan", str(plan), "--yes",
                   "--agent-command", waiting, cwd=git_repo, wait=5)  # fmt: skip
    helper.join()
    assert second[0].startswith("12\n"), second
    assert f"running {plan}" in second[0] and "holds this worktree" in second[0]
    assert not (other / ".agent-state.json").exists()


def _wait(path: Path) -> None:
    import time

    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def test_hostile_scripts_only_act_at_their_step(tmp_path: Path) -> None:
    """The harness itself: the script does nothing at other steps."""
    command = hostile(tmp_path, "green", "pathlib.Path('x').write_text('1')\n")
    script = shlex.split(shlex.split(command)[2])[-1]
    env = {**os.environ, "EXECUTOR_TDD_STEP": "red"}
    import subprocess

    subprocess.run([sys.executable, script], cwd=tmp_path, env=env, check=True)
    assert not (tmp_path / "x").exists()
