"""Each preset run as a real subprocess against its stand-in CLI in a real git repository:
the argv is accepted, the replay work lands in the worktree, nothing is committed, the
report carries the final message, cost and tokens, and failures parse as errors. The old
doc lines (docs/agent-command.md) are run too, to show each problem they had."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import BRIEF, TEST_CMD, Standins

SAMPLES = Path(__file__).parent / "samples"

PRESETS = ("claude", "codex", "gemini", "aider")
WROTE = "replay-agent (not an AI): session 1 green: wrote pkg/__init__.py, pkg/thing.py"
#: What the simulated model asks its shell tool to run after editing.
COMMANDS = "\n".join([TEST_CMD, "git commit -am 'agent commit'", "git -C . commit -m sneaky"])
KNOBS = {
    "STANDIN_COST_USD": "0.25",
    "STANDIN_INPUT_TOKENS": "3456",
    "STANDIN_OUTPUT_TOKENS": "789",
    "STANDIN_RUN": COMMANDS,
}
#: (input, output, cost) each tool reports for KNOBS: Codex and Gemini report no cost,
#: aider rounds tokens like its `format_tokens` ("3.5k") and cost to cents.
USAGE = {
    "claude": (3456, 789, 0.25),
    "codex": (3456, 789, None),
    "gemini": (3456, 789, None),
    "aider": (3500, 789, 0.25),
}


@pytest.mark.parametrize("name", PRESETS)
def test_preset_edits_runs_the_tests_commits_nothing_and_reports_usage(
    agent_standins: Standins, name: str
) -> None:
    head = agent_standins.head()
    run = agent_standins.run_preset(name, **KNOBS)
    assert run.proc.returncode == 0, run.proc.stderr
    assert run.proc.stderr == ""  # no deprecation warning, no refused flag
    assert run.report.ok, run.report.error_message
    assert f"read {len(BRIEF)} characters ('# Brief: session 1" in run.report.final_message
    assert WROTE in run.report.final_message
    assert run.log["prompt"].strip() == BRIEF.strip()
    assert (agent_standins.repo / "pkg" / "thing.py").read_text() == "VALUE = 42\n"
    assert agent_standins.head() == head
    assert agent_standins.status() == [
        "?? pkg/__init__.py",
        "?? pkg/thing.py",
        "?? tests/test_thing.py",
    ]
    assert_shaped_like_the_samples(name, run.proc.stdout)
    report = run.report
    assert (report.input_tokens, report.output_tokens, report.cost_usd) == USAGE[name]
    if name == "aider":  # it wrote its chat history (hidden by git_excludes), no .gitignore
        assert (agent_standins.repo / ".aider.chat.history.md").exists()
        assert not (agent_standins.repo / ".gitignore").exists()
        return  # aider runs no shell commands of its own (--no-suggest-shell-commands)
    assert [cmd for cmd, *_ in run.log["ran"]] == [TEST_CMD]
    assert run.log["ran"][0][1] == 0, run.log["ran"][0][2]  # the tests pass after GREEN
    refused = ["git commit -am 'agent commit'", "git -C . commit -m sneaky"]
    assert run.log["refused"] == refused
    if name == "claude":
        assert report.denied == [f"Bash({cmd})" for cmd in refused]


def _sample(name: str) -> Any:
    text = (SAMPLES / name).read_text(encoding="utf-8")
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines()]
    return json.loads(text)


def assert_shaped_like_the_samples(name: str, stdout: str) -> None:
    """The stand-in prints what the real tool prints: same keys, event and item types."""
    if name == "claude":
        got, want = json.loads(stdout), _sample("claude_success.json")
        assert set(got) == set(want) and set(got["usage"]) == set(want["usage"])
    elif name == "codex":
        events = [json.loads(line) for line in stdout.splitlines()]
        documented = _sample("codex_success.jsonl")
        assert [e["type"] for e in events[:2]] == ["thread.started", "turn.started"]
        assert {e["type"] for e in events} <= {e["type"] for e in documented}
        items = {e["item"]["type"] for e in events if "item" in e}
        assert items <= {e["item"]["type"] for e in documented if "item" in e}
        assert set(events[-1]["usage"]) == set(documented[-1]["usage"])
    elif name == "gemini":
        got, want = json.loads(stdout), _sample("gemini_success.json")
        assert set(got) == {"session_id", "response", "stats"}  # current docs add session_id
        assert set(got["stats"]) == set(want["stats"])
        assert set(got["stats"]["tools"]) == set(want["stats"]["tools"])
        model, documented = (next(iter(x["stats"]["models"].values())) for x in (got, want))
        assert set(model) == set(documented) and set(model["tokens"]) == set(documented["tokens"])
    else:
        assert stdout.startswith("Aider v")
        usage = r"^Tokens: \S+ sent, \S+ received\. Cost: \$\S+ message, \$\S+ session\.$"
        assert re.search(usage, stdout, re.MULTILINE)


def test_claude_preset_without_a_test_command_runs_no_shell(agent_standins: Standins) -> None:
    run = agent_standins.run_preset("claude", test_command=None, STANDIN_RUN=TEST_CMD)
    assert run.report.ok and run.log["ran"] == [] and run.log["refused"] == [TEST_CMD]


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("mode", ["error", "nonzero", "garbage"])
def test_standin_failures_parse_as_errors(agent_standins: Standins, name: str, mode: str) -> None:
    run = agent_standins.run_preset(name, STANDIN_FAIL=mode)
    assert not run.report.ok
    assert run.report.final_message == ""
    expected = "Segmentation fault" if mode == "garbage" else f"STANDIN_FAIL={mode}"
    assert expected in (run.report.error_message or ""), run.report.error_message


# -- the old lines from docs/agent-command.md, one problem each ---------------------------


def test_old_claude_line_cannot_run_the_tests(agent_standins: Standins) -> None:
    """Problem 1: acceptEdits approves edits only; nobody can approve Bash in -p mode."""
    old = ("claude", "-p", BRIEF, "--permission-mode", "acceptEdits")
    run = agent_standins.run(None, old, STANDIN_RUN=TEST_CMD)  # text output
    assert run.report.ok and WROTE in run.report.final_message  # edits were approved...
    assert run.log["refused"] == [TEST_CMD]  # ...the test command was not
    assert run.log["ran"] == []


def test_old_codex_line_uses_the_deprecated_flag(agent_standins: Standins) -> None:
    """Problem 2: --full-auto still works but is deprecated (a warning on every run)."""
    run = agent_standins.run("codex", ("codex", "exec", "--full-auto", BRIEF))
    assert run.proc.returncode == 0 and WROTE in run.proc.stdout
    assert run.proc.stderr.startswith("warning: `--full-auto` is deprecated; use `--sandbox")


def test_old_gemini_line_stops_in_an_untrusted_folder(agent_standins: Standins) -> None:
    """Problem 3: --yolo is deprecated, and in an untrusted folder a headless run stops."""
    run = agent_standins.run("gemini", ("gemini", "--yolo", "-p", BRIEF))
    assert run.proc.returncode == 55
    assert "--yolo is deprecated" in run.proc.stderr
    assert "FatalUntrustedWorkspaceError" in run.proc.stderr
    assert not (agent_standins.repo / "pkg").exists()


def test_old_aider_line_commits_the_red_tests_and_the_preset_does_not(
    agent_standins: Standins,
) -> None:
    """Problem 4: without --no-dirty-commits aider commits the uncommitted RED tests."""
    head = agent_standins.head()
    brief = str(agent_standins.brief)
    run = agent_standins.run(
        "aider", ("aider", "--yes-always", "--no-auto-commits", "--message-file", brief)
    )
    assert run.report.ok
    moved = agent_standins.head()
    assert moved != head  # the executor would stop here
    committed = agent_standins.git_show_files(moved)
    assert "tests/test_thing.py" in committed and "pkg/thing.py" not in committed


def test_aider_auto_commits_by_default_and_the_preset_turns_it_off(
    agent_standins: Standins,
) -> None:
    head = agent_standins.head()
    brief = str(agent_standins.brief)
    argv = ("aider", "--yes-always", "--no-dirty-commits", "--message-file", brief)
    agent_standins.run("aider", argv)
    assert "pkg/thing.py" in agent_standins.git_show_files(agent_standins.head())
    assert agent_standins.head() != head


# -- flags the real tools refuse -------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "code", "expected"),
    [
        (
            ("codex", "exec", "-a", "never", "-"),
            2,
            ("error: unexpected argument '-a' found", "Usage: codex exec [OPTIONS] [PROMPT]"),
        ),
        (("claude", "-p", "--yolo", "x"), 1, ("error: unknown option '--yolo'",)),
        (
            ("gemini", "--approval", "yolo", "-p", "x"),
            42,
            ("Usage: gemini [options]", "Unknown arguments: approval"),
        ),
        (
            ("aider", "--no-commits", "-m", "x"),
            2,
            ("usage: aider", "aider: error: unrecognized arguments: --no-commits"),
        ),
    ],
)
def test_standins_refuse_unknown_flags_like_the_real_parsers(
    agent_standins: Standins, argv: tuple[str, ...], code: int, expected: tuple[str, ...]
) -> None:
    run = agent_standins.run(argv[0], argv)
    assert run.proc.returncode == code
    assert all(text in run.proc.stderr for text in expected), run.proc.stderr
    assert not run.report.ok


@pytest.mark.parametrize("name", ["claude", "gemini"])
def test_the_runners_other_spellings_are_allowed_and_git_still_is_not(
    agent_standins: Standins, name: str
) -> None:
    """Issue 22: an agent told to run `python -m pytest ...` that types `pytest -q` or
    `python3 -m pytest` is not refused; a commit still is."""
    spellings = ["pytest -q -p no:cacheprovider tests/test_thing.py",
                 "python3 -m pytest -q -p no:cacheprovider tests/test_thing.py"]  # fmt: skip
    run = agent_standins.run_preset(name, STANDIN_RUN="\n".join([*spellings, "git commit -m x"]))
    assert run.report.ok, run.report.error_message
    assert [cmd for cmd, *_ in run.log["ran"]] == spellings
    assert run.log["refused"] == ["git commit -m x"]
