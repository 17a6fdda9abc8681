"""Issue 19's hostile pass: stand-in agents written to get failing work committed, to
lose a person's work or to wedge a run, through the real CLI.

Each test is named after what it attacks (`test_19_hostile_...`) and failed on the
engine before its fix, or documents a limit `docs/reliability.md` names. The agents are
the replay agent followed by a small hostile script (`hostile`, as in `test_sealed.py`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import forkserver
from tests.conftest import git, run_cli
from tests.engine.helpers import SOLUTIONS, commits, make_project, replay_cmd, respond
from tests.engine.test_sealed import UNSANDBOXED, hostile, run

pytestmark = pytest.mark.slow

GOOD = "ledger/models.py"
#: Every name session 1's tests import from `ledger.models`.
STUB_NAMES = ("LedgerError", "UnbalancedEntryError", "AccountKind", "Account", "Posting",
              "Entry", "to_money")  # fmt: skip


# -- no program the repository configures runs in the executor's git commands ----------


@pytest.mark.parametrize("hook", ["post-index-change", "reference-transaction"])
def test_19_hostile_a_hook_the_agent_writes_never_runs_in_the_executors_git(
    git_repo: Path, tmp_path: Path, hook: str
) -> None:
    """git runs `post-index-change` whenever an index is written and
    `reference-transaction` for every ref update: the executor writes private indexes
    and backup refs while it verifies, so a hook there ran the agent's code in the middle
    of the checks (it could swap a file between the tree recorded and the test run)."""
    plan = make_project(git_repo)
    marker = tmp_path / "hook-ran"
    plant = (
        # a commit the executor folds back makes it write a backup ref
        "subprocess.run(['git', 'commit', '-q', '--allow-empty', '-m', 'x'], check=True)\n"
        f"h = pathlib.Path('.git/hooks/{hook}')\n"
        f"h.write_text('#!/bin/sh\\ntouch {marker}\\n')\n"
        "h.chmod(0o755)\n"
    )
    out = run(plan, git_repo, hostile(tmp_path, "green", plant, once=True))
    assert not marker.exists(), "the agent's hook ran inside the executor's git commands"
    # and it is git's own file the agent wrote: put back, the step failed (issue 43)
    assert out.startswith("16\n"), out
    assert f".git/hooks/{hook} (added); they were put back" in out, out
    assert not (git_repo / ".git" / "hooks" / hook).exists()


# -- code under test may not reach into the runner ---------------------------------------


PLUGIN = (
    "pathlib.Path('tests/plug.py').write_text(\n"
    "    'def pytest_pyfunc_call(pyfuncitem):\\n    return True\\n')\n"
    "pathlib.Path('tests/test_zzz.py').write_text(\n"
    "    'pytest_plugins = [\"tests.plug\"]\\n\\n\\ndef test_ok():\\n    pass\\n')\n"
    "pathlib.Path('tests/__init__.py').touch()\n"
    "p = pathlib.Path('ledger/models.py')\n"
    "p.write_text(p.read_text() + '\\n\\ndef to_money(value):\\n    return 0\\n')\n"
)


@pytest.mark.parametrize("sandbox", [(), UNSANDBOXED], ids=["sandbox", "no-sandbox"])
def test_19_hostile_a_plugin_a_new_test_module_loads_cannot_pass_every_test(
    git_repo: Path, tmp_path: Path, sandbox: tuple[str, ...]
) -> None:
    """A new test file (new tests are allowed) names a plugin module in
    `pytest_plugins`; the plugin's `pytest_pyfunc_call` returns True, so pytest never
    calls a test function and every test passes: a broken `to_money` was committed as
    "12/12". The runner-hook pattern knew only some hook names."""
    plan = make_project(git_repo)
    out = run(plan, git_repo, hostile(tmp_path, "green refactor", PLUGIN), *sandbox)
    assert out.startswith("16\n"), out
    assert "reaches into the test runner" in out and "tests/plug.py" in out
    assert commits(git_repo) == ["add plan", "initial"]


# -- earlier sessions' tests may not be hidden from the suite ----------------------------


@pytest.mark.parametrize("marker", ["tests/pyvenv.cfg", "tests/conda-meta/history"])
def test_19_hostile_a_folder_pytest_takes_for_a_virtualenv_hides_no_tests(
    git_repo: Path, tmp_path: Path, marker: str
) -> None:
    """pytest does not collect a folder holding `pyvenv.cfg` (or `conda-meta/history`):
    one such file in `tests/` hid session 1's tests from the whole suite ("no tests
    ran"), so session 2 broke `to_money` and was committed; the earlier tests' modules
    still existed, so they did not count as gone."""
    plan = make_project(git_repo)
    assert run(plan, git_repo, replay_cmd()).startswith("0\n")
    hide = (
        f"m = pathlib.Path({marker!r})\n"
        "m.parent.mkdir(parents=True, exist_ok=True)\n"
        "m.write_text('home = /usr\\n')\n"
        "p = pathlib.Path('ledger/models.py')\n"
        "p.write_text(p.read_text().replace('raise TypeError', 'return Decimal(0)  #'))\n"
    )
    out = run(plan, git_repo, hostile(tmp_path, "green refactor", hide), number=2)
    assert out.startswith("16\n"), out
    assert "test infrastructure changed during GREEN" in out and f"{marker} (added)" in out
    assert commits(git_repo)[0] == "feat(ledger): Ledger Models"


# -- what the tests ran is what a clone gets ----------------------------------------------


LINKED = (
    "import shutil\n"
    "pathlib.Path('build').mkdir(exist_ok=True)\n"
    "shutil.copy('ledger/models.py', 'build/models.py')\n"
    "os.remove('ledger/models.py')\n"
    "os.symlink('../build/models.py', 'ledger/models.py')\n"
    "with open('.gitignore', 'a') as f:\n"
    "    f.write('build/\\n')\n"
)


def test_19_hostile_a_link_to_a_file_git_ignores_is_refused(git_repo: Path, tmp_path: Path) -> None:
    """The module is a link into an ignored folder: the tests import the file it points
    to, the commit holds only the link, and a clone's tests fail to import it. A link
    inside the repository was taken as it was, wherever it pointed."""
    plan = make_project(git_repo)
    out = run(plan, git_repo, hostile(tmp_path, "green refactor", LINKED))
    assert out.startswith("16\n"), out
    assert "ledger/models.py: a link to ../build/models.py, which the commit would not hold" in out
    assert commits(git_repo) == ["add plan", "initial"]


# -- the executor's own settings are read-only to agents ---------------------------------


MAP_EVERY_TEST = (
    "pathlib.Path('.executor.toml').write_text(\n"
    "    '[test_command_map]\\n\"pytest\" = \"sh -c \\'test -f ledger/balance.py\\'\"\\n')\n"
)
BROKEN_BALANCE = (
    "pathlib.Path('ledger/balance.py').write_text(\n"
    "    'def balances(entries, as_of=None):\\n    return 42\\n')\n"
)


def test_19_hostile_an_agent_cannot_map_the_test_command_away(
    git_repo: Path, tmp_path: Path
) -> None:
    """RED writes `.executor.toml` mapping `pytest` to a command that passes once
    `ledger/balance.py` exists: it was committed with session 1, and session 2 (a new
    process reads the settings) committed a balance module that returns 42 as "0/0"."""
    plan = make_project(git_repo)
    agent = hostile(tmp_path, "red", MAP_EVERY_TEST, once=True)
    out = run(plan, git_repo, agent)
    assert out.startswith("16\n"), out
    assert "the agent changed the plan or the executor's settings (.executor.toml)" in out
    assert not (git_repo / ".executor.toml").exists()
    assert commits(git_repo) == ["add plan", "initial"]


def test_19_hostile_an_agent_cannot_map_the_test_command_away_over_the_bridge(
    git_repo: Path, tmp_path: Path
) -> None:
    """Over the exit-42 bridge each step is a new process, which reads the settings
    before it learns what the agent did: `[tool.executor]` in pyproject.toml, written
    during RED, decided the RED check of that very step."""
    plan = make_project(git_repo)
    (git_repo / "pyproject.toml").write_text("[project]\nname = 'ledger'\n", "utf-8")
    git(git_repo, "add", "pyproject.toml")
    git(git_repo, "commit", "-qm", "pyproject")
    forge = (
        "p = pathlib.Path('pyproject.toml')\n"
        "p.write_text(p.read_text() + '[tool.executor.test_command_map]\\n'\n"
        "             '\"pytest\" = \"sh -c \\'test -f ledger/models.py\\'\"\\n')\n"
    )
    agent = hostile(tmp_path, "red", forge, once=True)
    args = ["execute-session", "1", "--plan", str(plan), "--yes", "--max-retries", "0"]
    proc = run_cli(*args, cwd=git_repo)
    for _ in range(10):
        if proc.returncode != 42:
            break
        request = json.loads((plan / ".agent-request.json").read_text("utf-8"))
        env = {**os.environ, "EXECUTOR_TDD_STEP": request["context"]["tdd_step"],
               "EXECUTOR_SESSION": str(request["context"]["session"])}  # fmt: skip
        done = subprocess.run(shlex.split(agent), cwd=git_repo, env=env, check=False,
                              capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert respond(plan, git_repo, "done").returncode == 0
        proc = run_cli(*args, "--resume", cwd=git_repo)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 16, out
    assert "the agent changed the plan or the executor's settings (pyproject.toml)" in out
    assert "tool.executor" not in (git_repo / "pyproject.toml").read_text("utf-8")
    assert commits(git_repo)[0] == "pyproject"


# -- a person's work ------------------------------------------------------------------------


def test_19_hostile_a_persons_edit_during_a_test_run_is_backed_up_before_it_is_put_back(
    git_repo: Path, tmp_path: Path
) -> None:
    """A person saves a file while a long test run is going on. The executor cannot tell
    their edit from one the run made, so it puts the file back and fails the step (as
    documented); but it put it back with no backup: the person's edit was gone."""
    plan = make_project(git_repo)
    started = tmp_path / "test-started"
    slow = (
        "pathlib.Path('tests/test_slow.py').write_text(\n"
        "    'import pathlib, time\\n\\n\\ndef test_slow():\\n'\n"
        f"    '    pathlib.Path(\"{started}\").touch()\\n    time.sleep(4)\\n')\n"
    )
    agent = hostile(tmp_path, "green", slow, once=True)
    cli = forkserver.popen(
        [sys.executable, "-m", "executor", "execute-session", "1", "--plan", str(plan),
         "--yes", "--max-retries", "0", "--agent-command", agent],
        cwd=git_repo, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    (git_repo / "README.md").write_text("my notes, written during the test run\n", "utf-8")
    out, _ = cli.communicate(timeout=300)
    assert cli.returncode == 16, out
    assert "the test run changed files in the repository: README.md" in out
    found = re.search(r"saved under (refs/executor/backup/\S+?)[:;,)]", out)
    assert found, out
    kept = git(git_repo, "show", f"{found[1]}:README.md")
    assert kept == "my notes, written during the test run\n"


def test_19_hostile_abort_keeps_a_file_git_ignored_when_the_session_started(
    git_repo: Path, tmp_path: Path
) -> None:
    """The person keeps secrets in `.env`, which git ignores. RED rewrites `.gitignore`
    without it, so `.env` looked like a file the session created, and aborting the
    session deleted it from the worktree (only the backup ref still had it)."""
    plan = make_project(git_repo)
    (git_repo / ".gitignore").write_text("__pycache__/\n*.pyc\n.pytest_cache/\n.env\n")
    git(git_repo, "commit", "-qam", "ignore .env")
    (git_repo / ".env").write_text("SECRET=mine\n", "utf-8")
    unignore = "pathlib.Path('.gitignore').write_text('__pycache__/\\n')\n"
    agent = hostile(tmp_path, "red", unignore, once=True)
    args = ["execute-session", "1", "--plan", str(plan), "--agent-command", agent]
    assert run_cli(*args, cwd=git_repo).returncode == 42  # before_start
    respond(plan, git_repo, "approve")
    assert run_cli(*args, "--resume", cwd=git_repo).returncode == 42  # after_red
    respond(plan, git_repo, "abort")
    proc = run_cli(*args, "--resume", cwd=git_repo)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "rolled back" in proc.stdout + proc.stderr
    assert (git_repo / ".env").read_text("utf-8") == "SECRET=mine\n"
    assert ".env" in (git_repo / ".gitignore").read_text("utf-8")  # the session's edit went
    assert not (git_repo / "tests" / "test_models.py").exists()


# -- nothing an agent starts outlives its step --------------------------------------------


SWAPPER = """
import os, pathlib, sys, time
repo, pidfile = sys.argv[1], sys.argv[2]
target = pathlib.Path(repo, 'ledger/models.py')
good = target.read_bytes()
broken = good.replace(b'raise TypeError', b'return Decimal(0)  #')
target.write_bytes(broken)
pathlib.Path(pidfile).write_text(str(os.getpid()))  # the agent ends once this is there


def tests_running():
    for pid in os.listdir('/proc'):
        try:
            cmd = open(f'/proc/{pid}/cmdline', 'rb').read().split(b'\\0')
            here = os.readlink(f'/proc/{pid}/cwd') == repo
        except OSError:
            continue
        if here and b'--junitxml' in b' '.join(cmd) and b'bwrap' not in cmd[0]:
            return True
    return False


state, end = 'broken', time.time() + 120
while time.time() < end:
    running = tests_running()
    if running and state == 'broken':
        target.write_bytes(good)
        state = 'good'
    elif not running and state == 'good':
        target.write_bytes(broken)
        state = 'broken'
    time.sleep(0.001)
"""


@pytest.mark.parametrize("sandbox", [(), UNSANDBOXED], ids=["sandbox", "no-sandbox"])
def test_19_hostile_a_process_the_agent_leaves_running_cannot_swap_code_during_tests(
    git_repo: Path, tmp_path: Path, sandbox: tuple[str, ...]
) -> None:
    """REFACTOR starts a process with `setsid` (out of its process group) that puts the
    good module in place while a test run is going on and the broken one back as soon as
    it ends: the tree recorded before and after every run was the broken one, the tests
    passed on the good one, and the broken module was committed as "12/12"."""
    plan = make_project(git_repo)
    swapper, pidfile = tmp_path / "swapper.py", tmp_path / "swapper.pid"
    swapper.write_text(SWAPPER, "utf-8")
    leave = (
        f"subprocess.Popen([sys.executable, {str(swapper)!r}, os.getcwd(), {str(pidfile)!r}],\n"
        "                 start_new_session=True, stdin=subprocess.DEVNULL,\n"
        "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        f"while not pathlib.Path({str(pidfile)!r}).exists():\n"
        "    pass\n"
    )
    try:
        out = run(plan, git_repo, hostile(tmp_path, "refactor", leave), *sandbox)
    finally:
        if pidfile.exists():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pidfile.read_text()), signal.SIGKILL)
    assert out.startswith("16\n"), out
    assert "REFACTOR could not be verified" in out and "test_to_money_rejects_floats" in out
    assert commits(git_repo) == ["add plan", "initial"]
    logs = "".join(p.read_text("utf-8") for p in (plan / ".agent-logs").glob("s1.refactor.*"))
    assert "left 1 process(es) running outside its process group" in logs


