"""`executor init` through the real CLI: a starter plan and the config in an empty Python
and an empty node project, each checked by `executor plan validate`; every format; the
refusal to overwrite; a person answering its questions on a terminal."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from executor.cli import main
from executor.project_config import load_project_config
from executor.prompts import TerminalPrompter
from tests.conftest import run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

PYPROJECT = (
    '[project]\nname = "word-count"  # the name\nversion = "0.1"\n\n'
    "# tools below\n[tool.ruff]\nline-length = 100"  # no newline at the end
)
NPM_INIT = {
    "name": "shop",
    "version": "1.0.0",
    "scripts": {"test": 'echo "Error: no test specified" && exit 1'},
}


def validate(project: Path, plan: str) -> str:
    """`plan validate` of an untouched starter plan: valid, with one warning: the
    placeholder feature is still there (at its line)."""
    proc = run_cli("plan", "validate", plan, cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 errors, 1 warning" in proc.stdout
    [warning] = [line for line in proc.stdout.splitlines() if ": warning: " in line]
    assert warning.endswith(
        ": warning: Session 1 still holds executor init's placeholder feature ('the first "
        "behaviour the feature must have'): replace it with your own first feature before "
        "running the plan"
    )
    return proc.stdout


def test_an_empty_python_project_gets_a_phase_plan_and_tool_executor(tmp_path: Path) -> None:
    project = tmp_path / "word-count"
    project.mkdir()
    (project / "pyproject.toml").write_text(PYPROJECT, "utf-8")

    proc = run_cli("init", "--yes", cwd=project)

    assert proc.returncode == 0, proc.stderr
    plan = project / "project-plans" / "word-count" / "PHASE_1_FOUNDATION.md"
    assert plan.is_file()
    text = plan.read_text("utf-8")
    assert "`python -m pytest tests/test_core.py`" in text
    assert "`word_count/core.py`" in text
    pyproject = (project / "pyproject.toml").read_text("utf-8")
    assert pyproject.startswith(PYPROJECT + "\n\n[tool.executor]\n")  # appended, not rewritten
    assert tomllib.loads(pyproject)["tool"]["executor"] == {"test_command": "python -m pytest"}
    assert load_project_config(project).test_command == "python -m pytest"
    assert not (project / ".executor.toml").exists()
    assert "Added [tool.executor] in pyproject.toml" in proc.stdout
    assert "executor plan validate project-plans/word-count" in proc.stdout
    assert "executor execute-plan --plan project-plans/word-count" in proc.stdout
    assert "git init && git add project-plans/word-count pyproject.toml" in proc.stdout
    assert "format A (phase), 1 phase, 1 session" in validate(project, "project-plans/word-count")
    found = run_cli("plan", "validate", cwd=project)  # the plan is where the runs look
    assert found.returncode == 0, found.stderr


def test_an_empty_node_project_gets_node_test_and_an_executor_toml(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    project.mkdir()
    (project / "package.json").write_text(json.dumps(NPM_INIT), "utf-8")

    proc = run_cli("init", "--yes", "--json", cwd=project)

    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["test_command"] == "node --test"  # npm init's test script only fails
    assert data["project"]["kind"] == "node"
    assert data["config"] == ".executor.toml"
    assert data["next"][-1] == "executor execute-plan --plan project-plans/shop --agent claude"
    config = tomllib.loads((project / ".executor.toml").read_text("utf-8"))
    assert config == {"test_command": "node --test"}
    text = (project / "project-plans/shop/PHASE_1_FOUNDATION.md").read_text("utf-8")
    assert "`node --test test/shop.test.js`" in text and "`src/shop.js`" in text
    validate(project, "project-plans/shop")


def test_a_project_with_its_own_package_gets_the_feature_in_it(tmp_path: Path) -> None:
    """`roman/` holding `src/roman_numerals/`: the first feature goes in that package, not
    in a new `roman/` beside it; once the placeholder is replaced, no warning is left."""
    project = tmp_path / "roman"
    (project / "src" / "roman_numerals").mkdir(parents=True)
    (project / "src" / "roman_numerals" / "__init__.py").write_text("", "utf-8")
    (project / "tests").mkdir()
    (project / "tests" / "__init__.py").write_text("", "utf-8")
    (project / "pyproject.toml").write_text('[project]\nname = "roman-numerals"\n', "utf-8")

    proc = run_cli("init", "--yes", cwd=project)

    assert proc.returncode == 0, proc.stderr
    assert "(pyproject.toml, its package src/roman_numerals/)" in proc.stdout
    plan = project / "project-plans" / "roman" / "PHASE_1_FOUNDATION.md"
    text = plan.read_text("utf-8")
    assert "- `src/roman_numerals/core.py`\n- `tests/test_core.py`\n" in text
    assert "`roman_numerals.core` does not exist yet" in text and "roman/" not in text
    validate(project, "project-plans/roman")
    plan.write_text(text.replace("the first behaviour the feature must have", "to_roman(4)"))
    mine = run_cli("plan", "validate", "project-plans/roman", cwd=project)
    assert "0 errors, 0 warnings" in mine.stdout, mine.stdout


def test_a_node_project_whose_test_script_is_a_runner_runs_it_directly(tmp_path: Path) -> None:
    """`npm test` hides the runner: each step would be judged by its exit code alone. A
    script that is one runner the executor reads is run directly, so its tests count."""
    (tmp_path / "package.json").write_text('{"scripts": {"test": "vitest run"}}', "utf-8")
    proc = run_cli("init", "-y", "--name", "Shop Front", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "project-plans/shop-front/PHASE_1_FOUNDATION.md").read_text("utf-8")
    assert "**Run tests**: `npx vitest run test/" in text  # RED runs the session's file
    assert load_project_config(tmp_path).test_command == "npx vitest run"
    assert "scripts.test runs 'vitest run', run directly to be counted" in proc.stdout
    assert "not be counted" not in proc.stdout


def test_a_node_test_script_no_runner_is_kept_and_said_to_be_uncounted(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "package.json").write_text(
            '{"scripts": {"test": "tsc && mocha"}}', "utf-8"
        )
    proc = run_cli("init", "-y", "--json", cwd=tmp_path / "a")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert (data["test_command"], data["tests_counted"]) == ("npm test", False)
    shown = run_cli("init", "-y", cwd=tmp_path / "b")
    assert shown.returncode == 0, shown.stderr
    assert "Its tests will not be counted: `npm test` writes no report" in shown.stdout


@pytest.mark.parametrize(
    ("fmt", "plan"),
    [
        ("superpowers", "docs/superpowers/plans/*-lib.md"),
        ("speckit", "specs/lib/tasks.md"),
        ("kiro", ".kiro/specs/lib/tasks.md"),
        ("taskmaster", ".taskmaster/tasks/tasks.json"),
    ],
)
def test_every_format_it_writes_validates(tmp_path: Path, fmt: str, plan: str) -> None:
    (tmp_path / "setup.py").write_text("", "utf-8")
    proc = run_cli("init", "--format", fmt, "--name", "lib", "--test-command",
                   "python -m pytest -q", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [written] = tmp_path.glob(plan)
    assert "python -m pytest -q" in written.read_text("utf-8")
    validate(tmp_path, str(written.relative_to(tmp_path)))
    assert load_project_config(tmp_path).test_command == "python -m pytest -q"


def test_it_refuses_to_overwrite_a_plan_or_a_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, "utf-8")
    assert run_cli("init", "--yes", "--name", "app", cwd=tmp_path).returncode == 0
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}

    again = run_cli("init", "--yes", "--name", "app", cwd=tmp_path)

    assert again.returncode == 64
    assert "error: init writes a new plan and a new config and overwrites neither; already " \
        "there: project-plans/app/PHASE_1_FOUNDATION.md, pyproject.toml ([tool.executor])." \
        " Nothing was written." in again.stderr  # fmt: skip
    other = run_cli("init", "--yes", "--name", "other", cwd=tmp_path)  # the config is there
    assert other.returncode == 64 and "pyproject.toml ([tool.executor])" in other.stderr
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before

    dotfile = tmp_path / "dot"
    dotfile.mkdir()
    (dotfile / ".executor.toml").write_text('checkpoints = "session"\n', "utf-8")
    refused = run_cli("init", "--yes", "--dir", str(dotfile), cwd=tmp_path)
    assert refused.returncode == 64 and "already there: .executor.toml." in refused.stderr
    assert [p.name for p in dotfile.iterdir()] == [".executor.toml"]


def test_a_format_it_does_not_write_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli("init", "--format", "overview", cwd=tmp_path)
    assert proc.returncode == 64
    assert "init writes no overview plan; choose one of phase, superpowers" in proc.stderr
    assert list(tmp_path.iterdir()) == []


DOWN, ENTER, CLEAR_LINE = "\x1b[B", "\r", "\x15"


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe:
        yield pipe


def test_a_person_answers_its_questions(
    tmp_path: Path,
    pipe: PipeInput,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "go.mod").write_text("module example.com/tally\n", "utf-8")
    terminal = TerminalPrompter(input=pipe, output=DummyOutput())
    monkeypatch.setattr("executor.cli.init._terminal", lambda: terminal)
    pipe.send_text(
        DOWN + DOWN + ENTER  # format: spec-kit
        + CLEAR_LINE + "tally" + ENTER  # plan name
        + ENTER  # test command: go test ./... (detected)
        + "y"  # write it
    )  # fmt: skip

    code = main(["init", "--dir", str(tmp_path)])

    assert code == 0, capsys.readouterr().err
    tasks = (tmp_path / "specs/tally/tasks.md").read_text("utf-8")
    assert "**Test command**: `go test ./...`" in tasks
    assert load_project_config(tmp_path).test_command == "go test ./..."
    assert "Detected a go project (go.mod)." in capsys.readouterr().out


def test_a_person_who_says_no_gets_nothing_written(
    tmp_path: Path, pipe: PipeInput, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "Cargo.toml").write_text("[package]\nname = 'tally'\n", "utf-8")
    terminal = TerminalPrompter(input=pipe, output=DummyOutput())
    monkeypatch.setattr("executor.cli.init._terminal", lambda: terminal)
    pipe.send_text(ENTER + ENTER + ENTER + "n")

    assert main(["init", "--dir", str(tmp_path)]) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["Cargo.toml"]
