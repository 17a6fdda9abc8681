"""Only checks verify a session (issue 28, principle 2): `executor.plan.commands.checks.judge`
on the commands plans write, and over every plan we hold, no session is verified by a
command that is not a check."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from executor.plan import lint, load_plan
from executor.plan.commands.checks import judge
from executor.plan.models import StepRole
from executor.workflows.tdd.record.state import RunRecord, RunState
from executor.workflows.tdd.session.detail import before_start
from tests.conftest import REPO_ROOT, git, run_cli
from tests.plan.corpus import corpus
from tests.plan.helpers import load, write

ROLES: tuple[StepRole, ...] = ("red", "green", "refactor")

CHECKS = [
    "pytest tests/test_x.py -v",
    "cd engine && uv run pytest tests/test_llm_prefix.py -q",
    "npm test -- --run tests/renderer.test.ts",
    "npx vitest run src/a.test.ts",
    "docker compose run --rm django pytest",
    'python -c "from a import b; print(b)"',
    "python manage.py test apps.x",
    "go test ./...",
    "cargo fmt --check",
    "mvn test -Dtest=CommandHandlerTest -pl java-harness-cli",
    "node --test tests/",
    "bash scripts/check.sh",
    "terraform init && terraform plan",
    "pytest > /dev/null 2>&1",
    "mkdocs build --strict",
    "npm run build && npm run lint",
    "git diff --exit-code",
    "godot --headless -s addons/gut/gut_cmdln.gd",
    "dotnet test",
    "bash -c 'cd app && python -m pytest -q'",
    'cd sub && python3 -c "assert 1 + 1 == 2"',
    "python -c \"import os; assert os.path.exists('setup.cfg')\"",
    "python -c \"import sys; sys.stdout.write('ok')\"",
    "node -e \"require('./dist/index.js')\"",
    "terraform fmt -check",
    "python manage.py makemigrations --check",
    "go mod verify",
]
#: command -> what the refusal names (the issue's real cases first)
NOT_CHECKS = {
    "git reset HEAD~1": "git command that writes (git reset)",
    "make redeploy-catalog && make redeploy-web": "deploys or publishes",
    "curl -s http://localhost:8000/api/<slug-from-step-1>": "placeholder (<slug-from-step-1>)",
    "npm install": "installs",
    "WORLD_TIDES_API_KEY": "variable's name",
    "curl -s http://localhost:8000/health": "network call (curl)",
    "npx prisma migrate dev": "changes a database",
    "python manage.py migrate": "changes a database",
    "cargo run": "runs the program",
    "black .": "rewrites files",
    "echo hi > out.txt": "writes a file",
    "npm run dev": "does not end",
    "docker compose up -d": "containers",
    "ls dist/": "no test, linter, type checker or build",
    "'unbalanced": "does not parse as a shell command",
    "go mod init github.com/{{org}}/app": "placeholder",
    "npx shadcn@latest add button": "creates or adds files",
    "terraform apply": "changes infrastructure",
    "twine upload dist/*": "deploys or publishes",
    # a shell, `eval` or an inline program is judged by what it runs
    "bash -c 'git push origin HEAD:x && python -m pytest -q'": "network call (git push) "
    "(inside `bash -c`)",
    "sh -lc 'rm -rf build && pytest'": "changes files (rm) (inside `sh -c`)",
    "eval 'git push'": "network call (git push) (inside `eval`)",
    "docker compose run --rm web bash -c 'git push && pytest'": "network call (git push)",
    "find . -name '*.pyc' -delete": "deletes files (find -delete)",
    "git ls-files | xargs rm": "changes files (rm)",
    "python -c \"import subprocess; subprocess.run(['git', 'push'])\"": "imports subprocess",
    "python -c \"open('out.txt', 'w').write('x')\"": "opens a file for writing",
    'python -c "from app.db import db; db.drop_all()"': "calls db.drop_all()",
    "python -c \"import os; os.remove('a')\"": "calls os.remove()",
    "python -c 'assert ('": "does not parse",
    "node -e \"require('child_process').execSync('git push')\"": "uses child_process",
    "ruby -e 'File.write(\"x\", 1)'": "language the executor does not read (ruby)",
    # flags and sub-commands that write, update snapshots, bump versions, change data
    "npm version patch": "bumps the version (npm version patch)",
    "bump2version minor": "bumps the version",
    "python manage.py flush": "runs `flush`",
    "python manage.py loaddata fixtures.json": "management command (loaddata)",
    "jest -u": "updates snapshots (jest -u)",
    "npm test -- -u": "updates snapshots (npm test -u)",
    "UPDATE_SNAPSHOTS=1 pytest": "updates snapshots (UPDATE_SNAPSHOTS=1)",
    "cargo fix": "rewrites files (cargo fix)",
    "go mod tidy": "changes dependencies (go mod tidy)",
    "npm audit fix": "rewrites files (npm audit fix)",
    "ruff check --fix .": "rewrites files (ruff --fix)",
    "npm run lint:fix": "runs `lint:fix`",
    "flask db upgrade": "changes a database",
}


@pytest.mark.parametrize("command", CHECKS)
def test_a_check_verifies(command: str) -> None:
    assert judge(command) is None


@pytest.mark.parametrize(("command", "why"), sorted(NOT_CHECKS.items()))
def test_what_is_no_check_is_refused_with_why(command: str, why: str) -> None:
    found = judge(command)
    assert found is not None and why in found


def test_a_refused_command_is_context_named_at_its_line(tmp_path: Path) -> None:
    plan = load(
        tmp_path,
        """
        # Deploy notes

        ### Task 1: Roll back the release

        - [ ] **Step 1: Undo the last commit**

        Run: `git reset HEAD~1`

        - [ ] **Step 2: Run the tests to verify they pass**

        Run: `pytest tests/test_release.py -q`
        """,
        name="plan.md",
    )
    session = plan.sessions()[0]
    assert session.test_command("green") == "pytest tests/test_release.py -q"
    assert session.verification("green").line == 11
    assert [(c.command, c.line) for c in session.not_checks] == [("git reset HEAD~1", 7)]
    warned = [(d.line, d.message) for d in lint(plan) if "not run as a check" in d.message]
    assert warned == [
        (7, "`git reset HEAD~1` is not run as a check: it is a git command that writes "
            "(git reset); the agent and the person see it as context, and the session is "
            "verified by a check (the step's, or the project's test command)")
    ]  # fmt: skip
    project = session.verification("red", "make test")
    assert session.red is None and project.command == "pytest tests/test_release.py -q"


def test_a_session_with_no_check_falls_back_to_the_projects_command(tmp_path: Path) -> None:
    plan = load(
        tmp_path,
        """
        ### Task 1: Seed the database

        - [ ] **Step 1: Write the failing test** in `tests/test_seed.py`
        - [ ] **Step 2: Run it to verify it fails**

        Run: `curl -s http://localhost:8000/seed/<id>`
        - [ ] **Step 3: Implement the seed**
        """,
        name="plan.md",
    )
    session = plan.sessions()[0]
    v = session.verification("red", "python -m pytest -q")
    assert (v.command, v.source) == ("python -m pytest -q", "project")
    assert v.origin() == "the project's test command, narrowed to the tests RED writes"


@pytest.mark.parametrize("path", corpus(), ids=lambda p: p.name if p.is_file() else p.name + "/")
def test_no_plan_we_hold_is_verified_by_a_command_that_is_not_a_check(path: Path) -> None:
    plan = load_plan(path)
    for session in plan.sessions():
        for role in ROLES:
            command = session.test_command(role)
            assert command is None or judge(command) is None, (session.number, role, command)
        for c in session.not_checks:
            assert judge(c.command) == c.why_not and c.line >= 1


PUSHING_CHECK = "bash -c 'git push origin HEAD:pushed && python -m pytest tests/test_words.py -q'"


def _pushing_plan(repo: Path) -> Path:
    """The textstats example with RED's check replaced by one that pushes first."""
    plan = repo / "plans" / "textstats"
    shutil.copytree(REPO_ROOT / "plans" / "examples" / "textstats", plan)
    source = next(plan.glob("*.md"))
    text = source.read_text("utf-8").replace(
        "Run: `python -m pytest tests/test_words.py -v`\nExpected: FAIL",
        f"Run: `{PUSHING_CHECK}`\nExpected: FAIL",
    )
    source.write_text(text, "utf-8")
    return source