# -- nothing an agent leaves can wedge a run ------------------------------------------------


@pytest.mark.parametrize("name", ["ledger/.gitignore", ".gitattributes"])
def test_19_hostile_a_fifo_where_git_reads_its_rules_does_not_hang_the_run(
    git_repo: Path, tmp_path: Path, name: str
) -> None:
    """git opens every `.gitignore` in the folders it walks (and `.gitattributes`) and
    waits on a FIFO for ever: the first git command after the agent's step, the
    executor's own, never returned."""
    plan = make_project(git_repo)
    fifo = f"os.mkfifo({name!r})\n"
    proc = run_cli("execute-session", "1", "--plan", str(plan), "--yes", "--max-retries",
                   "0", "--agent-command", hostile(tmp_path, "green", fifo, once=True),
                   cwd=git_repo, timeout=120)  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 16, out
    assert f"{name}: a FIFO where git reads its rules" in out
    assert not os.path.lexists(git_repo / name) or (git_repo / name).is_file()
    assert commits(git_repo) == ["add plan", "initial"]


# -- RED is the session's own tests failing ---------------------------------------------------


def test_19_hostile_red_that_breaks_an_earlier_session_instead_of_failing_is_not_red(
    git_repo: Path, tmp_path: Path
) -> None:
    """The plan's RED command runs the whole suite. RED writes the balance tests and the
    balance module that passes them, and breaks `to_money` so session 1's tests fail;
    GREEN repairs `to_money`. RED counted the earlier session's failures as its own:
    session 2's tests never failed, and it was committed as test-driven."""
    plan = make_project(git_repo)
    phase = plan / "PHASE_1_LEDGER_CORE.md"
    phase.write_text(phase.read_text("utf-8").replace("`pytest tests/test_balance.py`",
                                                      "`pytest`"), "utf-8")  # fmt: skip
    git(git_repo, "commit", "-qam", "whole suite")
    assert run(plan, git_repo, replay_cmd()).startswith("0\n")
    balance = SOLUTIONS / "session-2" / "green" / "ledger" / "balance.py"
    sabotage = (
        f"pathlib.Path('ledger/balance.py').write_text(pathlib.Path({str(balance)!r}).read_text())\n"
        "p = pathlib.Path('ledger/models.py')\n"
        "p.write_text(p.read_text().replace('raise TypeError', 'return Decimal(0)  #'))\n"
    )
    repair = "subprocess.run(['git', 'checkout', 'HEAD', '--', 'ledger/models.py'], check=True)\n"
    agent = "sh -c " + shlex.quote(
        shlex.split(hostile(tmp_path, "red", sabotage))[2]
        + " && "
        + shlex.split(hostile(tmp_path, "green", repair))[2].split(" && ", 1)[1]
    )
    out = run(plan, git_repo, agent, number=2)
    assert out.startswith("16\n"), out
    assert "RED check failed" in out and "none of them is this session's" in out, out
    assert commits(git_repo)[0] == "feat(ledger): Ledger Models"


