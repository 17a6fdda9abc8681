"""Plans read by their structure (issue 38): task ids of any shape, empty phases, a
person's checks as checkpoints (reported as not verified under `--yes`), checks kept or
named, the planner's checklist and journal, and refusals that name the format a file
resembles. Each construct is one small plan of our own modelled on a real one
(tests/plan/real/SOURCES.md); the real plans themselves are read in test_real_plans.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from executor.plan import lint, load_plan
from tests.conftest import REPO_ROOT, git, run_cli
from tests.plan.helpers import load, write

C = Path(__file__).parent / "fixtures" / "constructs"


def _errors(path: Path) -> list[str]:
    return [f"{d.line}: {d.message}" for d in lint(load_plan(path)) if d.severity == "error"]


def test_spec_kit_tasks_without_t_ids_are_tasks_and_tests_first_comes_from_their_files(
    tmp_path: Path,
) -> None:
    """Modelled on biqiangwu/flowerSalesSystem: `**任务 1.1**:` ids, each test task a
    `_test.go` file an implementation task says it needs (`依赖任务 1.3`)."""
    path = write(
        tmp_path / "specs" / "001-core",
        "tasks.md",
        """
        # 开发任务列表

        ## Phase 1: 基础框架

        - [ ] **任务 1.1**: 初始化 go.mod 文件 `go.mod`
        - [ ] **任务 1.2** [P]: 创建配置管理模块测试 `internal/config/config_test.go`
        - [ ] **任务 1.3**: 依赖任务 1.2 - 创建配置管理模块 `internal/config/config.go`

        ## Phase 2: 部署配置 (SKIPPED)

        **Purpose**: 此功能无需额外设定

        ## Phase 3: 前端

        - [x] **任务 3.1**: 创建首页 `web/static/index.html`
        """,
    )
    plan = load_plan(path)
    assert plan.format == "speckit" and _errors(path) == []
    first, third = plan.sessions()  # the empty phase is no session
    assert [(s.number, s.title) for s in plan.sessions()] == [(1, "基础框架"), (3, "前端")]
    assert third.dependencies == [1] and third.claimed_done
    assert [(t.label, t.role) for t in first.tasks] == [
        ("1.1", "green"),
        ("1.2", "red"),
        ("1.3", "green"),
    ]
    assert first.tdd and first.tasks[2].depends_on == ["1.2"]
    warned = [(d.line, d.message) for d in lint(plan) if "no task" in d.message]
    assert warned == [(9, "phase 'Phase 2: 部署配置 (SKIPPED)' holds no task: it is no session")]


def test_plain_boxes_under_phases_in_a_tasks_file_are_its_tasks(tmp_path: Path) -> None:
    """Modelled on mkurecka/test-railway-basic-app's TASKS.md."""
    path = write(
        tmp_path,
        "TASKS.md",
        """
        # Project Implementation Tasks

        ## Phase 1: Foundation Setup
        - [x] Project structure created
        - [ ] Dependencies configured

        ## Phase 2: Core Implementation
        (Tasks will be automatically generated and added to queue)

        ## Phase 3: Testing & Quality
        - [ ] Unit tests implementation
        """,
    )
    plan = load_plan(path)
    assert plan.format == "speckit"
    assert [(s.number, [t.label for t in s.tasks]) for s in plan.sessions()] == [
        (1, ["1", "2"]),
        (3, ["3"]),
    ]


def test_task_ids_of_letters_and_numbers_and_role_words_in_step_titles(tmp_path: Path) -> None:
    """Modelled on voxmedia/open-agent-toolkit's plans: `### Task p01-t01:` ids and
    `**Step 1: Write docs acceptance check (RED)**` steps."""
    plan = load(
        tmp_path,
        """
        # Implementation Plan: docs

        ## Phase 1: Navigation

        ### Task p01-t01: Establish the docs navigation

        **Files:**

        - Modify: `apps/docs/index.md`
        - Create: `/cli-utilities/config-and-local-state`

        **Step 1: Write docs acceptance check (RED)**

        Run: `pnpm build:docs`
        Expected: Build highlights missing destinations.

        **Step 2: Implement (GREEN)**

        Run: `pnpm build:docs`
        Expected: The site builds.

        **Step 3: Verify**

        Run: `rg -n 'docs/cli' README.md`
        Expected: Manual review shows the links are user-facing.
        """,
        name="plan.md",
    )
    (task,) = plan.sessions()
    assert plan.format == "superpowers" and (task.label, task.tdd) == ("p01-t01", True)
    assert task.test_command("red") == "pnpm build:docs"
    assert [f.path for f in task.files] == ["apps/docs/index.md"]  # a route is no file
    assert task.checkpoints == ["Step 3: Verify"]  # its expectation is a person's review
    assert [c.command for c in task.not_checks] == ["rg -n 'docs/cli' README.md"]


def test_the_planners_checklist_is_the_work_and_its_journal_history() -> None:
    """The seed planner's PHASE file: `Phase 8.1` ... `Phase 8.10` sub-phases of
    `8.1.1`-style tasks, then a Session Tracking journal of sessions already run."""
    path = C / "PHASE_8_PRODUCTION.md"
    plan = load_plan(path)
    assert plan.format == "phase" and _errors(path) == []
    assert [(s.label, s.title, s.claimed_done) for s in plan.sessions()] == [
        ("8.1", "Performance Optimization", True),  # its boxes, and the journal, say so
        ("8.2", "Security Hardening", False),  # only started, says the journal
        ("8.10", "Deployment Smoke Test", False),
    ]
    hardening, smoke = plan.sessions()[1:]
    assert [f.path for f in hardening.files] == [
        "apps/webhooks/throttling.py",
        "apps/webhooks/signatures.py",
    ]
    assert hardening.test_command("green") == "python -m pytest apps/webhooks -q"
    assert smoke.checkpoints == ["8.10.1 Deploy to staging and check the dashboard by hand"]


