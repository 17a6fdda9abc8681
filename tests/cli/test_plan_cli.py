"""`executor plan validate|show` as real subprocesses: exit codes and exact output."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import REPO_ROOT, run_cli
from tests.plan.helpers import session, write

BLOG = REPO_ROOT / "plans" / "examples" / "blog-platform"


def test_validate_clean_plan_exits_0_with_summary() -> None:
    r = run_cli("plan", "validate", "plans/examples/blog-platform", cwd=REPO_ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        "Blog Platform: valid: format A (phase), 4 phases, 11 sessions, 0 errors, 0 warnings\n"
    )


def test_validate_broken_plan_prints_file_line_and_exits_15(tmp_path: Path) -> None:
    write(tmp_path / "plan", "PHASE_1_CORE.md", session(1) + session(2, "Session 9"))
    r = run_cli("plan", "validate", "plan", cwd=tmp_path)
    assert r.returncode == 15
    assert r.stdout.splitlines() == [
        "plan/PHASE_1_CORE.md:49: error: Session 2 depends on Session 9, which does not exist",
        "plan: invalid: format A (phase), 1 phase, 2 sessions, 1 error, 0 warnings",
    ]


def test_paths_outside_the_cwd_are_absolute(tmp_path: Path) -> None:
    folder = tmp_path / "plan"
    write(folder, "PHASE_1_CORE.md", session(1, "Session 9"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = run_cli("plan", "validate", str(folder), cwd=elsewhere)
    assert r.returncode == 15
    assert r.stdout.splitlines()[0].startswith(f"{folder}/PHASE_1_CORE.md:24: error: ")


def test_validate_missing_plan_exits_2(tmp_path: Path) -> None:
    r = run_cli("plan", "validate", "nope", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip() == f"error: plan not found: {tmp_path / 'nope'}"


def test_running_a_missing_plan_outside_any_repository_names_the_plan(
    tmp_path: Path,
) -> None:
    """Not "/ is not inside a git repository": the plan's parent is not looked at."""
    for args in (["execute-session", "1"], ["execute-plan"], ["resume-session", "1"]):
        r = run_cli(*args, "--plan", "/nonexistent/plan", cwd=tmp_path)
        assert r.returncode == 2, args
        assert r.stderr.strip() == "error: plan not found: /nonexistent/plan"


def test_validate_json_contract() -> None:
    r = run_cli("plan", "validate", str(BLOG), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["errors"] == [] and data["warnings"] == []
    phase = data["phases"][0]
    assert (phase["number"], phase["name"]) == (1, "Backend Foundation")
    s1 = phase["sessions"][0]
    assert {
        "number",
        "title",
        "objectives",
        "files",
        "dependencies",
        "exit_criteria",
        "test_commands",
    } <= set(s1)
    assert (s1["number"], s1["title"], s1["dependencies"]) == (
        1,
        "Project Setup and Author Model",
        [],
    )
    assert s1["objectives"][0] == "Create the Django project `blog` and the `accounts` app"
    assert s1["files"][0] == "backend/manage.py"
    assert s1["exit_criteria"][0] == "All author model tests pass"
    cmd = "pytest backend/accounts/tests/test_models.py"
    assert s1["test_commands"] == {"red": cmd, "green": cmd, "refactor": cmd}


def test_validate_json_lists_errors_and_uses_the_project_test_command(tmp_path: Path) -> None:
    text = session(1).replace("**Run tests**: `pytest tests/test_1.py`", "")
    write(tmp_path, "PHASE_1_CORE.md", text + session(3))
    r = run_cli("plan", "validate", str(tmp_path), "--json")
    assert r.returncode == 15
    data = json.loads(r.stdout)
    assert [(e["line"], e["message"]) for e in data["errors"]] == [
        (
            1,
            (
                "Session 1 has no test command: no step gives one in '**Run tests**: `command`' "
                "and no project test command is configured (--test-command)"
            ),
        )
    ]
    assert data["errors"][0]["path"] == str(tmp_path / "PHASE_1_CORE.md")
    assert [w["message"] for w in data["warnings"]] == [
        "gap in session numbering: Session 2 missing before Session 3"
    ]
    r = run_cli("plan", "validate", str(tmp_path), "--json", "--test-command", "make test")
    assert r.returncode == 0
    s1 = json.loads(r.stdout)["phases"][0]["sessions"][0]
    assert s1["test_commands"]["green"] == "make test"


def test_show_draws_sessions_critical_path_and_parallel_groups() -> None:
    r = run_cli("plan", "show", str(BLOG), env={"COLUMNS": "160"})
    assert r.returncode == 0, r.stderr
    assert "Phase 2: Backend API" in r.stdout and "Posts API" in r.stdout
    assert "Critical path (*): 1 -> 4 -> 7 -> 8 -> 9 -> 11  (16 hours)" in r.stdout
    assert "Could run in parallel (depth 1): 2, 4" in r.stdout


def test_show_one_phase_and_an_unknown_phase() -> None:
    r = run_cli("plan", "show", str(BLOG), "--phase", "3", env={"COLUMNS": "160"})
    assert r.returncode == 0
    assert "Auth Store and Login" in r.stdout and "Posts API" not in r.stdout
    r = run_cli("plan", "show", str(BLOG), "--phase", "9")
    assert r.returncode == 64
    assert r.stderr.strip() == f"error: plan {BLOG} has no phase 9 (phases: 1, 2, 3, 4)"


FIXTURES = REPO_ROOT / "tests" / "plan" / "fixtures"


def test_validate_prints_the_detected_or_forced_format() -> None:
    tasks = FIXTURES / "speckit" / "specs" / "001-notes" / "tasks.md"
    r = run_cli("plan", "validate", str(tasks))
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        "Sticky Notes: valid: format D (speckit), 3 phases, 3 sessions, 0 errors, 0 warnings\n"
    )
    r = run_cli("plan", "validate", str(tasks), "--format", "c")
    assert r.returncode == 15
    assert r.stdout.splitlines()[-1].startswith(
        "Tasks: Sticky Notes: invalid: format C (superpowers), "
    )
    r = run_cli("plan", "validate", str(tasks), "--format", "z")
    assert r.returncode == 64
    assert r.stderr.strip() == (
        "error: unknown plan format 'z'; choose one of A (phase), B (overview), "
        "C (superpowers), D (speckit), E (kiro), F (taskmaster)"
    )