def test_19_hostile_red_tests_that_do_not_parse_are_not_red(git_repo: Path, tmp_path: Path) -> None:
    """A test file with a syntax error fails to collect, which counted as RED; GREEN can
    then never pass it without changing the RED test (a weakening), so the session could
    only stop later. It is said at RED, where the agent can still fix its tests."""
    plan = make_project(git_repo)
    broken = (
        "p = pathlib.Path('tests/test_models.py')\n"
        "p.write_text(p.read_text() + '\\ndef test_broken(:\\n    pass\\n')\n"
    )
    out = run(plan, git_repo, hostile(tmp_path, "red", broken))
    assert out.startswith("16\n"), out
    assert "RED check failed" in out
    assert "tests/test_models.py does not parse (line " in out
    assert commits(git_repo) == ["add plan", "initial"]


# -- what the agent writes outside the repository ---------------------------------------------


def test_19_hostile_pytest_settings_above_the_repository_are_test_infrastructure(
    git_repo: Path, tmp_path: Path
) -> None:
    """The repository has no pytest settings of its own, so pytest looks for them in the
    folders above it: RED writes `../pytest.ini` and `../conftest.py` (whose
    `pytest_pyfunc_call` passes every test once `ledger/models.py` exists), and GREEN's
    stub module with no behaviour at all was committed as "12/12"."""
    plan = make_project(git_repo)
    above = (
        "if os.environ['EXECUTOR_TDD_STEP'] == 'red':\n"
        "    pathlib.Path('../pytest.ini').write_text('[pytest]\\n')\n"
        "    pathlib.Path('../conftest.py').write_text(\n"
        "        'import os\\n\\n\\ndef pytest_pyfunc_call(pyfuncitem):\\n'\n"
        "        '    if os.path.exists(\"ledger/models.py\"):\\n        return True\\n')\n"
        "else:\n"
        "    pathlib.Path('ledger/models.py').write_text(STUB)\n"
    )
    stub = "".join(f"{n} = None\n" for n in STUB_NAMES)
    try:
        out = run(plan, git_repo, hostile(tmp_path, "red green refactor",
                                          f"STUB = {stub!r}\n" + above))  # fmt: skip
    finally:
        for name in ("pytest.ini", "conftest.py"):  # the next test's folder is elsewhere
            (git_repo.parent / name).unlink(missing_ok=True)
    assert out.startswith("16\n"), out
    assert "test configuration outside the repository changed during the session" in out
    assert f"{git_repo.parent / 'conftest.py'} (added)" in out
    assert commits(git_repo) == ["add plan", "initial"]