def test_plan_validate_names_a_check_that_pushes_and_never_uses_it(tmp_path: Path) -> None:
    source = _pushing_plan(tmp_path)
    r = run_cli("plan", "validate", str(source), "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    found = json.loads(r.stdout)
    session = found["phases"][0]["sessions"][0]
    assert PUSHING_CHECK not in session["test_commands"].values()
    assert session["not_checks"][0]["command"] == PUSHING_CHECK
    warned = [w["message"] for w in found["warnings"] if PUSHING_CHECK in w["message"]]
    assert warned and "network call (git push) (inside `bash -c`)" in warned[0]


@pytest.mark.slow
def test_a_session_run_unattended_never_runs_a_check_that_pushes(git_repo: Path) -> None:
    """Real git, a real bare remote, the replay agent, `--yes`: the session is verified by
    the plan's other check, and the remote never gets the branch."""
    remote = git_repo.parent / "remote.git"
    git(git_repo.parent, "init", "-q", "--bare", str(remote))
    git(git_repo, "remote", "add", "origin", str(remote))
    source = _pushing_plan(git_repo)
    (git_repo / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n", encoding="utf-8")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "add the plan")
    solutions = REPO_ROOT / "plans" / "replay" / "textstats"
    r = run_cli("execute-session", "1", "--plan", str(source), "--agent", "replay",
                "--solutions", str(solutions), "--yes", cwd=git_repo, timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    assert git(git_repo, "ls-remote", "origin").strip() == ""
    assert "running: python -m pytest tests/test_words.py -v" in r.stdout  # RED: the next check
    assert "running: bash" not in r.stdout


def test_plan_show_and_the_checkpoint_say_what_verifies_each_step(tmp_path: Path) -> None:
    path = write(
        tmp_path / "repo",
        "plan.md",
        """
        ### Task 1: Release notes

        - [ ] **Step 1: Write the failing test**

        ```python
        def test_notes(): assert notes() == "v1"
        ```

        - [ ] **Step 2: Run it to verify it fails**

        Run: `pytest tests/test_notes.py -q`

        - [ ] **Step 3: Write the notes, then push them**

        Run: `git push origin main`
        """,
    )
    r = run_cli("plan", "show", str(path), "--json", cwd=tmp_path)
    session = json.loads(r.stdout)["phases"][0]["sessions"][0]
    assert session["verified_by"]["red"] == {
        "command": "pytest tests/test_notes.py -q",
        "source": "step",
        "line": 11,
        "origin": "the RED step's command (plan.md:11)",
    }
    assert session["verified_by"]["green"]["origin"] == (
        "the RED step's command, run again for GREEN (plan.md:11)"
    )
    assert session["not_checks"] == [
        {
            "command": "git push origin main",
            "line": 15,
            "why_not": "it is a network call (git push)",
        }
    ]
    r = run_cli("plan", "show", str(path), cwd=tmp_path)
    assert "1  RED: `pytest tests/test_notes.py -q` <- the RED step's command" in r.stdout
    assert "not run (line 15): `git push origin main`: it is a network call" in r.stdout
    plan = load_plan(path)
    record = RunRecord(tool_version="t", definition_hash="d", run_id="r", repo=str(tmp_path))
    state = RunState(project_name="p", plan_version="v", run=record)
    first = plan.sessions()[0]
    by_role: dict[str, str | None] = {r: first.test_command(r, "pytest") for r in ROLES}
    text = before_start(first, lambda role: by_role[role], "pytest", state)
    assert "- RED: pytest tests/test_notes.py -q (the RED step's command (plan.md:11))" in text
    assert "- line 15: git push origin main (it is a network call (git push))" in text
    assert text.index("- the whole suite after GREEN and REFACTOR: pytest") < text.index(
        "not checks"
    )
