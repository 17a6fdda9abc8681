"""RELIABILITY.md scenarios against the real CLI: crashes, bad input, a moved workspace."""

from __future__ import annotations

import fcntl
import json
import os
import shlex
from pathlib import Path

import pytest

from executor.store import seal
from tests.conftest import git, run_cli
from tests.engine.helpers import commits, make_project, records, replay_cmd, respond, session_state

pytestmark = pytest.mark.slow


def _session1(plan: Path, *extra: str) -> list[str]:
    return ["execute-session", "1", "--plan", str(plan), *extra]


@pytest.mark.parametrize(
    "fault",
    [
        "state.replaced:kill@3",
        "state.tmp_written:kill@6",
        "request.replaced:kill@2",
        "git.committed:kill",
    ],
)
def test_sigkill_then_same_command_resumes_without_repeating(git_repo: Path, fault: str) -> None:
    plan = make_project(git_repo)
    args = _session1(plan, "--yes", "--agent-command", replay_cmd())
    killed = run_cli(*args, cwd=git_repo, env={"EXECUTOR_FAULT": fault})
    assert killed.returncode == -9, killed.stdout + killed.stderr
    again = run_cli(*args, cwd=git_repo)
    assert again.returncode == 0, again.stdout + again.stderr
    log = commits(git_repo)
    assert log.count("feat(ledger): Ledger Models") == 1 and len(log) == 3
    s1 = session_state(plan, 1)
    assert s1["step"] == "done" and s1["commit_hash"] == git(git_repo, "rev-parse", "HEAD").strip()
    assert git(git_repo, "status", "--porcelain") == ""
    if fault == "git.committed:kill":
        assert "adopting commit" in again.stdout


def test_dirty_worktree_is_refused_and_nothing_touched(git_repo: Path) -> None:
    plan = make_project(git_repo)
    (git_repo / "notes.txt").write_text("mine\n", encoding="utf-8")
    proc = run_cli(*_session1(plan, "--yes", "--agent-command", replay_cmd()), cwd=git_repo)
    assert proc.returncode == 19
    assert "notes.txt" in proc.stderr and "clean worktree" in proc.stderr
    assert "git stash -u" in proc.stderr  # plain `git stash` would leave notes.txt behind
    assert (git_repo / "notes.txt").read_text("utf-8") == "mine\n"
    assert not (git_repo / "tests").exists()
    assert len(commits(git_repo)) == 2


def test_corrupt_state_is_quarantined_not_reset(git_repo: Path) -> None:
    plan = make_project(git_repo)
    ok = run_cli(*_session1(plan), cwd=git_repo)
    assert ok.returncode == 42
    again = run_cli(*_session1(plan), cwd=git_repo)  # a second save, so a .bak exists
    assert again.returncode == 42
    state_file = plan / ".agent-state.json"
    state_file.write_bytes(b'{"schema_version": 1, "gener')
    proc = run_cli(*_session1(plan), cwd=git_repo)
    assert proc.returncode == 11, proc.stderr
    assert "corrupt" in proc.stderr and ".agent-state.json.bak" in proc.stderr
    assert state_file.read_bytes() == b'{"schema_version": 1, "gener'
    assert len(list(plan.glob(".agent-state.json.corrupt-*"))) == 1
    status = run_cli("status", "--plan", str(plan), cwd=git_repo)  # every command reads it
    assert status.returncode == 11 and str(state_file) in status.stderr
    assert len(list(plan.glob(".agent-state.json.corrupt-*"))) == 1  # the same copy, named
    state_file.write_bytes(b"AAA{")  # another corruption, within the same second or not
    assert run_cli(*_session1(plan), cwd=git_repo).returncode == 11
    kept = {p.read_bytes() for p in plan.glob(".agent-state.json.corrupt-*")}
    assert kept == {b"AAA{", b'{"schema_version": 1, "gener'}  # neither copy lost


