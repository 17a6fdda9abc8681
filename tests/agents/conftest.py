"""The stand-in agent CLIs on PATH, a repository at the GREEN step of session 1, and a
way to run a preset (or any argv) there as a real subprocess and parse its report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from executor.agent_output import AgentReport, parse_agent_output
from executor.agent_presets import PresetCommand, preset_argv
from tests.conftest import git

STANDINS = Path(__file__).parent / "standins"
TEST_CMD = "python -m pytest tests/test_thing.py -q -p no:cacheprovider"
RED_TEST = "from pkg.thing import VALUE\n\n\ndef test_value():\n    assert VALUE == 42\n"
BRIEF = "# Brief: session 1: Thing (GREEN step, attempt 1)\n\nMake tests/test_thing.py pass.\n"


@dataclass
class Run:
    proc: subprocess.CompletedProcess[str]
    report: AgentReport
    #: What the stand-in logged: the prompt it read, the commands it ran or refused.
    log: dict[str, Any]


@dataclass
class Standins:
    """A git repository after session 1's RED step (the test file written, uncommitted)."""

    repo: Path
    env: dict[str, str]
    brief: Path
    log_file: Path

    def run(
        self, name: str | None, argv: tuple[str, ...], stdin_text: str = "", **knobs: str
    ) -> Run:
        """Run `argv` in the repository like the engine does; parse it as preset `name`."""
        self.log_file.write_text("", encoding="utf-8")
        started = time.monotonic()
        proc = subprocess.run(
            argv,
            cwd=self.repo,
            env={**self.env, **knobs},
            input=stdin_text,
            capture_output=True,
            text=True,
            timeout=60,
        )
        report = parse_agent_output(
            name, proc.stdout, proc.stderr, proc.returncode, time.monotonic() - started
        )
        lines = self.log_file.read_text(encoding="utf-8").splitlines()
        return Run(proc=proc, report=report, log=json.loads(lines[-1]) if lines else {})

    def run_preset(self, name: str, test_command: str | None = TEST_CMD, **knobs: str) -> Run:
        command = self.command(name, test_command)
        exclude = self.repo / ".git" / "info" / "exclude"
        with exclude.open("a", encoding="utf-8") as out:  # what the engine does
            out.writelines(f"{pattern}\n" for pattern in command.git_excludes)
        return self.run(name, command.argv, command.stdin_text, **command.env_additions, **knobs)

    def command(self, name: str, test_command: str | None = TEST_CMD) -> PresetCommand:
        return preset_argv(
            name,
            prompt_file=self.brief,
            prompt=BRIEF,
            repo=self.repo,
            test_command=test_command,
        )

    def head(self) -> str:
        return git(self.repo, "rev-parse", "HEAD").strip()

    def git_show_files(self, commit: str) -> list[str]:
        """The files commit `commit` changed."""
        return git(self.repo, "show", "--name-only", "--format=", commit).split()

    def status(self) -> list[str]:
        return git(self.repo, "status", "--porcelain", "--untracked-files=all").splitlines()


@pytest.fixture
def agent_standins(git_repo: Path, tmp_path: Path) -> Standins:
    """Stand-ins for `claude`, `codex`, `gemini`, `aider` first on PATH (then this
    interpreter's folder, so their `python3` and the replay agent are this venv's)."""
    solutions = tmp_path / "solutions" / "session-1" / "green" / "pkg"
    solutions.mkdir(parents=True)
    (solutions / "__init__.py").write_text("", encoding="utf-8")
    (solutions / "thing.py").write_text("VALUE = 42\n", encoding="utf-8")
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "test_thing.py").write_text(RED_TEST, encoding="utf-8")
    briefs = tmp_path / "briefs"
    briefs.mkdir()
    brief = briefs / "s1.green.a1.f0.md"
    brief.write_text(BRIEF, encoding="utf-8")
    log_file = tmp_path / "standin.log"
    path = os.pathsep.join([str(STANDINS), str(Path(sys.executable).parent), os.environ["PATH"]])
    env = {
        **os.environ,
        "PATH": path,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # the agent's test runs start faster
        "STANDIN_SOLUTIONS": str(tmp_path / "solutions"),
        "STANDIN_LOG": str(log_file),
        "EXECUTOR_SESSION": "1",
        "EXECUTOR_TDD_STEP": "green",
        "EXECUTOR_ATTEMPT": "1",
    }
    return Standins(repo=git_repo, env=env, brief=brief, log_file=log_file)
