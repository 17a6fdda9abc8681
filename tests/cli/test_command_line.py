"""The command line through the real CLI: every command's help, a bad command line as one
line and exit 64, and the declarations agreeing with the functions that run them."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

from executor.cli.catalog import COMMANDS, root
from executor.cli.spec import Command, Commands
from tests.conftest import run_cli


def _every() -> list[tuple[list[str], Command]]:
    out: list[tuple[list[str], Command]] = []

    def walk(words: list[str], table: Commands) -> None:
        for name, found in table.entries.items():
            if isinstance(found, Commands):
                walk([*words, name], found)
            else:
                out.append(([*words, name], found))

    walk([], root())
    return out


EVERY = _every()


def test_every_declaration_names_the_parameters_of_its_function() -> None:
    for words, command in EVERY:
        takes = inspect.signature(command.run).parameters
        names = [p.name for p in command.params]
        keywords = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in takes.values())
        named = [n for n, p in takes.items() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        assert set(named) <= set(names), words
        assert keywords or set(names) == set(named), words
        assert len(names) == len(set(names)), words


@pytest.mark.parametrize("words", [w for w, c in EVERY if not c.hidden], ids=" ".join)
def test_every_command_has_help_with_each_flag(words: list[str]) -> None:
    command = dict((tuple(w), c) for w, c in EVERY)[tuple(words)]
    proc = run_cli(*words, "--help", env={"COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"Usage: executor {' '.join(words)} [OPTIONS]")
    for param in command.params:
        for flag in (*param.flags, *param.off) or (param.metavar,):
            assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", proc.stdout), flag


def test_the_listing_names_every_command_and_group_once() -> None:
    proc = run_cli("--help", env={"COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    listed = re.findall(r"^  ([a-z][a-z-]+)  ", proc.stdout.split("Commands:")[1], re.M)
    assert listed == [name for name in COMMANDS if name != "lane"]
    assert "--install-completion" in proc.stdout and "Exit codes: 0 SUCCESS" in proc.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["nosuch"], "error: no such command: nosuch (`executor -h` shows what it takes)"),
        (["--bogus"], "error: no such option: --bogus"),
        (["status", "--bogus"], "error: not an option or argument of this command: --bogus"),
        (["execute-session"], "error: missing SESSION"),
        (["execute-session", "x"], "error: SESSION: expected an integer, got 'x'"),
        (["execute-session", "0"], "error: SESSION: must be at least 1, got 0"),
        (["execute-plan", "--checkpoints", "sometimes"],
         "error: --checkpoints: 'sometimes' is not one of 'all', 'session', 'none'"),
        (["execute-plan", "--min-mutation-score", "101"],
         "error: --min-mutation-score: must be at most 100, got 101"),
        (["execute-plan", "--no-verify", "--verify"],
         "error: --no-verify and --verify say opposite things; give one"),
        (["execute-plan", "--plan"], "error: --plan: expected one argument"),
        (["bridge", "nosuch"], "error: no such command: nosuch (`executor bridge -h`"),
    ],
)  # fmt: skip
def test_a_bad_command_line_is_one_line_and_exit_64(
    tmp_path: Path, args: list[str], said: str
) -> None:
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 64, proc.stderr
    assert proc.stderr.startswith(said) and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("words", [[], ["bridge"], ["plan"], ["hook"], ["--verbose"]])
def test_no_command_shows_the_help_on_stderr_and_exits_64(words: list[str]) -> None:
    proc = run_cli(*words)
    assert proc.returncode == 64
    assert proc.stderr.startswith("Usage: executor") and "Commands:" in proc.stderr
    assert proc.stdout == ""


def test_version_and_help_come_before_anything_else() -> None:
    from executor import __version__

    assert run_cli("--version").stdout == f"executor {__version__}\n"
    assert run_cli("-v", "--version", "nosuch").stdout == f"executor {__version__}\n"
    helped = run_cli("bridge", "-h")
    assert helped.returncode == 0 and "respond" in helped.stdout


def test_an_env_var_gives_an_option_the_flag_does_not(tmp_path: Path) -> None:
    proc = run_cli("execute-plan", cwd=tmp_path, env={"EXECUTOR_MUTATION_BUDGET": "soon"})
    assert proc.returncode == 64
    assert proc.stderr.startswith(
        "error: EXECUTOR_MUTATION_BUDGET='soon': expected an integer, got 'soon'"
    )


def test_completion_for_each_shell_and_its_installed_script(tmp_path: Path) -> None:
    """The protocol and the scripts typer's completion used (a script installed before
    still works): choices of a value, a group's commands, fish's and zsh's forms."""
    bash = {"_EXECUTOR_COMPLETE": "complete_bash"}
    words = {"COMP_WORDS": "executor execute-plan --sandbox ", "COMP_CWORD": "3"}
    assert run_cli(env={**bash, **words}).stdout.split() == ["auto", "off"]
    words = {"COMP_WORDS": "executor bridge re", "COMP_CWORD": "2"}
    assert run_cli(env={**bash, **words}).stdout.split() == ["respond"]
    fish = {"_EXECUTOR_COMPLETE": "complete_fish", "_TYPER_COMPLETE_FISH_ACTION": "get-args",
            "_TYPER_COMPLETE_ARGS": "executor bridge sh"}  # fmt: skip
    assert run_cli(env=fish).stdout.startswith("show\tShow the pending request")
    fish["_TYPER_COMPLETE_FISH_ACTION"] = "is-args"
    assert run_cli(env=fish).returncode == 0
    zsh = {"_EXECUTOR_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": "executor status --"}
    assert run_cli(env=zsh).stdout.startswith('_arguments \'*: :(("--plan":"Plan folder')
    zsh["_TYPER_COMPLETE_ARGS"] = "executor status --plan "
    assert run_cli(env=zsh).stdout == "_files\n"

    shown = run_cli("--show-completion", "bash")
    assert shown.returncode == 0
    assert "complete -o default -F _executor_completion executor" in shown.stdout
    # bash runs it as a person's shell would, against the installed console script
    script = Path(sys.executable).with_name("executor")
    line = f"COMP_WORDS=(executor bridge re); COMP_CWORD=2; _executor_completion {script}"
    asked = subprocess.run(["bash", "-c", f'{shown.stdout}\n{line}; echo "${{COMPREPLY[@]}}"'],
                           capture_output=True, text=True, timeout=60)  # fmt: skip
    assert asked.stdout.split() == ["respond"], asked.stderr
    installed = run_cli("--install-completion", "bash", cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr
    home = Path.home()  # a temporary folder (tests/conftest.py)
    script = home / ".bash_completions" / "executor.sh"
    assert installed.stdout.startswith(f"bash completion installed in {script}")
    assert script.read_text("utf-8").strip() == shown.stdout.strip()
    assert f"source '{script}'" in (home / ".bashrc").read_text("utf-8")
    unknown = run_cli("--show-completion", "tcsh")
    assert unknown.returncode == 64 and "cannot tell the shell (tcsh)" in unknown.stderr
