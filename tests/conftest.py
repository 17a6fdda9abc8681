"""Shared fixtures: isolated git identity/config, a real git repo in tmp_path."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import forkserver

REPO_ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    """Every process the suite starts gets Ctrl+C as a terminal's foreground job does.

    A shell without job control (a script, a tool's shell) starts a background command
    (`.ci/run &`) with SIGINT ignored; that is inherited by every process started from
    it, and Python then installs no KeyboardInterrupt handler: the two tests that press
    Ctrl+C on the CLI waited for their 120 s timeout."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: three workers for two cores. Most tests wait on the processes they
    start (the CLI, git, pytest in bubblewrap, stand-in agents): with one worker a core
    a sixth of this 2-core machine sat idle. Measured, the whole suite: 263 s with two
    workers, 240 s with three (more CPU in all, 458 s against 441 s: contention)."""
    return max(1, (os.cpu_count() or 1) * 3 // 2)


@pytest.fixture(autouse=True)
def isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """No test reads the developer's ~/.gitconfig or leaks EXECUTOR_* settings.

    GitPython ignores GIT_CONFIG_GLOBAL, so HOME itself points at a temp dir.
    """
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    for var, val in {
        "GIT_AUTHOR_NAME": "Test Author",
        "GIT_AUTHOR_EMAIL": "author@example.com",
        "GIT_COMMITTER_NAME": "Test Committer",
        "GIT_COMMITTER_EMAIL": "committer@example.com",
    }.items():
        monkeypatch.setenv(var, val)
    for var in list(os.environ):
        if var.startswith("EXECUTOR_"):
            monkeypatch.delenv(var)
    # no run a test starts shows desktop notifications on the developer's screen
    for var in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(var, raising=False)
    # The CLI subprocesses run from the checkout import its sources: let them keep their
    # bytecode (the executor's own project test runs set PYTHONDONTWRITEBYTECODE again).
    # With it set, as on this machine, each such `python -m executor` compiled the
    # package afresh (~0.1 s of CPU a call, measured; the suite's total barely moved).
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    # The projects these tests build run their tests with this environment's pytest,
    # which would load every plugin this suite installs (hypothesis, xdist, pytest-cov:
    # ~0.15 s of CPU a run, measured) into each of those thousands of runs; the executor
    # names pytest-cov itself where it measures coverage.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    # The projects these tests build are tested in the project's environment as the
    # person's shell would find it (executor.projectenv): this one, as if activated.
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    # No mutation step (a pytest process per session, ~40% of a small session's CPU)
    # where a test is not about it: tests/engine/test_strength.py turns it on again.
    monkeypatch.setenv("EXECUTOR_MUTATION_BUDGET", "0")
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Test User\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n",
        encoding="utf-8",
    )
    yield


def git(repo: Path, *args: str) -> str:
    """Run real git in `repo`; return stdout (raises on failure)."""
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A real git repository with one initial commit on `main`."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("# test repo\n", encoding="utf-8")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "initial")
    return repo


@pytest.fixture(scope="session", autouse=True)
def _fork_server() -> Iterator[None]:
    yield
    forkserver.SERVER.close()


@pytest.fixture(autouse=True)
def _nothing_left_open() -> Iterator[None]:
    """A test that leaves a process running or a descriptor open fails itself, not the
    test during which the garbage collector happened to close it (that one failed on
    "unraisable exception warnings" for a socket and two pipes it never had)."""
    before = _open_fds()
    yield
    left = forkserver.left_behind()
    opened = _open_fds() - before - forkserver.SERVER.fds()
    if opened:  # held in a reference cycle: its finalizer warns now, in this test
        gc.collect()
        opened = _open_fds() - before - forkserver.SERVER.fds()
    left += [f"descriptor {fd} ({_what(fd)})" for fd in sorted(opened)]
    if left:
        pytest.fail("the test left open: " + "; ".join(left), pytrace=False)


def _open_fds() -> set[int]:
    """This process's open descriptors (not the one listing them used)."""
    try:
        listed = {int(fd) for fd in os.listdir(_FDS)}
    except OSError:
        return set()
    return {fd for fd in listed if _is_open(fd)}


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _what(fd: int) -> str:
    try:
        return os.readlink(f"{_FDS}/{fd}")
    except OSError:
        return "?"


_FDS = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run the real CLI (`python -m executor`) as a process of its own (forked from a
    server that has imported it: tests/forkserver.py)."""
    return forkserver.run_process(
        [sys.executable, "-m", "executor", *args], cwd=cwd, env={**os.environ, **(env or {})},
        input=input, timeout=timeout, capture_output=True, text=True,
    )  # fmt: skip


def terminate_when(
    started: Path, *args: str, cwd: Path | None = None, wait: float = 0.0
) -> subprocess.CompletedProcess[str]:
    """Run the real CLI; once `started` exists (the agent or the state is there), and
    `wait` seconds later, send it SIGTERM as a service manager would; its result."""
    proc = forkserver.popen(
        [sys.executable, "-m", "executor", *args],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not started.exists():
        time.sleep(0.05)
    time.sleep(wait)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
