"""`executor logs [SESSION] [-f]` through the real CLI: following a run whose stand-in
agent prints lines over a few seconds (the lines arrive while the agent still runs, and
`-f` ends on its own when the run does), Ctrl+C, the latest transcript and test output
of a finished session, and each test run's output kept in `.agent-logs/` (bounded)."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from executor import testrun
from executor.testrun import run_tests
from tests import forkserver
from tests.conftest import run_cli
from tests.engine.helpers import make_project, replay_cmd

#: Generous bounds so nothing hangs; nothing here measures time.
LIMIT = 120

AGENT = """
import os, pathlib, sys, time
gate = pathlib.Path(sys.argv[1])
step = os.environ["EXECUTOR_TDD_STEP"]
for k in range(3):
    print(f"tick {k} {step}", flush=True)
    time.sleep(0.3)
deadline = time.monotonic() + 100  # the test opens the gate once it saw the ticks
while not gate.exists() and time.monotonic() < deadline:
    time.sleep(0.05)
print(f"tock {step}", flush=True)
os.execvp(sys.argv[2], sys.argv[2:])  # then the replay agent does the step's work
"""


def executor(*args: str, cwd: Path) -> subprocess.Popen[bytes]:
    return forkserver.popen([sys.executable, "-m", "executor", *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip


def wait_for(path_glob: str, folder: Path) -> None:
    deadline = time.monotonic() + LIMIT
    while not list(folder.glob(path_glob)):
        assert time.monotonic() < deadline, f"{path_glob} never appeared"
        time.sleep(0.05)


def gated_run(repo: Path, tmp: Path) -> tuple[Path, Path, subprocess.Popen[bytes]]:
    """A session whose agent waits for the file `gate` before it replays its step: the
    plan, the gate, and the running `execute-session`."""
    plan = make_project(repo)
    gate = tmp / "gate"
    script = tmp / "agent.py"
    script.write_text(AGENT, "utf-8")
    agent = shlex.join([sys.executable, str(script), str(gate), *shlex.split(replay_cmd())])
    run = executor("execute-session", "1", "--plan", str(plan), "--yes", "--agent-command",
                   agent, cwd=repo)  # fmt: skip
    return plan, gate, run


def test_logs_follow_a_run_while_its_agent_writes(git_repo: Path, tmp_path: Path) -> None:
    plan, gate, run = gated_run(git_repo, tmp_path)
    wait_for(".agent-logs/s1.red.*.log", plan)

    # status in a second terminal: the run is live, and what to do is to follow it
    status = run_cli("status", "--plan", str(plan), cwd=git_repo)
    assert status.returncode == 0, status.stderr
    live = next(line for line in status.stdout.splitlines() if line.startswith("running now"))
    assert live.startswith(f"running now: pid {run.pid} on {os.uname().nodename}, session 1 "
                           f"at red_agent since ")  # fmt: skip
    assert f"next: nothing while it runs: follow it with executor logs -f --plan {plan}" in (
        status.stdout
    )
    assert "resume-session" not in status.stdout
    data = json.loads(run_cli("status", "--plan", str(plan), "--json", cwd=git_repo).stdout)
    assert data["live"]["pid"] == run.pid and data["next"]["do"] == "watch"
    [row] = [s for p in data["phases"] for s in p["sessions"] if s["number"] == 1]
    assert row["duration_seconds"] > 0  # its time runs while the run is at it, not "0s"

    follow = executor("logs", "-f", "--plan", str(plan), cwd=git_repo)
    lines: list[str] = []

    def read() -> None:
        assert follow.stdout is not None
        for raw in follow.stdout:
            line = raw.decode()
            lines.append(line)
            if line.startswith("tick 2 red"):
                gate.touch()  # the RED agent may end now: its lines came while it ran

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert follow.wait(timeout=LIMIT) == 0  # it ended on its own, with the run
        reader.join(timeout=LIMIT)
        assert run.wait(timeout=LIMIT) == 0
    finally:
        for proc in (run, follow):
            if proc.poll() is None:
                proc.kill()
            proc.communicate()
    text = "".join(lines)
    assert text.index("tick 0 red") < text.index("tock red")  # before the agent ended
    for step in ("green", "refactor"):  # it moved on to each later transcript
        assert f"tick 0 {step}" in text and f"tock {step}" in text
    assert "(agent transcript, session 1) <==" in text
    assert "(test output, session 1) <==" in text  # the test runs between them
    assert "# exit 0 after" in text

    # afterwards: the session's latest transcript and test output, the newer last
    shown = run_cli("logs", "1", "-n", "3", "--plan", str(plan), cwd=git_repo)
    assert shown.returncode == 0, shown.stderr
    heads = [line for line in shown.stdout.splitlines() if line.startswith("==> ")]
    assert len(heads) == 2
    assert heads[0].endswith(".tests.log (test output, session 1) <==") or heads[1].endswith(
        ".tests.log (test output, session 1) <=="
    )
    assert any("s1.refactor.a" in h and "agent transcript" in h for h in heads)
    assert len(shown.stdout.splitlines()) == 2 + 2 * 3 + 1  # a blank line between them
    assert heads[0].startswith("==> project-plans/ledger/.agent-logs/s1.")  # from here
    # with no session named: the run is past session 1 (the plan's next one has no logs)
    latest = run_cli("logs", "-n", "3", cwd=git_repo)
    assert latest.returncode == 0 and latest.stdout == shown.stdout


def test_ctrl_c_stops_following_without_a_traceback(git_repo: Path, tmp_path: Path) -> None:
    plan, gate, run = gated_run(git_repo, tmp_path)
    try:
        wait_for(".agent-logs/s1.red.*.log", plan)
        follow = executor("logs", "-f", "--plan", str(plan), cwd=git_repo)
        assert follow.stdout is not None
        first = follow.stdout.readline()  # it is following: the header came
        assert first.startswith(b"==> ")
        follow.send_signal(signal.SIGINT)
        _, err = follow.communicate(timeout=LIMIT)
        assert follow.returncode == 130
        assert b"Traceback" not in err and err.strip() == b"Interrupted."
    finally:
        gate.touch()
        run.kill()
        run.communicate()


def test_logs_with_no_run_say_so(git_repo: Path) -> None:
    plan = make_project(git_repo)
    proc = run_cli("logs", "--plan", str(plan), cwd=git_repo)
    assert proc.returncode == 0
    assert f"No agent transcript or test output for this run in {plan}/.agent-logs." in proc.stderr
    ended = run_cli("logs", "2", "-f", "--plan", str(plan), cwd=git_repo, timeout=LIMIT)
    assert ended.returncode == 0 and ended.stdout == ""  # no run: nothing to wait for


def test_logs_of_no_session_or_no_plan_say_so_as_every_command_does(git_repo: Path) -> None:
    """`logs 9` of a plan of 4 sessions and `logs --plan nope` said "No agent transcript"
    and exited 0; every other command says "not in the plan" (64) or "plan not found" (2)."""
    plan = make_project(git_repo)
    proc = run_cli("logs", "9", "--plan", str(plan), cwd=git_repo)
    assert proc.returncode == 64, proc.stderr
    assert proc.stderr.strip() == "error: session 9 is not in the plan (sessions: 1, 2, 3, 4)"
    gone = run_cli("logs", "--plan", "nope", cwd=git_repo)
    assert gone.returncode == 2
    assert gone.stderr.strip() == f"error: plan not found: {git_repo / 'nope'}"


def test_a_test_runs_output_is_written_as_it_comes_and_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(testrun, "LOG_BYTES", 1000)
    log = tmp_path / "s1.red_verify.a1.t1.tests.log"
    printer = "import sys; [print(f'line {i:05d}') for i in range(5000)]; sys.exit(3)"
    command = shlex.join([sys.executable, "-c", printer])

    run = run_tests(command, cwd=tmp_path, log=log)

    assert run.exit_code == 3
    text = log.read_text("utf-8")
    assert text.startswith(f"$ {command}\n# output as it came\nline 00000\n")
    head, rest = text.split("\n# [... ", 1)
    assert len(head.encode()) <= 1000 + len(f"$ {command}\n# output as it came\n")
    assert rest.split(" bytes of output left out;")[0].isdigit()
    assert "line 04999\n" in rest  # the end, as kept in memory
    assert text.endswith(f"; {5000 * 11} bytes of output\n")
    assert "# exit 3 after " in text
