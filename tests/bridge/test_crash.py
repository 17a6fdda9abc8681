"""Crash safety with real processes: SIGKILL during saves, orphan sweep (P1, P3, P6, P10)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from executor.bridge import BridgeChannel, StateManager
from executor.fsutil import atomic_write_bytes
from tests.bridge.helpers import read_json

SAVE_LOOP = """
import sys
from pathlib import Path
from executor.bridge import StateManager
sm = StateManager(Path(sys.argv[1]))
blob = "x" * 200_000
i = 0
while True:
    i += 1
    sm.save_state("step", i, {"n": i}, {"blob": blob, "n": i})
    if len(sys.argv) > 2:
        break
"""

REQUEST_ONCE = """
import sys
from pathlib import Path
from executor.bridge import AgentBridgeInvoker
folder = Path(sys.argv[1])
AgentBridgeInvoker(folder / ".agent-request.json", folder / ".agent-response.json").request(
    "architectural-reviewer", "Analyse the codebase.")
"""


def _py(
    code: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
    )


def _wait_for_saves(state_file: Path, child: subprocess.Popen[bytes]) -> None:
    """Return once `child` has replaced the state file at least twice (or 20 s passed)."""
    first = state_file.stat()
    seen = {(first.st_ino, first.st_mtime_ns)}
    deadline = time.monotonic() + 20
    while len(seen) < 3 and time.monotonic() < deadline and child.poll() is None:
        with contextlib.suppress(FileNotFoundError):
            st = state_file.stat()
            seen.add((st.st_ino, st.st_mtime_ns))
        time.sleep(0.002)


def _orphans(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.startswith(".agent-tmp-")]


def test_fault_kill_after_tmp_written_leaves_old_state_and_sweeps_orphan(tmp_path: Path) -> None:
    state_file = tmp_path / ".template-create-state.json"
    assert _py(SAVE_LOOP, str(state_file), "once").returncode == 0
    before = state_file.read_bytes()
    # the first hit of state.tmp_written in a fresh process is its one save (of phase 1
    # again); the .bak is a hard link made after it, so the old file is untouched.
    proc = _py(SAVE_LOOP, str(state_file), "once", env={"EXECUTOR_FAULT": "state.tmp_written:kill"})
    assert proc.returncode == -signal.SIGKILL
    assert state_file.read_bytes() == before  # old version, complete
    assert len(_orphans(tmp_path)) == 1
    sm = StateManager(state_file)
    assert sm.load_state().phase == 1
    sm.save_state("next", 2, {}, {})
    assert _orphans(tmp_path) == []  # the dead writer's temp file was swept
    assert sm.load_state().phase == 2


def test_fault_kill_after_replace_leaves_new_state(tmp_path: Path) -> None:
    state_file = tmp_path / ".template-create-state.json"
    proc = _py(SAVE_LOOP, str(state_file), "once", env={"EXECUTOR_FAULT": "state.replaced:kill"})
    assert proc.returncode == -signal.SIGKILL
    assert StateManager(state_file).load_state().phase == 1


def test_real_sigkill_loop_never_tears_the_state(tmp_path: Path) -> None:
    state_file = tmp_path / ".template-create-state.json"
    assert _py(SAVE_LOOP, str(state_file), "once").returncode == 0
    phases: list[int] = []
    for i in range(12):
        child = subprocess.Popen(
            [sys.executable, "-c", SAVE_LOOP, str(state_file)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_for_saves(state_file, child)  # past the imports, saving in a loop
        time.sleep((i % 5) * 0.007)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        data = json.loads(state_file.read_text(encoding="utf-8"))  # never torn
        state = StateManager(state_file).load_state()
        assert state.phase_data["n"] == state.phase == data["phase"]
        phases.append(state.phase)
        backup = json.loads(StateManager(state_file).backup_file.read_text(encoding="utf-8"))
        assert backup["phase_data"]["blob"] == "x" * 200_000
    assert max(phases) > 1  # the kills did land while saves were running
    StateManager(state_file).save_state("done", 0, {}, {})
    assert _orphans(tmp_path) == []


def test_kill_before_request_file_reemits_same_id(tmp_path: Path) -> None:
    """Scenario 2: pending recorded, killed before the request file exists."""
    proc = _py(REQUEST_ONCE, str(tmp_path), env={"EXECUTOR_FAULT": "request.tmp_written:kill"})
    assert proc.returncode == -signal.SIGKILL
    assert not (tmp_path / ".agent-request.json").exists()
    pending = read_json(tmp_path / ".agent-bridge-ledger.json")["pending"]
    proc = _py(REQUEST_ONCE, str(tmp_path))
    assert proc.returncode == 42
    request = read_json(tmp_path / ".agent-request.json")
    assert request["request_id"] == pending["request_id"]
    assert _orphans(tmp_path) == []


def test_kill_after_request_written_reemits_identical_request(tmp_path: Path) -> None:
    """Scenario 3: the host saw -9; a retry gets the same request, one pending."""
    proc = _py(REQUEST_ONCE, str(tmp_path), env={"EXECUTOR_FAULT": "request.written:kill"})
    assert proc.returncode == -signal.SIGKILL
    first = read_json(tmp_path / ".agent-request.json")
    assert _py(REQUEST_ONCE, str(tmp_path)).returncode == 42
    second = read_json(tmp_path / ".agent-request.json")
    assert second["request_id"] == first["request_id"]
    assert (first["emission"], second["emission"]) == (1, 2)


def test_storage_error_on_request_write_keeps_pending_and_no_request(tmp_path: Path) -> None:
    proc = _py(REQUEST_ONCE, str(tmp_path), env={"EXECUTOR_FAULT": "request.tmp_written:eio"})
    assert proc.returncode not in (0, 42)
    assert "Input/output error" in proc.stderr
    assert not (tmp_path / ".agent-request.json").exists()
    assert _orphans(tmp_path) == []


def test_sweep_removes_only_dead_writers_temp_files(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    live = tmp_path / f".agent-tmp-{os.getpid()}-.agent-request.json"
    orphan = tmp_path / f".agent-tmp-{dead.pid}-.agent-request.json"
    # a person's files that merely look like temp files are never touched (9.13)
    unrelated = [tmp_path / "notes.tmp", tmp_path / f".draft.{dead.pid}.tmp"]
    briefs = tmp_path / ".agent-briefs"
    briefs.mkdir()
    brief_orphan = briefs / f".agent-tmp-{dead.pid}-s1.red.a1.f0.md"
    for p in (live, orphan, *unrelated, brief_orphan):
        p.write_text("partial", encoding="utf-8")
    BridgeChannel(tmp_path).sweep()
    assert live.exists() and all(p.exists() for p in unrelated)
    assert not orphan.exists() and not brief_orphan.exists()


def test_a_backup_that_already_is_the_state_leaves_no_temp_file(tmp_path: Path) -> None:
    """A save killed after it linked the state as `.bak` but before it replaced the state
    leaves both names on one file; the next save must not leave its staged link behind."""
    state = tmp_path / ".template-create-state.json"
    backup = tmp_path / ".template-create-state.json.bak"
    state.write_bytes(b"one")
    os.link(state, backup)
    atomic_write_bytes(state, b"two", backup=backup)
    assert (state.read_bytes(), backup.read_bytes()) == (b"two", b"one")
    assert _orphans(tmp_path) == []