@pytest.mark.parametrize(
    "conftest",
    [
        "collect_ignore = ['test_models.py']\n",
        "def pytest_collection_modifyitems(config, items):\n"
        "    items[:] = [i for i in items if 'test_models' not in i.nodeid]\n",
        "import pytest\n\n\ndef pytest_runtest_setup(item):\n"
        "    if 'test_models' in item.nodeid:\n        pytest.skip('later')\n",
    ],
    ids=["collect_ignore", "deselected", "skipped"],
)
def test_19_hostile_a_conftest_red_writes_cannot_take_earlier_tests_out_of_the_suite(
    git_repo: Path, tmp_path: Path, conftest: str
) -> None:
    """RED may add test infrastructure (a person sees it after RED; `--yes` takes it):
    session 2's RED wrote a `tests/conftest.py` that leaves session 1's tests out of the
    suite (not collected, deselected or skipped), and GREEN broke `to_money`: the suite
    passed, session 1's module still existed, so its tests did not count as gone."""
    plan = make_project(git_repo)
    assert run(plan, git_repo, replay_cmd()).startswith("0\n")
    code = (
        "if os.environ['EXECUTOR_TDD_STEP'] == 'red':\n"
        f"    pathlib.Path('tests/conftest.py').write_text({conftest!r})\n"
        "else:\n"
        "    p = pathlib.Path('ledger/models.py')\n"
        "    p.write_text(p.read_text().replace('raise TypeError', 'return Decimal(0)  #'))\n"
    )
    out = run(plan, git_repo, hostile(tmp_path, "red green refactor", code), number=2)
    assert out.startswith("16\n"), out
    assert "tests that passed when earlier sessions were committed" in out
    assert "tests.test_models::test_to_money_rejects_floats" in out
    assert commits(git_repo)[0] == "feat(ledger): Ledger Models"