def test_hand_edited_state_fails_checksum(git_repo: Path) -> None:
    plan = make_project(git_repo)
    assert run_cli(*_session1(plan), cwd=git_repo).returncode == 42
    state_file = plan / ".agent-state.json"
    data = json.loads(state_file.read_text("utf-8"))
    data["notes"] = "edited by hand"
    state_file.write_text(json.dumps(data), encoding="utf-8")
    proc = run_cli(*_session1(plan), cwd=git_repo)
    assert proc.returncode == 11 and "checksum mismatch" in proc.stderr


def test_a_session_started_under_another_table_is_not_continued(git_repo: Path) -> None:
    """The workflow's table is part of the definition hash (its choices too): a session a
    version with another table started is refused, with both hashes and what to do."""
    plan = make_project(git_repo)
    assert run_cli(*_session1(plan), cwd=git_repo).returncode == 42
    state_file = plan / ".agent-state.json"
    raw = state_file.read_bytes()
    ours = json.loads(raw)["run"]["definition_hash"]
    older = "sha256:0123456789abcdef"
    body = raw.rstrip(b"\n").replace(ours.encode(), older.encode())
    at = body.rindex(b'"checksum":"') + len(b'"checksum":"')
    state_file.write_bytes(seal(body[:at] + body[body.index(b'"', at) :]))  # a real save
    proc = run_cli(*_session1(plan, "--resume"), cwd=git_repo)
    assert proc.returncode == 13, proc.stderr
    assert f"workflow definition differs from this version's ({older} vs {ours})" in proc.stderr
    assert "finish it with that version or abort it" in proc.stderr


