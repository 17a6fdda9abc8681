"""A whole bridge-mode session of the ledger example, held by the hooks alone.

The stand-in Claude Code (`hook_host.ClaudeCode`) runs the hook commands install-claude
wrote into `.claude/settings.json`, with the documented JSON on stdin, and the stand-in
model ends its turn after every tool call: only the Stop hook's reasons bring it back,
and only the hooks' text says what to run. The person answers `approve` to every
question the model puts. The session must end committed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from executor.resources import data_path
from tests.claude.hook_host import ClaudeCode, Model, Session, Step
from tests.conftest import git, run_cli

PLAN = "project-plans/ledger"

pytestmark = pytest.mark.slow


@pytest.fixture
def project(git_repo: Path) -> Path:
    shutil.copytree(data_path("plans", "examples", "ledger"), git_repo / PLAN)
    proc = run_cli("install-claude", "--plan", PLAN, cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "The ledger plan and Claude Code's files")
    return git_repo


def test_the_stop_hook_alone_carries_a_session_to_its_commit(project: Path) -> None:
    base = git(project, "rev-parse", "HEAD").strip()
    folder = project / PLAN
    claude = ClaudeCode(project)
    model = Model(claude)
    session = Session(claude, model)
    assert session.start.contexts == [] and session.start.errors == []  # nothing waits yet

    # The person types /execute-session 1; its command file has the model run this.
    first = claude.bash(f"executor execute-session 1 --plan {PLAN}")
    assert first.exit_code == 42
    turn = session.turn("/execute-session 1", Step("Ran the executor.", first))
    for _ in range(20):  # each turn ends on a question for the person, or on the commit
        if turn.question is None:
            break
        assert "Start session" in turn.question or "?" in turn.question
        turn = session.turn("approve", model.choose("approve"))
    else:
        pytest.fail("the session did not end in 20 turns")

    # Committed: one session commit, the run finished, nothing left waiting.
    subjects = git(project, "log", "--format=%s", f"{base}..HEAD").splitlines()
    assert len(subjects) == 1 and subjects[0].startswith("feat("), subjects
    status = json.loads(run_cli("status", "--plan", PLAN, "--json", cwd=project).stdout)
    assert status["phases"][0]["sessions"][0]["status"] == "completed"
    assert not (folder / ".agent-request.json").exists()
    assert not (folder / ".agent-hook.json").exists()  # our record goes with the request
    last = session.turns[-1]
    assert last.stops[-1].runs and last.stops[-1].runs[0].stdout == ""  # allowed, silently

    stops = [s for t in session.turns for s in t.stops]
    blocks = [s for s in stops if s.blocked]
    steps = [step for t in session.turns for step in t.steps]
    # The model never went on by itself: every step after a turn's first came from a block.
    assert len(steps) == len(session.turns) + len(blocks)
    assert all(len([s for s in t.stops if s.blocked]) < 8 for t in session.turns)
    # Each block named the exact command that answers and continues the run.
    respond = f"executor bridge respond --dir {folder} "
    assert all(respond in s.block_reasons[0] and "--resume`" in s.block_reasons[0] for s in blocks)
    agent_blocks = [s for s in blocks if "for the subagent `" in s.block_reasons[0]]
    assert len(agent_blocks) >= 2 * 2  # RED and GREEN at least, each: subagent, then respond
    assert all("Read the brief at " + str(folder / ".agent-briefs") in s.block_reasons[0]
               for s in agent_blocks)  # fmt: skip
    # Every question was put to the person, and the stop after it was let through.
    asked = [t for t in session.turns if t.question]
    assert asked and all(not t.stops[-1].blocked for t in asked)

    # After every executor call that exited 42, PostToolUseFailure (not PostToolUse) gave
    # the same next step beside the result.
    calls = [s.tool for s in steps if s.tool is not None and s.tool.command.startswith("executor")]
    waited = [c for c in calls if c.exit_code == 42]
    assert waited and all(c.post and c.post.event == "PostToolUseFailure" for c in waited)
    assert all(c.post and c.post.contexts and "plan-executor: the run in" in c.post.contexts[0]
               for c in waited)  # fmt: skip
    finished = [c for c in calls if c.exit_code == 0]
    assert finished and all(c.post and c.post.event == "PostToolUse" for c in finished)
    assert all(c.post and c.post.contexts == [] for c in finished)

    # The builder tried to commit once per step it did: the PreToolUse hook denied it each
    # time (the command never ran); its own test runs went through.
    tries = [c for c in model.subagent_calls if "git commit" in c.command]
    assert tries and all(c.exit_code is None and c.pre and c.pre.denials for c in tries)
    assert "does not run git commit" in tries[0].pre.denials[0]  # type: ignore[union-attr]
    assert all(c.exit_code == 0 for c in model.subagent_calls if c not in tries)
    # No hook failed, and none printed anything Claude Code could not read.
    assert all(not f.errors for f in claude.fired), [f.errors for f in claude.fired if f.errors]


def test_a_run_left_waiting_is_named_to_a_new_conversation_which_may_take_it_on(
    project: Path,
) -> None:
    first = ClaudeCode(project)
    ran = first.bash(f"executor execute-session 1 --plan {PLAN}")
    assert ran.exit_code == 42
    # Claude Code is closed here, with the question unanswered; a new conversation starts.
    claude = ClaudeCode(project)
    model = Model(claude)
    later = Session(claude, model)
    assert len(later.start.contexts) == 1
    context = later.start.contexts[0]
    assert "A plan-executor run of this repository was left waiting" in context
    assert "Start session 1: Ledger Models?" in context
    assert f"executor bridge respond --dir {project / PLAN} --response VALUE --resume" in context
    assert later.start.system_messages == [f"plan-executor: a run is waiting in {project / PLAN}."]
    # The person asks for something else: the run is not this conversation's loop, so
    # its stop is not held (nobody is made to run the plan).
    other = later.turn("what does README.md say?", Step("It says: # test repo"))
    assert [s.blocked for s in other.stops] == [False]
    # The person says "go on with it": the model acts on what SessionStart said, puts the
    # question, and from the answer's executor call on the Stop hook holds this loop.
    turn = later.turn("go on with the plan run", model.act(context))
    assert turn.question is not None and "Approve" in turn.question
    turn = later.turn("approve", model.choose("approve"))
    assert turn.stops[0].blocked  # the RED request, held for this conversation now
    assert "waiting for the subagent `backend-builder`" in turn.stops[0].block_reasons[0]
    assert turn.question is not None and "Implement (GREEN)?" in turn.question


def test_29_09_a_subagents_git_in_a_compound_command_never_runs(
    project: Path, tmp_path: Path
) -> None:
    """Issue 29, finding 9: git after `then`, `do`, `{` or in `find -exec` ran: Claude
    Code's `if: Bash(git *)` filter never started the guard for such a line, and the
    guard's list of forbidden subcommands missed `filter-branch`, `branch -f` and
    `worktree remove`. Each is denied before it runs; the remote and the branches stay."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(project, "remote", "add", "origin", str(remote))
    git(project, "branch", "executor/session-2")
    git(project, "worktree", "add", "-q", str(tmp_path / "wt"), "executor/session-2")
    claude = ClaudeCode(project)
    attempts = [
        "if true; then git push -q origin main; fi",
        "for r in origin; do git push -q $r main; done",
        "{ git commit -q --allow-empty -m wip; }",
        "find . -maxdepth 0 -exec git push -q origin main \\;",
        "git $(echo commit) -q --allow-empty -m wip",
        "git filter-branch -f --msg-filter cat HEAD",
        "git branch -f executor/session-2 HEAD~1",
        f"git worktree remove --force {tmp_path / 'wt'}",
    ]
    head = git(project, "rev-parse", "HEAD", "executor/session-2")
    for command in attempts:
        result = claude.bash(command, agent="backend-builder")
        assert result.exit_code is None, f"ran: {command}"
        assert result.pre is not None and result.pre.denials, command
        assert "backend-builder does not run" in result.pre.denials[0]
    assert git(remote, "rev-list", "--all") == ""
    assert git(project, "rev-parse", "HEAD", "executor/session-2") == head
    assert (tmp_path / "wt").is_dir()
    # What a builder reads with still runs, and the person's own git is theirs.
    reading = claude.bash("git status --short && git log --oneline -1", agent="backend-builder")
    assert reading.exit_code == 0
    assert claude.bash("if true; then git push -q origin main; fi").exit_code == 0
