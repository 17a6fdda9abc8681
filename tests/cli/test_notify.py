"""Notifications through the real CLI, against a real local HTTP server: a checkpoint
through the bridge, a budget stop and the end of a run POST what happened and what to run;
a webhook that hangs or refuses costs at most its time limit and one warning line, and the
run exits with its own code; the desktop notification (a stand-in notify-send) and the
terminal bell (a pseudo-terminal); the terminal's questions (the Decider's `on_ask`)."""

from __future__ import annotations

import json
import os
import pty
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from executor.bridge.models import Ledger
from executor.bridge.protocol import BridgeChannel
from executor.choices import Option, Question
from executor.cli import main
from executor.engine.agents import BridgeAgents, Durable
from executor.engine.decisions import Decider
from executor.notify import TIMEOUT
from executor.prompts import ScriptedPrompter
from tests import forkserver
from tests.conftest import run_cli
from tests.engine.helpers import make_project, replay_cmd, state

#: Generous: the run and its notification end long before (TIMEOUT is 3 s).
LIMIT = 60


class Hook:
    """A webhook receiver on 127.0.0.1: every JSON body POSTed to it, in order."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        bodies = self.bodies

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                bodies.append(json.loads(self.rfile.read(length)))
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/T000/secret"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hook() -> Iterator[Hook]:
    h = Hook()
    yield h
    h.close()


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that takes connections (the kernel's backlog) and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield sock.getsockname()[1]
    sock.close()


def closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port: int = sock.getsockname()[1]
    sock.close()  # nothing listens there now: connections are refused
    return port


def test_a_checkpoint_through_the_bridge_is_posted(git_repo: Path, hook: Hook) -> None:
    plan = make_project(git_repo)

    proc = run_cli("execute-session", "1", "--plan", str(plan), "--notify", hook.url,
                   cwd=git_repo, timeout=LIMIT)  # fmt: skip

    assert proc.returncode == 42, proc.stderr
    [body] = hook.bodies
    answer = f"executor bridge respond --dir {plan} --response CHOICE --resume"
    assert body["event"] == "checkpoint"
    assert (body["project"], body["plan"], body["session"]) == ("ledger", str(plan), 1)
    assert (body["checkpoint"], body["exit_code"], body["status"]) == (
        "before_start", 42, "need_agent",
    )  # fmt: skip
    assert body["question"].startswith("Start session 1")
    assert "approve" in body["options"] and body["next"] == answer
    assert body["text"].startswith("executor: ledger: session 1 waits for you at before_start: ")
    assert body["text"].endswith(answer)
    assert state(plan)["run"]["options"]["notify"] == hook.url  # saved with the run
    assert "warning" not in proc.stderr

    # approved: the run goes on to RED's agent request, which waits for an agent, not you
    on = run_cli("bridge", "respond", "--dir", str(plan), "--response", "approve", "--resume",
                 cwd=git_repo, timeout=LIMIT)  # fmt: skip
    assert on.returncode == 42, on.stderr
    assert len(hook.bodies) == 1


def test_a_budget_stop_and_a_completed_run_are_posted(git_repo: Path, hook: Hook) -> None:
    plan = make_project(git_repo)
    (git_repo / ".executor.toml").write_text(f'notify = "{hook.url}"\n', "utf-8")
    subprocess.run(["git", "add", "-A"], cwd=git_repo, check=True)
    subprocess.run(["git", "commit", "-qm", "config"], cwd=git_repo, check=True)
    args = ["execute-session", "1", "--plan", str(plan), "--yes", "--agent-command", replay_cmd()]

    broke = run_cli(*args, "--budget-tokens", "0", cwd=git_repo, timeout=LIMIT)

    assert broke.returncode == 23, broke.stderr
    [budget] = hook.bodies
    assert (budget["event"], budget["session"], budget["exit_code"]) == ("budget", 1, 23)
    assert budget["next"].startswith(f"executor resume-session 1 --plan {plan} --yes")
    assert budget["next"].endswith("--budget-tokens 1")
    assert budget["text"].startswith("executor: ledger: stopped on its budget at session 1: ")

    done = run_cli(*args, "--budget-tokens", "1000000", cwd=git_repo, timeout=LIMIT)

    assert done.returncode == 0, done.stderr
    assert [b["event"] for b in hook.bodies] == ["budget", "completed"]
    end = hook.bodies[-1]
    assert (end["exit_code"], end["status"], end["session"]) == (0, "success", 1)
    assert end["next"] == f"executor status --plan {plan}"
    assert end["text"] == (
        f"executor: ledger: the run is complete (1 session done now). See: executor "
        f"status --plan {plan}"
    )


@pytest.mark.parametrize("server", ["hangs", "refuses"])
def test_a_webhook_that_hangs_or_refuses_is_one_warning(
    git_repo: Path, silent_port: int, server: str
) -> None:
    plan = make_project(git_repo)
    port = silent_port if server == "hangs" else closed_port()
    url = f"http://127.0.0.1:{port}/hooks/T000/secret"

    proc = run_cli("execute-session", "1", "--plan", str(plan), "--notify", url, cwd=git_repo,
                   timeout=TIMEOUT + LIMIT)  # fmt: skip

    assert proc.returncode == 42  # the run's own code: the checkpoint waits
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning")]
    assert len(warnings) == 1, proc.stderr
    shown = f"warning: notification not delivered: webhook http://127.0.0.1:{port}: "
    assert warnings[0].startswith(shown)
    assert "secret" not in warnings[0]  # a webhook's path is its key: not in a warning
    if server == "refuses":
        assert "refused" in warnings[0]
    assert (plan / ".agent-request.json").exists()  # the request was written all the same


def test_a_run_ending_with_a_hanging_webhook_keeps_its_exit_code(
    git_repo: Path, silent_port: int
) -> None:
    plan = make_project(git_repo)
    url = f"http://127.0.0.1:{silent_port}/"
    proc = run_cli("execute-session", "1", "--plan", str(plan), "--yes", "--budget-usd", "0",
                   "--agent-command", replay_cmd(), "--notify", url, cwd=git_repo,
                   timeout=TIMEOUT + LIMIT)  # fmt: skip
    assert proc.returncode == 23, proc.stderr
    assert proc.stderr.count("warning: notification not delivered") == 1


def fake_notify_send(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A `notify-send` on PATH that records its arguments; the env for a display."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "desktop.txt"
    script = bin_dir / "notify-send"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" >> {record}\n', "utf-8")
    script.chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "DISPLAY": ":99"}
    return env, record


@pytest.mark.skipif(sys.platform != "linux", reason="notify-send is the Linux desktop's")
def test_a_desktop_notification_where_a_display_is(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    env, record = fake_notify_send(tmp_path)

    proc = run_cli("execute-session", "1", "--plan", str(plan), cwd=git_repo, env=env)

    assert proc.returncode == 42, proc.stderr
    title, *body = record.read_text("utf-8").splitlines()
    assert title == "ledger: session 1 waits for you at before_start"
    assert body[0].startswith("executor: ledger: session 1 waits for you at before_start: Start")

    record.unlink()
    off = run_cli("bridge", "respond", "--dir", str(plan), "--response", "pause", "--resume",
                  cwd=git_repo, env=env)  # fmt: skip
    assert off.returncode == 20, off.stderr  # paused: the run ended
    assert record.read_text("utf-8").startswith("ledger: stopped at session 1 (exit 20 PAUSED)")

    record.unlink()
    again = run_cli("execute-session", "1", "--plan", str(plan), "--notify", "off",
                    cwd=git_repo, env=env)  # fmt: skip
    assert again.returncode == 42, again.stderr
    assert not record.exists()  # --notify off: nothing
    no_display = {**env, "DISPLAY": ""}
    on = run_cli("execute-session", "1", "--plan", str(plan), "--notify", "on", cwd=git_repo,
                 env=no_display)  # fmt: skip
    assert on.returncode == 42, on.stderr
    assert not record.exists()  # no display: no desktop to notify


def test_the_bell_rings_on_a_terminal_only(git_repo: Path) -> None:
    plan = make_project(git_repo)
    main, secondary = pty.openpty()
    proc = forkserver.popen(
        [sys.executable, "-m", "executor", "execute-session", "1", "--plan", str(plan)],
        cwd=git_repo, stdout=subprocess.PIPE, stderr=secondary, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    os.close(secondary)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the terminal closed: the process is gone
            break
        if not chunk:
            break
        seen += chunk
    os.close(main)
    out, _ = proc.communicate(timeout=LIMIT)
    assert proc.returncode == 42
    assert b"\a" not in out
    assert seen.count(b"\a") == 1, seen  # on stderr, the terminal

    piped = run_cli("execute-session", "1", "--plan", str(plan), cwd=git_repo)
    assert piped.returncode == 42, piped.stderr
    assert "\a" not in piped.stderr  # no terminal: no bell


def test_a_bad_notify_value_is_refused(git_repo: Path) -> None:
    plan = make_project(git_repo)
    proc = run_cli("execute-session", "1", "--plan", str(plan), "--notify", "file:///etc/passwd",
                   cwd=git_repo)  # fmt: skip
    assert proc.returncode == 64
    assert "--notify: expected on, off or an http:// or https:// URL" in proc.stderr
    assert not (plan / ".agent-state.json").exists()


def test_config_shows_the_notify_setting(git_repo: Path) -> None:
    (git_repo / ".executor.toml").write_text('notify = "off"\n', "utf-8")
    proc = run_cli("config", "--json", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout)["options"]["notify"]
    assert shown == {"value": "off", "from": ".executor.toml"}


def test_a_terminal_question_is_told_once_not_again_with_what_was_shown(tmp_path: Path) -> None:
    told: list[str | None] = []
    options = (Option("approve", "Approve"), Option("show_diff", "Show diff"))
    prompter = ScriptedPrompter(["show_diff", "approve", "approve"])
    decider = Decider(
        yes=False,
        prompter=prompter,
        bridge=BridgeAgents(BridgeChannel(tmp_path), Durable(lambda: None)),
        folder=tmp_path,
        on_ask=lambda q: told.append(q.checkpoint),
    )

    def ask(checkpoint: str, n: int) -> str:
        q = Question(
            key=f"s1.{checkpoint}.q{n}",
            text="Go on?",
            options=options,
            detail="",
            checkpoint=checkpoint,
            session=1,
            phase=1,
            detail_file=tmp_path / "d.md",
        )
        got = decider.ask(q, Ledger())
        return str(getattr(got, "action", got))

    assert [ask("after_red", 0), ask("after_red", 1), ask("after_green", 2)] == [
        "show_diff", "approve", "approve",
    ]  # fmt: skip
    assert told == ["after_red", "after_green"]  # the diff shown was asked for: no new call


def test_a_question_at_the_terminal_is_posted_then_the_end(
    git_repo: Path, hook: Hook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole command in this process, a person's terminal scripted: asked at
    before_start (posted before the answer), they pause: the end is posted too."""
    plan = make_project(git_repo)
    person = ScriptedPrompter(["pause"])
    monkeypatch.setattr("executor.workflows.tdd.runner.run._terminal_prompter", lambda: person)
    monkeypatch.chdir(git_repo)

    code = main(["execute-session", "1", "--plan", str(plan), "--notify", hook.url])

    assert code == 20  # paused
    assert person.remaining == 0
    # each is posted on a thread of its own: they may arrive in either order
    asked, ended = sorted(hook.bodies, key=lambda body: body["event"] != "checkpoint")
    assert (asked["event"], asked["checkpoint"], asked["next"]) == (
        "checkpoint", "before_start", "answer at the terminal",
    )  # fmt: skip
    assert "exit_code" not in asked
    assert asked["text"].startswith("executor: ledger: session 1 waits for you at before_start")
    assert (ended["event"], ended["exit_code"], ended["status"]) == ("stopped", 20, "paused")
    assert ended["next"] == f"executor resume-session 1 --plan {plan}"  # as the CLI said
