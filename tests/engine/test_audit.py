"""The hostile audit (issue 9), item by item, through the real CLI.

Each test is named after the item it reproduces (`test_9_NN_...`); each failed on the
engine before the fix. Agents are the replay agent (or a small script in its place),
answers go through `executor bridge respond`, exactly as a host does.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests import forkserver
from tests.conftest import git, run_cli, terminate_when
from tests.engine.helpers import (
    commits,
    make_project,
    records,
    replay_cmd,
    respond,
    run_replay,
    session_state,
    solutions_copy,
)

pytestmark = pytest.mark.slow


def session(plan: Path, *extra: str, number: int = 1) -> list[str]:
    return ["execute-session", str(number), "--plan", str(plan), *extra]


def request(plan: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((plan / ".agent-request.json").read_text("utf-8"))
    return data


def hand_written(plan: Path, answer: str) -> None:
    """Answer the pending request the way a host that skips `bridge respond` does."""
    body = {"request_id": request(plan)["request_id"], "status": "success", "response": answer}
    (plan / ".agent-response.json").write_text(json.dumps(body), encoding="utf-8")


def reply_error(plan: Path, repo: Path) -> None:
    out = run_cli(
        "bridge", "respond", "--dir", str(plan), "--status", "error",
        "--error-type", "INVOCATION_FAILED", "--error-message", "the model is down", cwd=repo,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr


def replay_request(plan: Path, repo: Path, solutions: Path | None = None) -> None:
    """Do what the pending agent request asks with the replay agent, and answer it."""
    agent = run_replay(
        "--request", str(plan / ".agent-request.json"), "--repo", str(repo),
        *(["--solutions", str(solutions)] if solutions else []), cwd=repo,
    )  # fmt: skip
    assert agent.returncode == 0, agent.stderr
    assert respond(plan, repo, agent.stdout.strip() or "done").returncode == 0


def host(
    args: list[str], plan: Path, repo: Path, answers: list[str]
) -> subprocess.CompletedProcess[str]:
    """Run `args` as a host would: agents by the replay agent, people by `answers`."""
    cmd = list(args)
    for _ in range(40):
        proc = run_cli(*cmd, cwd=repo)
        if proc.returncode != 42:
            return proc
        if request(plan)["agent_name"] == "human":
            assert respond(plan, repo, answers.pop(0)).returncode == 0
        else:
            replay_request(plan, repo)
        if "--resume" not in cmd:
            cmd.append("--resume")
    raise AssertionError("the host loop did not end")


def test_9_01_every_escalation_choice_works_through_the_bridge(git_repo: Path) -> None:
    plan = make_project(git_repo)
    assert run_cli(*session(plan), cwd=git_repo).returncode == 42
    respond(plan, git_repo, "approve")
    for _ in range(3):
        assert run_cli(*session(plan, "--resume"), cwd=git_repo).returncode == 42
        assert request(plan)["agent_name"] == "backend-builder"
        reply_error(plan, git_repo)
    asked = run_cli(*session(plan, "--resume"), cwd=git_repo)
    assert asked.returncode == 42, asked.stderr
    question = request(plan)
    assert question["agent_name"] == "human"
    assert question["context"]["checkpoint"] == "escalation"
    assert [o["value"] for o in question["context"]["options"]][:1] == ["retry"]
    respond(plan, git_repo, "retry")
    again = run_cli(*session(plan, "--resume"), cwd=git_repo)
    assert again.returncode == 42, again.stderr  # not 64 "pending for another step"
    retry = request(plan)
    assert (retry["agent_name"], retry["context"]["attempt"]) == ("backend-builder", 2)
    assert len(session_state(plan, 1)["errors"]) == 3  # one line per failed answer


def test_9_02_a_pending_request_never_outlives_its_session(git_repo: Path) -> None:
    plan = make_project(git_repo)
    assert run_cli(*session(plan, "--yes"), cwd=git_repo).returncode == 42  # RED, bridge
    done = run_cli("resume-session", "1", "--plan", str(plan), "--yes", "--agent-command",
                   replay_cmd(), cwd=git_repo)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not (plan / ".agent-request.json").exists()
    assert session_state(plan, 1)["bridge"]["pending"] is None
    second = run_cli(*session(plan, "--yes", number=2), cwd=git_repo)  # saved options
    assert second.returncode == 0, second.stdout + second.stderr
    assert commits(git_repo)[0] == "feat(ledger): Balances"


def test_9_03_edits_made_while_waiting_are_never_committed_silently(git_repo: Path) -> None:
    plan = make_project(git_repo)
    args = session(plan, "--agent-command", replay_cmd())
    assert run_cli(*args, cwd=git_repo).returncode == 42  # before_start
    respond(plan, git_repo, "approve")
    assert run_cli(*args, "--resume", cwd=git_repo).returncode == 42  # after_red
    (git_repo / "README.md").write_text("# mine\n", encoding="utf-8")
    (git_repo / "notes.txt").write_text("my notes\n", encoding="utf-8")
    (git_repo / "ledger").mkdir()
    (git_repo / "ledger" / "scratch.py").write_text("x = 1\n", encoding="utf-8")
    respond(plan, git_repo, "approve")
    asked = run_cli(*args, "--resume", cwd=git_repo)
    assert asked.returncode == 42
    question = request(plan)["context"]
    assert "Files changed while session 1 waited" in question["question"]
    assert "notes.txt" in question["question"] and "ledger/scratch.py" in question["question"]
    respond(plan, git_repo, "show_diff")
    assert run_cli(*args, "--resume", cwd=git_repo).returncode == 42
    context = request(plan)["context"]
    diff = Path(context["detail_file"]).read_text("utf-8") if "detail_file" in context else ""
    diff = context["detail"] + diff
    assert "+my notes" in diff and "+x = 1" in diff  # their files, not the agent's tests
    assert "test_models.py" not in diff
    respond(plan, git_repo, "keep_out")
    shown = []  # what each later checkpoint showed: the person's files are not in it
    while (proc := run_cli(*args, "--resume", cwd=git_repo)).returncode == 42:
        context = request(plan)["context"]
        more = Path(context["detail_file"]).read_text("utf-8") if "detail_file" in context else ""
        shown.append(context["detail"] + more)
        respond(plan, git_repo, "approve")
    assert proc.returncode == 0, proc.stderr
    preview = next(text for text in shown if "The commit message will be" in text)
    message = git(git_repo, "log", "-1", "--format=%B").strip()
    assert message in preview  # the exact message, its trailers too
    assert "Agent-Step: session-1" in message
    assert not any("notes.txt" in text or "scratch.py" in text for text in shown)
    committed = git(git_repo, "show", "--name-only", "--format=", "HEAD").split()
    assert "README.md" not in committed and "notes.txt" not in committed
    assert "ledger/scratch.py" not in committed and "ledger/models.py" in committed
    assert (git_repo / "notes.txt").read_text("utf-8") == "my notes\n"  # never lost
    assert "notes.txt" in git(git_repo, "status", "--porcelain")


def _complete_session_1(plan: Path, repo: Path) -> None:
    """Session 1 committed; the run waits at session_complete (a host in bridge mode)."""
    args = ["execute-plan", "--plan", str(plan), "--checkpoints", "session",
            "--agent-command", replay_cmd()]  # fmt: skip
    proc = run_cli(*args, cwd=repo)
    assert proc.returncode == 42, proc.stderr
    assert request(plan)["context"]["checkpoint"] == "session_complete"


def test_9_04_abort_never_drops_a_pushed_commit(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    _complete_session_1(plan, git_repo)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(git_repo, "remote", "add", "origin", str(remote))
    git(git_repo, "push", "-q", "origin", "main")
    head = git(git_repo, "rev-parse", "HEAD").strip()
    respond(plan, git_repo, "abort")
    refused = run_cli("execute-plan", "--plan", str(plan), "--resume", cwd=git_repo)
    assert refused.returncode == 42, refused.stderr  # the same question again, with why
    assert "already on a remote branch (pushed)" in refused.stdout
    context = request(plan)["context"]
    assert context["checkpoint"] == "session_complete"
    assert f"git revert {head}" in context["detail"]
    assert git(git_repo, "rev-parse", "HEAD").strip() == head
    assert not (plan / ".agent-response.json").exists()  # the answer was used, not left
    respond(plan, git_repo, "approve")  # the run goes on from the same question
    assert run_cli("execute-plan", "--plan", str(plan), "--resume", cwd=git_repo).returncode == 42
    following = request(plan)["context"]
    assert (following["checkpoint"], following["session"]) == ("session_complete", 2)


def test_9_04_abort_of_our_local_commit_backs_up_and_says_how_to_restore(
    git_repo: Path,
) -> None:
    plan = make_project(git_repo)
    _complete_session_1(plan, git_repo)
    respond(plan, git_repo, "abort")
    aborted = run_cli("execute-plan", "--plan", str(plan), "--resume", cwd=git_repo)
    assert aborted.returncode == 1, aborted.stderr
    assert commits(git_repo)[0] == "add plan"
    ref = aborted.stderr.split("saved in ")[1].split(".")[0].strip()
    assert f"git checkout {ref} -- ." in aborted.stderr
    assert "ledger/models.py" in git(git_repo, "ls-tree", "-r", "--name-only", ref)


def test_9_05_disk_full_during_the_commit_is_a_storage_error(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    real = shutil.which("git")
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text(
        '#!/bin/sh\nfor a in "$@"; do if [ "$a" = commit-tree ]; then\n'
        "echo 'error: unable to write file: No space left on device' >&2; exit 128; fi; done\n"
        f'exec {real} "$@"\n',
        encoding="utf-8",
    )
    fake.chmod(0o755)
    env = {"PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}",
           "GIT_PYTHON_GIT_EXECUTABLE": str(fake)}  # fmt: skip
    proc = run_cli(*session(plan, "--yes", "--agent-command", replay_cmd()), cwd=git_repo, env=env)
    assert proc.returncode == 14, proc.stdout + proc.stderr
    assert "No space left on device" in proc.stderr
    assert session_state(plan, 1)["step"] == "commit"
    assert run_cli(*session(plan, "--yes"), cwd=git_repo).returncode == 0  # space is back


def test_9_05_sigterm_while_a_grandchild_holds_stdout_is_interrupted(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    for i in range(3):
        started = tmp_path / f"agent-started-{i}"
        agent = f"{shlex.quote(sys.executable)} -c " + shlex.quote(
            "import pathlib, subprocess, time; subprocess.Popen(['sleep', '30']); "
            f"pathlib.Path({str(started)!r}).touch(); time.sleep(30)"
        )
        proc = terminate_when(started, *session(plan, "--yes", "--agent-command", agent),
                              cwd=git_repo)  # fmt: skip
        assert proc.returncode == 130, proc.stderr
        assert "No such process" not in proc.stderr


def test_9_06_plan_drift_offers_choices_that_work(git_repo: Path) -> None:
    plan = make_project(git_repo)
    args = session(plan, "--agent-command", replay_cmd())
    assert run_cli(*args, cwd=git_repo).returncode == 42  # before_start
    respond(plan, git_repo, "approve")
    assert run_cli(*args, "--resume", cwd=git_repo).returncode == 42  # after_red
    phase1 = next(plan.glob("PHASE_1_*.md"))
    original = phase1.read_text("utf-8")
    phase1.write_text(original.replace("Create the `ledger` package", "Create `books`"), "utf-8")
    asked = run_cli(*args, "--resume", cwd=git_repo)
    assert asked.returncode == 42, asked.stderr  # a question, not exit 13
    question = request(plan)["context"]
    assert "changed since the session started" in question["question"]
    assert [o["value"] for o in question["options"]] == ["use_new", "keep_old", "skip", "pause"]
    respond(plan, git_repo, "keep_old")
    kept = run_cli(*args, "--resume", cwd=git_repo)
    assert kept.returncode == 42, kept.stderr
    assert phase1.read_text("utf-8") == original
    assert request(plan)["context"]["checkpoint"] == "after_red"
    assert "refs/executor/backup/plan-edit-session-1" in kept.stdout + kept.stderr


def test_9_06a_before_anything_was_done_the_new_text_is_taken(git_repo: Path) -> None:
    plan = make_project(git_repo)
    args = session(plan, "--agent-command", replay_cmd())
    assert run_cli(*args, cwd=git_repo).returncode == 42  # before_start
    phase1 = next(plan.glob("PHASE_1_*.md"))
    text = phase1.read_text("utf-8")
    phase1.write_text(text.replace("Test an entry needs", "Test that an entry needs"), "utf-8")
    respond(plan, git_repo, "approve")
    taken = run_cli(*args, "--resume", cwd=git_repo)
    assert taken.returncode == 42, taken.stderr
    assert request(plan)["context"]["checkpoint"] == "after_red"  # no question about it
    assert "nothing was done with the old text yet: session 1 goes on with the plan's new " in (
        taken.stdout
    )


def test_9_06b_under_yes_a_fix_to_the_plans_command_is_taken(git_repo: Path) -> None:
    """`--yes` (CI) stopped at a wrong command in the plan, the person fixes that line and
    runs the same command again: the fix is taken, not refused as drift twice."""
    plan = make_project(git_repo)
    phase1 = next(plan.glob("PHASE_1_*.md"))
    right = "`pytest tests/test_models.py`"
    phase1.write_text(phase1.read_text("utf-8").replace(right, "`pytest tests/test_modelz.py`"))
    git(git_repo, "commit", "-qam", "a plan with a wrong command")
    args = session(plan, "--yes", "--agent-command", replay_cmd())
    stopped = run_cli(*args, cwd=git_repo)
    assert stopped.returncode == 16, stopped.stderr  # RED ran no tests: not RED
    phase1.write_text(phase1.read_text("utf-8").replace("`pytest tests/test_modelz.py`", right))
    done = run_cli(*args, cwd=git_repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "nobody to ask (--yes): session 1 goes on with the plan's new text" in done.stdout
    assert "Tests (measured by the executor): 12 passing of 12" in git(git_repo, "log", "-1")


def test_9_07_an_agent_may_not_rewrite_the_plan(git_repo: Path, tmp_path: Path) -> None:
    plan = make_project(git_repo)
    sol = solutions_copy(tmp_path)
    phase1 = next(plan.glob("PHASE_1_*.md"))
    original = phase1.read_text("utf-8")
    target = sol / "session-1" / "green" / phase1.relative_to(git_repo)
    target.parent.mkdir(parents=True)
    outside = tmp_path / "pwned"
    target.write_text(
        original.replace("`pytest tests/test_balance.py`", f"`touch {outside}`"), "utf-8"
    )
    proc = run_cli(*session(plan, "--yes", "--max-retries", "0", "--agent-command",
                            replay_cmd(sol)), cwd=git_repo)  # fmt: skip
    assert proc.returncode == 16, proc.stdout + proc.stderr
    assert "the agent changed the plan" in proc.stderr
    assert phase1.read_text("utf-8") == original
    assert len(commits(git_repo)) == 2 and not outside.exists()


def test_9_08_a_conftest_that_passes_everything_is_tampering(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    sol = solutions_copy(tmp_path)
    green = sol / "session-1" / "green"
    (green / "ledger" / "models.py").write_text("def broken():\n    pass\n", "utf-8")
    (green / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n    report = outcome.get_result()\n"
        "    report.outcome = 'passed'\n",
        encoding="utf-8",
    )
    proc = run_cli(*session(plan, "--yes", "--max-retries", "0", "--agent-command",
                            replay_cmd(sol)), cwd=git_repo)  # fmt: skip
    assert proc.returncode == 16, proc.stdout + proc.stderr
    assert "test infrastructure changed during GREEN" in proc.stderr
    assert "conftest.py (added)" in proc.stderr
    assert len(commits(git_repo)) == 2


def test_9_08_code_under_test_that_patches_pytest_is_tampering(
    git_repo: Path, tmp_path: Path
) -> None:
    """No conftest.py: the product package itself rewrites pytest's reports on import."""
    plan = make_project(git_repo)
    sol = solutions_copy(tmp_path)
    green = sol / "session-1" / "green"
    names = ["LedgerError", "UnbalancedEntryError", "AccountKind", "Account", "Posting", "Entry"]
    # every name the tests import, doing nothing: the tests fail...
    stubs = "".join(f"class {n}(Exception):\n    pass\n\n\n" for n in names)
    (green / "ledger" / "models.py").write_text(stubs + "def to_money(v):\n    pass\n", "utf-8")
    (green / "ledger" / "__init__.py").write_text(  # ...but every report says "passed"
        "import _pytest.reports as r\n\n_real = r.TestReport.from_item_and_call\n\n\n"
        "def _always(item, call):\n    report = _real(item, call)\n"
        "    report.outcome = 'passed'\n    return report\n\n\n"
        "r.TestReport.from_item_and_call = staticmethod(_always)\n",
        encoding="utf-8",
    )
    proc = run_cli(*session(plan, "--yes", "--max-retries", "0", "--agent-command",
                            replay_cmd(sol)), cwd=git_repo)  # fmt: skip
    assert proc.returncode == 16, proc.stdout + proc.stderr
    assert "reaches into the test runner" in proc.stderr and "ledger/__init__.py" in proc.stderr
    assert len(commits(git_repo)) == 2  # nothing committed