def test_validate_reads_the_project_test_command_and_map(tmp_path: Path) -> None:
    plan = tmp_path / "project-plans" / "recipes"
    plan.mkdir(parents=True)
    (plan / "PROJECT_PLAN.md").write_text(
        (FIXTURES / "overview" / "PROJECT_PLAN.md").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[tool.executor]\ntest_command = "docker compose run --rm web pytest"\n'
        '[tool.executor.test_command_map]\n"docker compose run --rm web" = "python -m"\n',
        encoding="utf-8",
    )
    r = run_cli("plan", "validate", "project-plans/recipes", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["format"] == "overview"
    assert [w["message"][:40] for w in data["warnings"]] == [
        "Sessions 1-3: steps derived from the bul"
    ]
    s1 = data["phases"][0]["sessions"][0]
    assert s1["test_commands"]["red"] == "python -m pytest"
    assert (s1["derived"], s1["claimed_done"], s1["box_lines"]) == (True, False, [])


def test_show_names_the_format() -> None:
    plan = FIXTURES / "superpowers" / "docs" / "plans"
    r = run_cli("plan", "show", str(plan), env={"COLUMNS": "200"})
    assert r.returncode == 0, r.stderr
    assert "format C (superpowers)" in r.stdout and "Count lines" in r.stdout


def test_plan_option_and_argument_give_the_same_view() -> None:
    for command in ("show", "validate"):
        positional = run_cli("plan", command, str(BLOG), "--json")
        option = run_cli("plan", command, "--plan", str(BLOG), "--json")
        both = run_cli("plan", command, str(BLOG), "--plan", f"{BLOG}/", "--json")
        assert positional.returncode == option.returncode == both.returncode == 0, option.stderr
        assert json.loads(positional.stdout) == json.loads(option.stdout)
        assert json.loads(both.stdout) == json.loads(option.stdout)


def test_without_a_plan_the_one_found_is_used(tmp_path: Path) -> None:
    plan = tmp_path / "project-plans" / "core"
    write(plan, "PHASE_1_CORE.md", session(1) + session(2))
    r = run_cli("plan", "validate", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.endswith("valid: format A (phase), 1 phase, 2 sessions, 0 errors, 0 warnings\n")
    shown = run_cli("plan", "show", "--json", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["folder"] == str(plan)
    write(tmp_path / "project-plans" / "extra", "PHASE_1_EXTRA.md", session(1))
    several = run_cli("plan", "show", cwd=tmp_path)
    assert several.returncode == 64
    assert "2 plans found" in several.stderr and "project-plans/extra" in several.stderr


def test_two_different_plans_are_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "a", "PHASE_1_CORE.md", session(1))
    write(tmp_path / "b", "PHASE_1_CORE.md", session(1))
    for command in ("show", "validate"):
        r = run_cli("plan", command, "a", "--plan", "b", cwd=tmp_path)
        assert r.returncode == 64
        assert r.stderr == "error: two plans given: the PLAN argument a and --plan b; give one\n"
