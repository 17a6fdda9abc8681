"""The suite's own harness (tests/conftest.py, tests/forkserver.py), run as a nested
pytest with this suite's conftest: a test that leaves a process or a descriptor open
fails itself, not the test the garbage collector happens to close it in; and the CLI
takes Ctrl+C however the suite itself was started."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT


def _pytest(folder: Path, test: str, *, ignoring_sigint: bool = False) -> str:
    """A nested pytest of the file `test` with this suite's conftest; what it printed."""
    (folder / "test_nested.py").write_text(test, encoding="utf-8")
    start = "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); " * ignoring_sigint
    run = f"import sys, pytest; {start}sys.exit(pytest.main(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", run, "-p", "xdist.plugin", "-p", "tests.conftest",
         "-p", "no:cacheprovider", "-W", "error", "-q", "-rA", str(folder / "test_nested.py")],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return proc.stdout + proc.stderr


LEAKS = """
import gc, os, subprocess, sys
from tests import forkserver


def test_leaves_a_process_running():
    forkserver.popen([sys.executable, "-c", "import time; time.sleep(60)"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_leaves_a_file_in_a_reference_cycle():
    kept = [open(os.devnull)]
    kept.append(kept)  # freed only by the garbage collector


def test_next():
    gc.collect()  # what the previous tests left would be collected here
"""


def test_a_test_that_leaves_something_open_fails_itself(tmp_path: Path) -> None:
    said = _pytest(tmp_path, LEAKS)
    assert "ERROR at teardown of test_leaves_a_process_running" in said
    assert "-c 'import time; time.sleep(60)': still running (killed), 2 pipe(s) open" in said
    assert "ERROR at teardown of test_leaves_a_file_in_a_reference_cycle" in said
    assert "ResourceWarning: unclosed file <_io.FileIO name='/dev/null'" in said
    assert "ERROR at teardown of test_next" not in said
    assert "3 passed, 2 errors" in said


CTRL_C = """
import sys
from tests.conftest import run_cli


def test_the_cli_takes_ctrl_c():
    proc = run_cli("--version", env={"EXECUTOR_FAULT": "cli.started:int"})
    assert (proc.returncode, proc.stderr) == (130, "Interrupted.\\n")
"""


def test_the_cli_takes_ctrl_c_when_the_suite_was_started_ignoring_it(tmp_path: Path) -> None:
    """`.ci/run &` from a script starts the suite with SIGINT ignored, and every process
    it starts inherited that: the tests that press Ctrl+C waited for their timeout."""
    said = _pytest(tmp_path, CTRL_C, ignoring_sigint=True)
    assert "1 passed" in said, said
