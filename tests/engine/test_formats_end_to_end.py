"""A superpowers plan and a spec-kit tasks.md, each run end to end by the real CLI with
the replay agent (real git, real pytest); ticks are re-proven before a session is
adopted, and the executor ticks the boxes of the sessions it completes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, git, run_cli
from tests.engine.helpers import commits, records

pytestmark = pytest.mark.slow


def project(repo: Path, name: str) -> Path:
    """The example plan `name` committed in `repo`; returns the plan folder."""
    plan = repo / "plans" / name
    shutil.copytree(REPO_ROOT / "plans" / "examples" / name, plan)
    (repo / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"add the {name} plan")
    return plan


def execute_plan(repo: Path, plan: Path, name: str) -> None:
    solutions = REPO_ROOT / "plans" / "replay" / name
    proc = run_cli("execute-plan", "--plan", str(plan), "--agent", "replay", "--solutions",
                   str(solutions), "--yes", cwd=repo, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_superpowers_plan_runs_end_to_end_and_its_boxes_are_ticked(git_repo: Path) -> None:
    """...and, run again from its ticks alone, its sessions are adopted only while their
    tests pass (one plan run serves both: it is the costly part)."""
    plan = project(git_repo, "textstats")
    source = next(plan.glob("*.md"))

    def open_boxes() -> int:
        return sum(ln.lstrip().startswith("- [ ]") for ln in source.read_text("utf-8").split("\n"))

    assert open_boxes() > 0
    execute_plan(git_repo, plan, "textstats")
    subjects = commits(git_repo)
    assert len(subjects) == 4 and all(s.startswith("feat(") for s in subjects[:2])
    assert open_boxes() == 0  # every step of both tasks ticked
    ticked_in = git(git_repo, "show", "--name-only", "--format=", "HEAD~1").split()
    assert source.relative_to(git_repo).as_posix() in ticked_in  # in the session's commit
    assert git(git_repo, "status", "--porcelain") == ""
    ticked_sessions_are_adopted_only_when_their_tests_pass(git_repo, plan)


def test_a_spec_kit_tasks_file_runs_end_to_end(git_repo: Path) -> None:
    plan = project(git_repo, "pantry")
    execute_plan(git_repo, plan, "pantry")
    found = records(plan)
    assert [found[str(n)]["step"] for n in (1, 2, 3)] == ["done"] * 3
    setup = [c["step"] for c in found["1"]["agent_calls"]]
    assert setup == ["green_agent"]  # a phase with no test tasks: one implement step
    assert len(commits(git_repo)) == 5


def ticked_sessions_are_adopted_only_when_their_tests_pass(git_repo: Path, plan: Path) -> None:
    """The textstats plan run to its end in `git_repo`: a new run adopts its ticked
    sessions when their tests pass, and runs one whose tests fail."""
    done = commits(git_repo)
    (plan / ".agent-state.json").unlink()  # a new run: only the ticks tell what was done
    execute_plan(git_repo, plan, "textstats")
    found = records(plan)
    assert [found[n]["adopted"] for n in ("1", "2")] == [True, True]
    assert found["1"]["agent_calls"] == [] and commits(git_repo) == done
    # a claim the code does not back: the tests fail, so the session is run, not adopted
    (plan / ".agent-state.json").unlink()
    words = git_repo / "textstats" / "words.py"
    words.write_text("BROKEN = (\n", encoding="utf-8")
    git(git_repo, "commit", "-qam", "break it")
    solutions = REPO_ROOT / "plans" / "replay" / "textstats"
    proc = run_cli("execute-session", "1", "--plan", str(plan), "--agent", "replay",
                   "--solutions", str(solutions), "--yes", cwd=git_repo, timeout=300)  # fmt: skip
    assert "ticked as done in the plan, but its tests do not pass" in proc.stdout
    found = records(plan)
    assert found["1"]["adopted"] is False and found["1"]["agent_calls"]


def _configured(repo: Path) -> None:
    """Kiro and Task Master plans name no test command: the project's config does."""
    (repo / ".executor.toml").write_text('test_command = "python -m pytest -q"\n', "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the project's test command")


def test_a_kiro_spec_runs_end_to_end_and_is_ticked(git_repo: Path) -> None:
    """Tasks in order, the optional one left out, the checkpoint a question with no
    agent (approved here by --yes); each box ticked in the session's own commit."""
    project(git_repo, "reminders")
    _configured(git_repo)
    spec = git_repo / "plans" / "reminders" / ".kiro" / "specs" / "reminders"
    solutions = REPO_ROOT / "plans" / "replay" / "reminders"
    proc = run_cli("execute-plan", "--plan", str(spec), "--agent", "replay", "--solutions",
                   str(solutions), "--yes", cwd=git_repo, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "a checkpoint of the plan: no agent" in proc.stdout
    found = records(spec)
    assert sorted(found) == ["1", "2", "4"]  # 3 is optional: not run
    assert [c["step"] for c in found["4"]["agent_calls"]] == []  # the checkpoint: no agent
    tasks = (spec / "tasks.md").read_text("utf-8")
    assert "- [x] 1. Reminder model" in tasks and "- [x] 2.1 Write unit tests" in tasks
    assert "- [ ]* 2.2" in tasks  # the optional task stays open
    assert "- [x] 3. Checkpoint" in tasks
    assert len(commits(git_repo)) == 3 + 3  # initial, plan, config; three sessions
    ticked = git(git_repo, "show", "--name-only", "--format=", "HEAD").split()
    assert ticked == ["plans/reminders/.kiro/specs/reminders/tasks.md"]  # the checkpoint's
    brief = next((spec / ".agent-briefs").glob("s1.*.md")).read_text("utf-8")
    assert "requirements.md" in brief and "design.md" in brief  # the spec's context


def test_a_task_master_file_runs_end_to_end_and_its_statuses_are_done(git_repo: Path) -> None:
    project(git_repo, "rooms")
    _configured(git_repo)
    tasks = git_repo / "plans" / "rooms" / ".taskmaster" / "tasks"
    before = (tasks / "tasks.json").read_text("utf-8")
    solutions = REPO_ROOT / "plans" / "replay" / "rooms"
    proc = run_cli("execute-plan", "--plan", str(tasks), "--agent", "replay", "--solutions",
                   str(solutions), "--yes", cwd=git_repo, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(records(tasks)) == ["1", "2"]  # 3 is cancelled: not run
    after = (tasks / "tasks.json").read_text("utf-8")
    assert after.count('"status": "done"') == 2 and '"status": "cancelled"' in after
    # only the two status values changed: the file is otherwise byte for byte the same
    assert after.replace('"status": "done"', '"status": "pending"') == before
    committed = git(git_repo, "show", "--name-only", "--format=", "HEAD").split()
    assert "plans/rooms/.taskmaster/tasks/tasks.json" in committed