def test_a_tdd_cycle_is_a_session_wherever_its_heading_is(tmp_path: Path) -> None:
    """Modelled on ryu-qqq/FileFlow: `### 1️⃣ ... (Cycle 1)` with Red / Green / Refactor
    sub-headings, no Session or Phase word anywhere."""
    path = write(
        tmp_path,
        "FILE-001-plan.md",
        """
        # FILE-001 TDD Plan

        ### 1️⃣ FileStatus Enum 구현 (Cycle 1)

        #### 🔴 Red: 테스트 작성
        - [ ] `FileStatusTest.java` 생성

        #### 🟢 Green: 최소 구현
        - [ ] `FileStatus.java` 생성

        #### ♻️ Refactor: 리팩토링
        - [ ] Javadoc 추가

        ### 🔟 JobType Enum 구현 (Cycle 10)

        #### 🔴 Red: 테스트 작성
        - [x] `JobTypeTest.java` 생성

        #### 🟢 Green: 최소 구현
        - [x] `JobType.java` 생성
        """,
    )
    plan = load_plan(path)
    first, tenth = plan.sessions()
    assert (first.title, first.tdd, first.red is not None) == (
        "FileStatus Enum 구현 (Cycle 1)",
        True,
        True,
    )
    assert [f.path for f in first.files] == ["FileStatusTest.java", "FileStatus.java"]
    assert (tenth.label, tenth.claimed_done) == ("10", True)


def test_phases_that_hold_their_own_work_are_sessions(tmp_path: Path) -> None:
    """Modelled on k4liel/prefeitura-tibau-do-sul: `### Fase 1 - ...` with numbered items."""
    path = write(
        tmp_path,
        "refatoracao.md",
        """
        # Plano de refatoracao do frontend

        ### Fase 1 - Fundacao de design system

        1. criar `tokens` globais
        2. refatorar `backend/templates/base.html`

        ### Fase 2 - Qualidade UX

        1. responsividade: 360px, 768px, 1024px
        2. testes E2E Playwright atualizados
        """,
    )
    plan = load_plan(path)
    assert [(s.number, s.phase, s.title) for s in plan.sessions()] == [
        (1, 1, "Fundacao de design system"),
        (2, 2, "Qualidade UX"),
    ]
    assert [f.path for f in plan.sessions()[0].files] == ["backend/templates/base.html"]


def test_a_refusal_names_the_format_a_file_resembles_and_the_line_that_broke_it(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        "tasks.md",
        """
        # Tasks: Notes

        - [ ] T001 Create the package in notes/__init__.py
        - [ ] T002 Write the failing test in tests/test_notes.py
        """,
    )
    found = [d for d in lint(load_plan(path)) if d.severity == "error"]
    assert [d.line for d in found] == [3]
    assert "spec-kit tasks.md" in found[0].message and "Session" not in found[0].message


def test_a_refusal_of_another_format_never_speaks_of_phase_files(tmp_path: Path) -> None:
    tasks = write(tmp_path / ".taskmaster" / "tasks", "tasks.json", '{"master": {"tasks": []}}')
    assert _errors(tasks) == ['1: no tasks found; expected {"tasks": [{"id": 1, "title": ...}]}']
    kiro = write(tmp_path, "kiro.md", "# Plan\n\n- [ ] Set up\n  - [ ] 1.1 Create x\n")
    r = run_cli("plan", "validate", str(kiro), cwd=tmp_path)
    assert r.returncode == 15
    assert "this reads like a Kiro tasks.md ('- [ ] 1.1 Create x')" in r.stdout
    assert "Session" not in r.stdout and "PHASE" not in r.stdout


def test_plan_show_marks_a_persons_checks(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "tasks.md",
        """
        ## Phase 1: Balances

        - [x] T001 Add the MEXC connector in src/services/assets/Factory.ts
        - [ ] T002 驗證 MEXC 餘額查詢功能
          - 確認資產總覽頁面顯示 MEXC 餘額
        """,
    )
    r = run_cli("plan", "show", str(path), cwd=tmp_path)
    assert "PERSON: T002: 驗證 MEXC 餘額查詢功能" in r.stdout and "checks" in r.stdout
    shown = json.loads(run_cli("plan", "show", str(path), "--json", cwd=tmp_path).stdout)
    assert shown["phases"][0]["sessions"][0]["human_check"] is True


@pytest.mark.slow
def test_an_unattended_run_commits_a_persons_check_as_not_verified(git_repo: Path) -> None:
    """Real git, the replay agent, `--yes`: the session is committed, its trailer and the
    run's output say the person's check was not made."""
    plan = git_repo / "plans" / "textstats"
    shutil.copytree(REPO_ROOT / "plans" / "examples" / "textstats", plan)
    source = next(plan.glob("*.md"))
    source.write_text(
        source.read_text("utf-8").replace(
            "- [ ] **Step 5: Commit**",
            "- [ ] **Step 5: Manual check: open the word counter in a browser**\n\n"
            "- [ ] **Step 6: Commit**",
            1,
        ),
        "utf-8",
    )
    (git_repo / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n", encoding="utf-8")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "add the plan")
    solutions = REPO_ROOT / "plans" / "replay" / "textstats"
    r = run_cli("execute-session", "1", "--plan", str(source), "--agent", "replay",
                "--solutions", str(solutions), "--yes", cwd=git_repo, timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    check = "Step 5: Manual check: open the word counter in a browser"
    assert f"not verified: a person's check: {check}" in r.stdout
    message = git(git_repo, "log", "-1", "--format=%B")
    assert f"Not-Verified: a person's check (1): {check}" in message
