"""Every `executor ...` line a command file tells Claude to run exists in `executor --help`.

The lines are read from the generated files (inline code spans and indented command
lines); the subcommand words are run with `--help`, and every `--option` the line uses
must appear in that help. Commands that loop must accept `--resume`.
"""

from __future__ import annotations

import re
import shutil
from functools import cache

import pytest

from executor.resources import data_path
from tests.conftest import run_cli

PLAN = "project-plans/ledger"
_SPAN_RE = re.compile(r"`(executor [^`]+)`")
_INDENTED_RE = re.compile(r"^ {4}(executor .+)$", re.MULTILINE)
_WORD_RE = re.compile(r"^[a-z][a-z-]*$")
_ENV = {"COLUMNS": "200", "TERMINAL_WIDTH": "200", "NO_COLOR": "1"}


def command_lines(text: str) -> list[str]:
    return _SPAN_RE.findall(text) + _INDENTED_RE.findall(text)


def subcommand(line: str) -> tuple[str, ...]:
    """The command words after `executor`: up to the first option, number or placeholder."""
    words: list[str] = []
    for token in line.split()[1:]:
        if not _WORD_RE.match(token):
            break
        words.append(token)
    return tuple(words)


@cache
def top_level_commands() -> frozenset[str]:
    proc = run_cli("--help", env=_ENV)
    return frozenset(re.findall(r"^  ([a-z][a-z-]+)  ", proc.stdout, flags=re.MULTILINE))


@cache
def help_text(words: tuple[str, ...]) -> tuple[int, str]:
    proc = run_cli(*words, "--help", env=_ENV)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    repo = tmp_path_factory.mktemp("proj")
    (repo / ".git").mkdir()  # a repo root marker is all install-claude looks for
    shutil.copytree(data_path("plans", "examples", "ledger"), repo / PLAN)
    proc = run_cli("install-claude", "--plan", PLAN, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    folder = repo / ".claude" / "commands"
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md"))}


def test_parsing_of_command_lines() -> None:
    text = (
        "Run `executor bridge show --dir DIR --json` then\n\n"
        "    executor execute-phase 1 --plan p $ARGUMENTS\n"
    )
    assert command_lines(text) == [
        "executor bridge show --dir DIR --json",
        "executor execute-phase 1 --plan p $ARGUMENTS",
    ]
    assert subcommand("executor bridge show --dir DIR") == ("bridge", "show")
    assert subcommand("executor resume-session N --plan P") == ("resume-session",)
    assert subcommand("executor exit-codes") == ("exit-codes",)


def test_every_command_line_exists_in_executor_help(generated: dict[str, str]) -> None:
    available = top_level_commands()
    checked: set[tuple[str, ...]] = set()
    problems: list[str] = []
    for name, text in generated.items():
        lines = command_lines(text)
        assert lines, f"{name} runs no executor command"
        for line in lines:
            words = subcommand(line)
            assert words, f"{name}: no subcommand in {line!r}"
            if words[0] not in available:
                problems.append(f"{name}: `executor {words[0]}` is not in `executor --help`")
                continue
            code, helptext = help_text(words)
            if code != 0:
                problems.append(f"{name}: `executor {' '.join(words)} --help` exited {code}")
                continue
            checked.add(words)
            for option in re.findall(r"(?<![\w-])--[a-z][a-z-]*", line):
                if option not in helptext:
                    problems.append(f"{name}: {line!r} uses {option}, not in its --help")
    assert not problems, "\n".join(problems)
    assert {("bridge", "respond"), ("status",)} <= checked


def test_loop_commands_accept_resume(generated: dict[str, str]) -> None:
    for name, text in generated.items():
        if "## The loop" not in text:
            continue
        words = subcommand(_INDENTED_RE.findall(text)[0])
        code, helptext = help_text(words)
        assert code == 0, f"{name}: executor {' '.join(words)} --help exited {code}"
        assert "--resume" in helptext, f"{name}: executor {' '.join(words)} has no --resume"
