"""Preset command lines: exact argv per tool, the test-runner prefix, the preset table."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from executor.agent_presets import (
    GIT_FORBIDDEN,
    MAX_ARG_BYTES,
    PRESETS,
    Preset,
    PresetCommand,
    PresetRequest,
    describe,
    on_path,
    preset_argv,
    register,
    runner_prefix,
)
from executor.errors import PresetError

TEST_CMD = "python -m pytest tests/test_models.py -q"


def build(name: str, tmp_path: Path, test_command: str | None = TEST_CMD) -> PresetCommand:
    brief = tmp_path / "s1.green.md"
    brief.write_text("# Brief: session 1\n", encoding="utf-8")
    return preset_argv(
        name,
        prompt_file=brief,
        prompt="# Brief: session 1\n",
        repo=tmp_path,
        test_command=test_command,
    )


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("python -m pytest tests/test_models.py -q", "python -m pytest"),
        ("python3 -m pytest", "python3 -m pytest"),
        ("pytest -q tests", "pytest"),
        ("npm run test -- --ci", "npm run test"),
        ("go test ./...", "go test"),
        ("uv run pytest tests/x.py", "uv run pytest"),
        ("sh -c 'pytest -x'", "sh -c 'pytest -x'"),  # a bare shell: only as written
        ("python run_tests.py", "python run_tests.py"),
        ("env CI=1 pytest", "env CI=1 pytest"),
        ("make test", "make test"),
        ("pytest 'unbalanced", "pytest 'unbalanced"),
    ],
)
def test_runner_prefix(command: str, prefix: str) -> None:
    assert runner_prefix(command) == prefix


PYTEST_SPELLINGS = ("pytest", "py.test", "python -m pytest", "python3 -m pytest", "uv run pytest")


def test_claude_argv_allows_every_spelling_of_the_runner_and_reads_the_brief_on_stdin(
    tmp_path: Path,
) -> None:
    cmd = build("claude", tmp_path)
    denied = [r for git in GIT_FORBIDDEN for r in (f"Bash({git})", f"Bash({git} *)")]
    allowed = [r for c in PYTEST_SPELLINGS for r in (f"Bash({c})", f"Bash({c} *)")]
    assert cmd.argv == (
        "claude", "-p", "--output-format", "json", "--permission-mode", "acceptEdits",
        "--allowedTools", *allowed, "--disallowedTools", *denied,
    )  # fmt: skip
    assert (cmd.stdin_text, cmd.env_additions, cmd.git_excludes) == ("# Brief: session 1\n", {}, ())
    assert "Bash(git commit *)" in denied and "Bash(git push *)" in denied


def test_the_plans_other_test_commands_are_allowed_too(tmp_path: Path) -> None:
    brief = tmp_path / "s1.green.md"
    brief.write_text("b", encoding="utf-8")
    cmd = preset_argv("claude", prompt_file=brief, prompt="b", repo=tmp_path,
                      test_command="npm test -- tests/a.test.js",
                      test_commands=("make lint-tests", "npm test"))  # fmt: skip
    rules = cmd.argv[cmd.argv.index("--allowedTools") + 1 : cmd.argv.index("--disallowedTools")]
    assert [r for r in rules if not r.endswith(" *)")] == [
        "Bash(npm test)",
        "Bash(npm run test)",
        "Bash(npm t)",
        "Bash(make lint-tests)",
    ]


def test_claude_without_a_test_command_allows_no_shell(tmp_path: Path) -> None:
    assert "--allowedTools" not in build("claude", tmp_path, test_command=None).argv


def test_claude_rule_escapes_a_literal_star(tmp_path: Path) -> None:
    argv = build("claude", tmp_path, test_command="pytest -k 'a*'").argv
    assert argv[argv.index("--allowedTools") + 1 : argv.index("--disallowedTools")] == tuple(
        r for c in PYTEST_SPELLINGS for r in (f"Bash({c})", f"Bash({c} *)")
    )
    argv = build("claude", tmp_path, test_command="sh -c 'pytest *'").argv
    assert "Bash(sh -c 'pytest \\*' *)" in argv


def test_codex_argv_reads_the_brief_on_stdin(tmp_path: Path) -> None:
    cmd = build("codex", tmp_path)
    assert cmd.argv == (
        "codex", "exec", "--json", "--sandbox", "workspace-write", "--cd", str(tmp_path), "-",
    )  # fmt: skip
    assert cmd.stdin_text == "# Brief: session 1\n"
    assert "--full-auto" not in cmd.argv and "-a" not in cmd.argv


def test_gemini_argv_and_its_policy_file(tmp_path: Path) -> None:
    cmd = build("gemini", tmp_path)
    policy = tmp_path / "s1.green.gemini-policy.toml"
    assert cmd.argv == (
        "gemini", "--skip-trust", "--approval-mode", "auto_edit", "--policy", str(policy),
        "--output-format", "json",
    )  # fmt: skip
    assert cmd.stdin_text == "# Brief: session 1\n"
    assert policy.read_text(encoding="utf-8") == (
        "# plan-executor: policy for one agent step (`executor docs agent-command`)\n"
        "[[rule]]\n"
        'toolName = "run_shell_command"\n'
        'commandPrefix = ["git commit", "git push", "git pull", "git merge", "git rebase", '
        '"git reset", "git checkout", "git switch", "git stash", "git cherry-pick", '
        '"git revert", "git am"]\n'
        'decision = "deny"\n'
        "priority = 900\n"
        'denyMessage = "plan-executor verifies this step and makes the commit itself"\n'
        "\n"
        "[[rule]]\n"
        'toolName = "run_shell_command"\n'
        'commandPrefix = ["pytest", "py.test", "python -m pytest", "python3 -m pytest", '
        '"uv run pytest"]\n'
        'decision = "allow"\n'
        "priority = 500\n"
    )
    build("gemini", tmp_path, test_command=None)
    assert 'decision = "allow"' not in policy.read_text(encoding="utf-8")


def test_aider_argv(tmp_path: Path) -> None:
    cmd = build("aider", tmp_path)
    assert cmd.argv == (
        "aider", "--message-file", str(tmp_path / "s1.green.md"), "--yes-always",
        "--no-auto-commits", "--no-dirty-commits", "--no-gitignore",
        "--no-suggest-shell-commands", "--no-stream", "--no-pretty", "--no-check-update",
        "--no-show-release-notes", "--no-analytics",
    )  # fmt: skip
    assert cmd.git_excludes == (".aider*",)


@pytest.mark.parametrize("name", ["claude", "gemini", "codex"])
def test_a_brief_too_long_for_an_argument_goes_on_stdin(name: str, tmp_path: Path) -> None:
    brief = "x" * (MAX_ARG_BYTES + 20)
    cmd = preset_argv(name, prompt_file=tmp_path / "b.md", prompt=brief, repo=tmp_path,
                      test_command=None)  # fmt: skip
    assert cmd.stdin_text == brief and all(len(a) < MAX_ARG_BYTES for a in cmd.argv)


def test_a_registered_preset_passing_a_brief_too_long_as_an_argument_is_refused(
    tmp_path: Path,
) -> None:
    def build_it(req: PresetRequest) -> PresetCommand:
        return PresetCommand(argv=("tool", req.prompt))

    register(Preset("arg-tool", "tool", "tool <brief>", "test", (), build_it), replace=True)
    try:
        with pytest.raises(PresetError, match=f"is {MAX_ARG_BYTES + 20} bytes"):
            preset_argv("arg-tool", prompt_file=tmp_path / "b.md",
                        prompt="x" * (MAX_ARG_BYTES + 20), repo=tmp_path,
                        test_command=None)  # fmt: skip
    finally:
        PRESETS.pop("arg-tool", None)


def test_unknown_preset_names_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(PresetError, match="unknown agent preset 'cursor'; known: aider, claude"):
        build("cursor", tmp_path)
    with pytest.raises(PresetError, match="unknown agent preset"):
        describe("cursor")
    assert on_path("cursor") is None


def test_describe_shows_template_and_sources_of_every_preset() -> None:
    text = describe()
    for preset in PRESETS.values():
        assert preset.template in text and all(url in text for url in preset.sources)
        assert all(url.startswith("https://") for url in preset.sources)
    assert describe("codex").startswith("codex: Codex CLI exec")


def test_on_path_finds_the_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert on_path("aider") is None
    program = tmp_path / "aider"
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(0o755)
    assert on_path("aider") == str(program)


@pytest.fixture
def replay_preset() -> Iterator[Preset]:
    preset = Preset(
        name="replay",
        executable="executor",
        template="executor replay-agent --solutions <dir>",
        summary="the replay agent (not an AI)",
        sources=("docs/replay-agent.md",),
        build=lambda req: PresetCommand(
            argv=("executor", "replay-agent", "--solutions", "sol"), stdin_text=req.prompt
        ),
    )
    register(preset)
    yield preset
    del PRESETS["replay"]


def test_register_adds_a_preset_once(replay_preset: Preset, tmp_path: Path) -> None:
    assert build("replay", tmp_path).argv[:2] == ("executor", "replay-agent")
    with pytest.raises(PresetError, match="already registered"):
        register(replay_preset)
    register(replay_preset, replace=True)