def test_second_process_is_locked_out(git_repo: Path) -> None:
    plan = make_project(git_repo)
    fd = os.open(plan / ".agent-state.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.pwrite(fd, b"4242@otherhost", 0)
        proc = run_cli(*_session1(plan), cwd=git_repo)
    finally:
        os.close(fd)
    assert proc.returncode == 12
    assert "pid 4242 on otherhost" in proc.stderr


def test_git_busy_is_retryable_and_lock_kept(git_repo: Path) -> None:
    plan = make_project(git_repo)
    lock = git_repo / ".git" / "index.lock"
    lock.write_text("", encoding="utf-8")
    proc = run_cli(*_session1(plan), cwd=git_repo)
    assert proc.returncode == 18, proc.stderr
    assert lock.exists()
    assert not (plan / ".agent-state.json").exists()


def test_resume_with_nothing_pending_fails_cleanly(git_repo: Path) -> None:
    plan = make_project(git_repo)
    proc = run_cli(*_session1(plan, "--resume"), cwd=git_repo)
    assert proc.returncode == 21
    assert not (plan / ".agent-state.json").exists()


def test_head_moved_mid_session_is_stale(git_repo: Path) -> None:
    plan = make_project(git_repo)
    assert run_cli(*_session1(plan), cwd=git_repo).returncode == 42
    (git_repo / "other.txt").write_text("x\n", encoding="utf-8")
    git(git_repo, "add", "other.txt")
    git(git_repo, "commit", "-q", "-m", "someone else's commit")
    before = (plan / ".agent-state.json").read_bytes()
    proc = run_cli(*_session1(plan, "--resume"), cwd=git_repo)
    assert proc.returncode == 13 and "HEAD is now" in proc.stderr
    assert (plan / ".agent-state.json").read_bytes() == before


def test_foreign_response_rejected_state_unchanged(git_repo: Path) -> None:
    plan = make_project(git_repo)
    assert run_cli(*_session1(plan), cwd=git_repo).returncode == 42
    req = json.loads((plan / ".agent-request.json").read_text("utf-8"))
    before = (plan / ".agent-state.json").read_bytes()
    (plan / ".agent-response.json").write_text(
        json.dumps(
            {
                "request_id": "00000000-0000-4000-8000-000000000000",
                "version": "1.0",
                "status": "success",
                "response": "approve",
                "created_at": "2026-01-01T00:00:00Z",
            }
        )
    )
    proc = run_cli(*_session1(plan, "--resume"), cwd=git_repo)
    assert proc.returncode == 10, proc.stderr
    assert (plan / ".agent-state.json").read_bytes() == before
    assert (
        json.loads((plan / ".agent-request.json").read_text("utf-8"))["request_id"]
        == req["request_id"]
    )


def test_missing_response_reemits_same_request_then_caps(git_repo: Path) -> None:
    plan = make_project(git_repo)
    assert run_cli(*_session1(plan), cwd=git_repo).returncode == 42
    first = json.loads((plan / ".agent-request.json").read_text("utf-8"))
    codes = []
    for _ in range(6):
        proc = run_cli(*_session1(plan, "--resume"), cwd=git_repo)
        codes.append(proc.returncode)
        if proc.returncode != 42:
            break
        again = json.loads((plan / ".agent-request.json").read_text("utf-8"))
        assert again["request_id"] == first["request_id"]
    assert codes[:4] == [42, 42, 42, 42] and codes[-1] == 17
    assert "attempt" in proc.stderr


def test_same_response_twice_is_a_noop(git_repo: Path) -> None:
    plan = make_project(git_repo)
    assert run_cli(*_session1(plan), cwd=git_repo).returncode == 42
    assert respond(plan, git_repo, "approve").returncode == 0
    saved = (plan / ".agent-response.json").read_bytes()
    applied = run_cli(*_session1(plan, "--resume"), cwd=git_repo)
    assert applied.returncode == 42  # now asking the RED agent
    pending = json.loads((plan / ".agent-request.json").read_text("utf-8"))
    assert pending["agent_name"] == "backend-builder"
    (plan / ".agent-response.json").write_bytes(saved)
    replay = run_cli(*_session1(plan, "--resume"), cwd=git_repo)
    assert replay.returncode == 42
    assert (
        json.loads((plan / ".agent-request.json").read_text("utf-8"))["request_id"]
        == pending["request_id"]
    )
    assert session_state(plan, 1)["step"] == "red_agent"


def test_abort_through_the_bridge_rolls_back_with_backup(git_repo: Path) -> None:
    plan = make_project(git_repo)
    args = _session1(plan, "--agent-command", replay_cmd())
    assert run_cli(*args, cwd=git_repo).returncode == 42  # before_start
    for answer in ("approve", "abort"):  # approve start; RED runs; abort at after_red
        respond(plan, git_repo, answer)
        proc = run_cli(*args, "--resume", cwd=git_repo)
    assert proc.returncode == 1, proc.stderr
    assert "refs/executor/backup/" in proc.stderr
    assert not (git_repo / "tests" / "test_models.py").exists()
    ref = proc.stderr.split("saved in ")[1].split(".")[0].strip()
    assert "test_models.py" in git(git_repo, "ls-tree", "-r", "--name-only", ref)
    assert "1" not in records(plan)


def test_pause_exits_20_and_resume_session_continues(git_repo: Path) -> None:
    plan = make_project(git_repo)
    args = _session1(plan, "--agent-command", replay_cmd())
    assert run_cli(*args, cwd=git_repo).returncode == 42
    respond(plan, git_repo, "pause")
    paused = run_cli(*args, "--resume", cwd=git_repo)
    assert paused.returncode == 20 and "resume-session 1" in paused.stderr
    cont = run_cli(
        "resume-session",
        "1",
        "--plan",
        str(plan),
        "--yes",
        "--agent-command",
        replay_cmd(),
        cwd=git_repo,
    )
    assert cont.returncode == 0, cont.stdout + cont.stderr
    assert commits(git_repo)[0] == "feat(ledger): Ledger Models"


def test_a_plan_run_paused_after_a_session_continues_the_plan(git_repo: Path) -> None:
    """Paused at "continue to the next session?", the printed command goes on with the
    plan (`resume-session 1` would only re-finish the finished session); `status` and its
    JSON offer the same command, and say the session's time and tests as the checkpoint
    did: one clock, one unit."""
    from executor.workflows.tdd.record.counts import duration

    plan = make_project(git_repo)
    args = ["execute-plan", "--plan", str(plan), "--agent-command", replay_cmd(),
            "--checkpoints", "session"]  # fmt: skip
    assert run_cli(*args, cwd=git_repo).returncode == 42  # session 1 ran, then it asks
    context = json.loads((plan / ".agent-request.json").read_text("utf-8"))["context"]
    assert context["question"] == "Session 1 complete. Continue to the next session?"
    respond(plan, git_repo, "pause")
    proc = run_cli(*args, "--resume", cwd=git_repo)
    assert proc.returncode == 20, proc.stdout + proc.stderr
    printed = proc.stderr.split("Continue with: ")[1].strip()
    assert printed == f"executor execute-plan --plan {plan}"

    shown = run_cli("status", "--plan", str(plan), cwd=git_repo)
    assert f"next: {printed}  (with its saved options;" in shown.stdout
    data = json.loads(run_cli("status", "--plan", str(plan), "--json", cwd=git_repo).stdout)
    assert data["next"]["words"] == ["execute-plan"]
    first = data["phases"][0]["sessions"][0]
    took, tests = duration(first["duration_seconds"]), f"{first['tests_passing']}/12"
    assert f"Tests: 12 passing of 12; the session took {took} from its start" in (context["detail"])
    row = next(line for line in shown.stdout.splitlines() if "Ledger Models" in line)
    assert f" {tests} " in row and f" {took} " in row

    cont = run_cli(*shlex.split(printed)[1:], "--checkpoints", "all", cwd=git_repo)
    assert cont.returncode == 42, cont.stdout + cont.stderr  # the question it paused at
    assert asked(plan) == (1, "Session 1 complete. Continue to the next session?")
    respond(plan, git_repo, "approve")
    cont = run_cli(*shlex.split(printed)[1:], "--resume", cwd=git_repo)
    assert cont.returncode == 42, cont.stdout + cont.stderr
    assert asked(plan) == (2, "Start session 2: Balances?")  # the plan goes on
    assert commits(git_repo)[0] == "feat(ledger): Ledger Models"


def asked(plan: Path) -> tuple[int, str]:
    context = json.loads((plan / ".agent-request.json").read_text("utf-8"))["context"]
    return context["session"], context["question"]


def test_pending_human_question_is_superseded_by_yes(git_repo: Path) -> None:
    plan = make_project(git_repo)
    assert run_cli(*_session1(plan), cwd=git_repo).returncode == 42  # human: before_start
    proc = run_cli(*_session1(plan, "--yes", "--agent-command", replay_cmd()), cwd=git_repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (plan / ".agent-request.json").exists()
    assert session_state(plan, 1)["bridge"]["pending"] is None
    assert commits(git_repo)[0] == "feat(ledger): Ledger Models"


def test_abort_at_session_complete_keeps_the_persons_untracked_files(git_repo: Path) -> None:
    """Issue 22: the session's commit and files go; a file the person made while the
    question waited stays where it is."""
    plan = make_project(git_repo)
    args = ["execute-plan", "--plan", str(plan), "--agent-command", replay_cmd(),
            "--checkpoints", "session"]  # fmt: skip
    assert run_cli(*args, cwd=git_repo).returncode == 42  # session 1 committed: continue?
    assert commits(git_repo)[0].startswith("feat(")
    (git_repo / "notes.txt").write_text("my notes\n", encoding="utf-8")
    (git_repo / "mine").mkdir()
    (git_repo / "mine" / "draft.md").write_text("draft\n", encoding="utf-8")
    respond(plan, git_repo, "abort")
    proc = run_cli(*args, "--resume", cwd=git_repo)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert commits(git_repo) == ["add plan", "initial"]
    assert not (git_repo / "ledger").exists()
    assert (git_repo / "notes.txt").read_text("utf-8") == "my notes\n"
    assert (git_repo / "mine" / "draft.md").read_text("utf-8") == "draft\n"