@pytest.mark.parametrize(
    "hook",
    [
        "def pytest_pyfunc_call(pyfuncitem):\n"
        "    if os.path.exists('ledger/models.py'):\n        return True\n",
        "import pytest\n\n\n@pytest.hookimpl(wrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n    report = yield\n"
        "    if os.path.exists('ledger/models.py'):\n        report.outcome = 'passed'\n"
        "    return report\n",
    ],
    ids=["pyfunc_call", "makereport"],
)
def test_19_hostile_a_conftest_red_writes_cannot_pass_the_sessions_tests(
    git_repo: Path, tmp_path: Path, hook: str
) -> None:
    """RED writes its tests and a `tests/conftest.py` whose hook passes every test once
    `ledger/models.py` exists: RED fails for real (no module yet), and GREEN's module
    with no behaviour at all was committed as "12/12". A conftest.py was never searched
    for such hooks (it is where legitimate ones live); the hooks that decide an outcome
    are looked for in it now."""
    plan = make_project(git_repo)
    code = (
        "if os.environ['EXECUTOR_TDD_STEP'] == 'red':\n"
        f"    pathlib.Path('tests/conftest.py').write_text('import os\\n' + {hook!r})\n"
        "else:\n"
        "    pathlib.Path('ledger/models.py').write_text(STUB)\n"
    )
    stub = "".join(f"{n} = None\n" for n in STUB_NAMES)
    out = run(plan, git_repo, hostile(tmp_path, "red green refactor", f"STUB = {stub!r}\n" + code))
    assert out.startswith("16\n"), out
    assert "reaches into the test runner" in out and "tests/conftest.py" in out
    assert commits(git_repo) == ["add plan", "initial"]


def test_19_hostile_a_fifo_in_place_of_a_sessions_file_does_not_hang_the_checks(
    git_repo: Path, tmp_path: Path
) -> None:
    """RED writes a helper beside its tests that no test imports; GREEN puts a FIFO in
    its place. The tests ran, then the executor read the helper to fingerprint it (and
    to look for runner hooks) and waited on the FIFO for ever."""
    plan = make_project(git_repo)
    code = (
        "if os.environ['EXECUTOR_TDD_STEP'] == 'red':\n"
        "    pathlib.Path('tests/helpers.py').write_text('X = 1\\n')\n"
        "else:\n"
        "    pathlib.Path('tests/helpers.py').unlink()\n"
        "    os.mkfifo('tests/helpers.py')\n"
    )
    proc = run_cli("execute-session", "1", "--plan", str(plan), "--yes", "--max-retries",
                   "0", "--agent-command", hostile(tmp_path, "red green", code),
                   cwd=git_repo, timeout=120)  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 16, out
    assert "tests in tests/helpers.py weakened during GREEN" in out, out
    assert commits(git_repo) == ["add plan", "initial"]