def test_9_09_an_agents_own_commits_are_folded_into_one(git_repo: Path) -> None:
    plan = make_project(git_repo)
    agent = shlex.join(["sh", "-c", f"{replay_cmd()} && git add -A && git commit -qm agent"])
    proc = run_cli(*session(plan, "--yes", "--agent-command", agent), cwd=git_repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "folded back into the worktree" in proc.stdout
    assert commits(git_repo) == ["feat(ledger): Ledger Models", "add plan", "initial"]


def test_9_09_hooks_an_agent_writes_into_git_never_run_on_our_commit(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    marker = tmp_path / "hook-ran"
    hook = f'#!/bin/sh\ntouch {shlex.quote(str(marker))}\necho hijacked > "$1"\n'
    install = "; ".join(
        f"printf %s {shlex.quote(hook)} > .git/hooks/{name} && chmod +x .git/hooks/{name}"
        for name in ("prepare-commit-msg", "post-commit", "reference-transaction")
    )
    agent = shlex.join(["sh", "-c", f"{replay_cmd()} && {install}"])
    proc = run_cli(*session(plan, "--yes", "--agent-command", agent), cwd=git_repo)
    assert not marker.exists()
    # git's own files are the run's pin: the hooks are put back, the step fails (issue 43)
    assert proc.returncode == 16, proc.stdout + proc.stderr
    assert ".git/hooks/post-commit (added)" in proc.stderr
    assert not (git_repo / ".git" / "hooks" / "post-commit").exists()
    assert commits(git_repo)[0] == "add plan"


def test_9_10_oversized_answers_are_rejected_and_moved_aside(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    assert run_cli(*session(plan), cwd=git_repo).returncode == 42
    before = (plan / ".agent-state.json").read_bytes()
    big = tmp_path / "big.txt"  # outside the repository: not a person's edit of it
    big.write_text("x" * 1_100_000, encoding="utf-8")
    refused = run_cli("bridge", "respond", "--dir", str(plan), "--status", "success",
                      "--response-file", str(big), cwd=git_repo)  # fmt: skip
    assert refused.returncode == 64 and "over 1000000 bytes" in refused.stderr
    rid = request(plan)["request_id"]
    (plan / ".agent-response.json").write_text(
        json.dumps({"request_id": rid, "status": "success", "response": "x" * 1_100_000}),
        encoding="utf-8",
    )
    proc = run_cli(*session(plan, "--resume"), cwd=git_repo)
    assert proc.returncode == 10 and "over the 1000000-byte limit" in proc.stderr
    assert (plan / ".agent-state.json").read_bytes() == before
    feedback = json.dumps({"decision": "request_changes", "feedback": "y" * 70_000})
    refused = respond(plan, git_repo, feedback)
    assert refused.returncode == 10 and "the feedback is over 64 KB" in refused.stderr
    assert not (plan / ".agent-response.json").exists()
    hand_written(plan, feedback)  # a host that writes the file itself
    proc = run_cli(*session(plan, "--resume"), cwd=git_repo)
    assert proc.returncode == 10 and "the feedback is over 64 KB" in proc.stderr, proc.stderr
    assert (plan / ".agent-state.json").read_bytes() == before
    assert len(list(plan.glob(".agent-response.json.rejected-*"))) == 2


def test_9_11_an_answer_that_is_no_option_is_moved_aside(git_repo: Path) -> None:
    plan = make_project(git_repo)
    assert run_cli(*session(plan), cwd=git_repo).returncode == 42
    refused = respond(plan, git_repo, "rm -rf /")
    assert refused.returncode == 10 and "is not one of the options" in refused.stderr
    hand_written(plan, "rm -rf /")  # a host that writes the file itself
    bad = run_cli(*session(plan, "--resume"), cwd=git_repo)
    assert bad.returncode == 10 and "is not one of the options" in bad.stderr
    again = run_cli(*session(plan, "--resume"), cwd=git_repo)
    assert again.returncode == 42, again.stderr  # asked again, not rejected forever


def test_9_12_a_fifo_answer_and_symlinked_briefs_are_refused(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    assert run_cli(*session(plan), cwd=git_repo).returncode == 42
    os.mkfifo(plan / ".agent-response.json")
    proc = run_cli(*session(plan, "--resume"), cwd=git_repo, timeout=20)
    assert proc.returncode == 10 and "not a regular file" in proc.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (plan / ".agent-briefs").symlink_to(elsewhere)
    respond(plan, git_repo, "approve")
    proc = run_cli(*session(plan, "--resume", "--agent-command", replay_cmd()), cwd=git_repo)
    assert proc.returncode == 14 and "symlink" in proc.stderr
    assert list(elsewhere.iterdir()) == []


def test_9_13_only_our_own_dead_temp_files_are_swept(git_repo: Path) -> None:
    plan = make_project(git_repo)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    mine = plan / ".draft.4000000.tmp"
    mine.write_text("a person's draft\n", encoding="utf-8")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "a draft")
    (plan / ".agent-briefs").mkdir()
    orphan = plan / ".agent-briefs" / f".agent-tmp-{dead.pid}-s1.red.a1.f0.md"
    orphan.write_text("torn", encoding="utf-8")
    assert run_cli(*session(plan), cwd=git_repo).returncode == 42
    assert mine.read_text("utf-8") == "a person's draft\n" and not orphan.exists()


def test_9_14_a_changed_brief_is_a_new_request_and_re_entry_adds_no_lines(
    git_repo: Path,
) -> None:
    plan = make_project(git_repo)
    assert run_cli(*session(plan), cwd=git_repo).returncode == 42
    respond(plan, git_repo, "approve")
    assert run_cli(*session(plan, "--resume"), cwd=git_repo).returncode == 42  # RED
    replay_request(plan, git_repo)
    assert run_cli(*session(plan, "--resume"), cwd=git_repo).returncode == 42  # after_red
    respond(plan, git_repo, "approve")
    assert run_cli(*session(plan, "--resume"), cwd=git_repo).returncode == 42  # GREEN
    first = request(plan)["request_id"]
    changed = run_cli(*session(plan, "--test-command", "python -m pytest -q"), cwd=git_repo)
    assert changed.returncode == 42
    second = request(plan)["request_id"]
    assert second != first
    (plan / ".agent-response.json").write_text(
        json.dumps({"request_id": first, "status": "success", "response": "late"}), "utf-8"
    )
    stale = run_cli(*session(plan, "--resume"), cwd=git_repo)
    assert stale.returncode == 10 and "stale or foreign" in stale.stderr
    for _ in range(3):
        reply_error(plan, git_repo)
        run_cli(*session(plan, "--resume"), cwd=git_repo)
    errors = session_state(plan, 1)["errors"]
    for _ in range(2):  # the escalation question, re-entered without an answer
        assert run_cli(*session(plan, "--resume"), cwd=git_repo).returncode == 42
    assert session_state(plan, 1)["errors"] == errors and len(errors) == 3


def test_9_15_the_request_carries_the_steps_attempt(git_repo: Path, tmp_path: Path) -> None:
    """...and the checkpoint after "request changes" says what the new attempt changed
    against what the person saw when they asked (or that it changed nothing)."""
    sol = solutions_copy(tmp_path)
    red = sol / "session-1" / "red" / "tests" / "test_models.py"
    for attempt in (2, 3):  # attempt 2 adds a test; attempt 3 writes the same again
        again = sol / "session-1" / f"red@{attempt}" / "tests" / "test_models.py"
        again.parent.mkdir(parents=True)
        again.write_text(red.read_text("utf-8") + "\n\ndef test_more():\n    assert 0\n")
    plan = make_project(git_repo)
    args = session(plan, "--agent-command", replay_cmd(sol))
    assert run_cli(*args, cwd=git_repo).returncode == 42
    respond(plan, git_repo, "approve")
    assert run_cli(*args, "--resume", cwd=git_repo).returncode == 42  # after_red
    respond(plan, git_repo, json.dumps({"decision": "request_changes", "feedback": "more"}))
    assert run_cli(*args, "--resume", cwd=git_repo).returncode == 42
    brief = sorted((plan / ".agent-briefs").glob("s1.red.a2*.md"))
    assert brief and "more" in brief[0].read_text("utf-8")
    assert session_state(plan, 1)["attempt"] == 2
    detail = json.loads((plan / ".agent-request.json").read_text("utf-8"))["context"]["detail"]
    assert detail.startswith(
        "Attempt 2 changed since you asked for changes: tests/test_models.py\n\nRED verified"
    )
    respond(plan, git_repo, json.dumps({"decision": "request_changes", "feedback": "again"}))
    assert run_cli(*args, "--resume", cwd=git_repo).returncode == 42
    detail = json.loads((plan / ".agent-request.json").read_text("utf-8"))["context"]["detail"]
    assert detail.startswith(
        "Attempt 3 changed nothing since you asked for changes: the files are as you saw them then."
    )


def test_9_16_unusable_agent_commands_are_usage_errors_and_nothing_is_left(
    git_repo: Path,
) -> None:
    plan = make_project(git_repo)
    for bad in ("", "foo 'bar"):
        proc = run_cli(*session(plan, "--agent-command", bad), cwd=git_repo)
        assert proc.returncode == 64, proc.stderr
        assert "--agent-command" in proc.stderr
    assert run_cli(*session(plan, "--resume"), cwd=git_repo).returncode == 21
    assert git(git_repo, "status", "--porcelain") == ""


def test_9_17_printed_commands_quote_paths_with_spaces(tmp_path: Path) -> None:
    repo = tmp_path / "my repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("# r\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    plan = make_project(repo)
    proc = run_cli(*session(plan), cwd=repo)
    assert proc.returncode == 42
    assert f"--dir {shlex.quote(str(plan))}" in proc.stderr
    assert f"--plan {shlex.quote(str(plan))}" in proc.stderr
    assert session_state(plan, 1)["step"] == "before_start"


def test_a_plan_kept_in_the_repository_root_protects_only_its_plan_files(
    git_repo: Path,
) -> None:
    """With PHASE files at the top of the repository, the agent's code and tests are not
    "the plan": they are kept and committed (they were deleted as tampering)."""
    plan = make_project(git_repo)
    for md in plan.glob("*.md"):
        shutil.move(md, git_repo / md.name)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "plan at the top")
    proc = run_cli(*session(git_repo, "--yes", "--agent-command", replay_cmd()), cwd=git_repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert commits(git_repo)[0] == "feat(ledger): Ledger Models"
    assert (git_repo / "tests" / "test_models.py").is_file()


def test_two_plans_in_one_folder_never_share_a_run(git_repo: Path) -> None:
    """A folder keeps one plan's run: a second plan file beside it is refused (it
    "completed" without running, reporting the first plan's sessions)."""
    plan = make_project(git_repo)
    first = run_cli(*session(plan, "--yes", "--agent-command", replay_cmd()), cwd=git_repo)
    assert first.returncode == 0, first.stdout + first.stderr
    other = plan / "2026-01-01-other.md"
    other.write_text(
        "# Other Plan\n\n### Task 1: Thing\n\n**Files:**\n- Create: `x.py`\n\n"
        "- [ ] **Step 1: Write the failing test**\n\n- [ ] **Step 2: Implement**\n",
        "utf-8",
    )
    for args in (["execute-plan", "--yes"], ["status"]):
        proc = run_cli(*args, "--plan", str(other), cwd=git_repo)
        assert proc.returncode == 64, proc.stdout + proc.stderr
        assert "holds the run of another plan" in proc.stderr, proc.stderr
    same = run_cli("status", "--plan", str(plan), cwd=git_repo)
    assert same.returncode == 0, same.stderr
    # a copy of the folder, its run files with it: the advice names what to remove
    other.unlink()
    copy = plan.parent / "ledger-copy"
    shutil.copytree(plan, copy)
    refused = run_cli("status", "--plan", str(copy), cwd=git_repo)
    assert refused.returncode == 64, refused.stdout + refused.stderr
    assert f"{copy} looks like a copy made with its run files" in refused.stderr
    remove = refused.stderr.split("remove them: ", 1)[1].split(" (the run of", 1)[0]
    assert remove.startswith("rm -rf ") and str(copy / ".agent-state.json") in remove
    assert subprocess.run(remove, shell=True, cwd=git_repo).returncode == 0
    assert run_cli("status", "--plan", str(copy), cwd=git_repo).returncode == 0
    assert (plan / ".agent-state.json").exists()  # the original's run is left alone


def test_no_git_identity_is_said_before_any_work(git_repo: Path, tmp_path: Path) -> None:
    """Not an internal error at the commit, after the agent and the tests did their work."""
    plan = make_project(git_repo)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_AUTHOR", "GIT_COMMI"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home), GIT_CONFIG_NOSYSTEM="1")
    argv = [sys.executable, "-m", "executor", *session(plan, "--yes", "--agent-command",
                                                       replay_cmd())]  # fmt: skip
    proc = forkserver.run_process(argv, cwd=git_repo, env=env, capture_output=True, text=True)
    assert proc.returncode == 64, proc.stdout + proc.stderr
    assert "git does not know who is committing" in proc.stderr
    assert "asking" not in proc.stdout  # no agent was called
    git(git_repo, "config", "user.name", "T")
    git(git_repo, "config", "user.email", "t@example.invalid")
    proc = forkserver.run_process(argv, cwd=git_repo, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_an_agent_that_rewrites_the_executors_own_files_is_tampering(
    git_repo: Path, tmp_path: Path
) -> None:
    """A command agent runs while the executor holds the run: a state it forges (a later
    session marked done) or a plan cache it edits is put back, and its step fails; the
    re-run the old message asked for used to trust the forged state."""
    plan = make_project(git_repo)
    forge = tmp_path / "forge.py"
    forge.write_text(
        "import json, pathlib, sys\n"
        "plan = pathlib.Path(sys.argv[1])\n"
        "state = plan / '.agent-state.json'\n"
        "data = json.loads(state.read_text())\n"
        "data['run']['sessions']['2'] = {'step': 'done', 'commit_hash': 'f' * 40}\n"
        "state.write_text(json.dumps(data))\n"
        "cache = plan / '.agent-plan-cache.json'\n"
        "cache.write_text(cache.read_text().replace('Balances', 'Forged'))\n",
        "utf-8",
    )
    agent = shlex.join(
        ["sh", "-c", f"{replay_cmd()} && {shlex.quote(sys.executable)} {forge} {plan}"]
    )
    proc = run_cli(*session(plan, "--yes", "--max-retries", "0", "--agent-command", agent),
                   cwd=git_repo)  # fmt: skip
    assert proc.returncode == 16, proc.stdout + proc.stderr
    assert "the agent changed the executor's own files (.agent-state.json" in proc.stderr
    assert "2" not in records(plan)
    assert not (plan / ".agent-plan-cache.json").exists() or "Forged" not in (
        plan / ".agent-plan-cache.json"
    ).read_text("utf-8")


def _hostile(act: str) -> str:
    """The replay agent, then `act` (shell) in its GREEN step only."""
    script = f'{replay_cmd()} && if [ "$EXECUTOR_TDD_STEP" = green ]; then {act}; fi'
    return shlex.join(["sh", "-c", script])


def test_code_git_ignores_cannot_make_tests_pass(git_repo: Path) -> None:
    """Code hidden from git (here by .git/info/exclude) is used by the tests but never
    committed: the commit would hold code that fails its own tests."""
    plan = make_project(git_repo)
    act = "echo hidden_helper.py >> .git/info/exclude && echo 'X = 1' > hidden_helper.py"
    proc = run_cli(*session(plan, "--yes", "--max-retries", "0", "--agent-command",
                            _hostile(act)), cwd=git_repo)  # fmt: skip
    assert proc.returncode == 16, proc.stdout + proc.stderr
    assert "code or test configuration git ignores appeared" in proc.stderr
    assert "hidden_helper.py" in proc.stderr
    assert commits(git_repo)[0] == "add plan"


def test_a_later_session_may_not_delete_earlier_sessions_tests(git_repo: Path) -> None:
    plan = make_project(git_repo)
    first = run_cli(*session(plan, "--yes", "--agent-command", replay_cmd()), cwd=git_repo)
    assert first.returncode == 0, first.stdout + first.stderr
    proc = run_cli(*session(plan, "--yes", "--max-retries", "0", "--agent-command",
                            _hostile("rm tests/test_models.py"), number=2),
                   cwd=git_repo)  # fmt: skip
    assert proc.returncode == 16, proc.stdout + proc.stderr
    assert "tests that passed when earlier sessions were committed are gone" in proc.stderr
    assert "tests.test_models::test_account_has_name_and_kind" in proc.stderr
    assert commits(git_repo)[0] == "feat(ledger): Ledger Models"


def test_a_pyc_git_ignores_cannot_stand_in_for_its_source(git_repo: Path, tmp_path: Path) -> None:
    """REFACTOR compiles the good module into an unchecked .pyc in __pycache__ (ignored
    by the project's .gitignore), then breaks the source: the tests must see the source."""
    plan = make_project(git_repo)
    swap = tmp_path / "swap.py"
    swap.write_text(
        "import importlib.util, py_compile, sys\n"
        "src = 'ledger/models.py'\n"
        "if __import__('os').environ.get('EXECUTOR_TDD_STEP') == 'refactor':\n"
        "    py_compile.compile(src, cfile=importlib.util.cache_from_source(src),\n"
        "        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)\n"
        "    open(src, 'w').write('raise RuntimeError(\"broken\")\\n')\n",
        "utf-8",
    )
    agent = shlex.join(["sh", "-c", f"{replay_cmd()} && {shlex.quote(sys.executable)} {swap}"])
    proc = run_cli(*session(plan, "--yes", "--max-retries", "0", "--agent-command", agent),
                   cwd=git_repo)  # fmt: skip
    assert proc.returncode == 16, proc.stdout + proc.stderr
    assert "REFACTOR" in proc.stderr
    assert commits(git_repo)[0] == "add plan"


def test_an_fsmonitor_an_agent_configures_never_runs_in_our_git_calls(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = make_project(git_repo)
    marker = tmp_path / "fsmonitor-ran"
    act = f"git config core.fsmonitor {shlex.quote(f'touch {marker}; true')}"
    config = (git_repo / ".git" / "config").read_bytes()
    proc = run_cli(*session(plan, "--yes", "--agent-command", _hostile(act)), cwd=git_repo)
    assert not marker.exists()
    # git's own files are the run's pin: put back, and the step fails (issue 43)
    assert proc.returncode == 16, proc.stdout + proc.stderr
    assert ".git/config (changed); they were put back" in proc.stderr
    assert (git_repo / ".git" / "config").read_bytes() == config


def test_what_an_agent_leaves_running_is_stopped_with_its_step(git_repo: Path) -> None:
    """A process the agent leaves behind would edit files after the checks (here: a
    line appended to the module 2 s later, after the session's commit)."""
    plan = make_project(git_repo)
    act = shlex.join(["sh", "-c", "(sleep 2; echo '# late' >> ledger/models.py) >/dev/null 2>&1 &"])
    proc = run_cli(*session(plan, "--yes", "--agent-command", _hostile(act)), cwd=git_repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    time.sleep(3)
    assert git(git_repo, "status", "--porcelain") == ""
    assert "# late" not in (git_repo / "ledger" / "models.py").read_text("utf-8")
