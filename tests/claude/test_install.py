"""`executor install-claude`: files written, frontmatter valid, skip/force, target, plan."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from executor.claude import AGENT_NAMES, GENERIC_COMMANDS, parse_frontmatter
from executor.resources import data_path
from tests.conftest import git, run_cli

#: Tools a Claude Code subagent may name.
KNOWN_TOOLS = {"Read", "Write", "Edit", "MultiEdit", "Bash", "Grep", "Glob", "LS"}
PLAN = "project-plans/ledger"


@pytest.fixture
def ledger_repo(git_repo: Path) -> Path:
    shutil.copytree(data_path("plans", "examples", "ledger"), git_repo / PLAN)
    return git_repo


def _install(cwd: Path, *args: str) -> tuple[int, str, str]:
    proc = run_cli("install-claude", *args, cwd=cwd)
    return proc.returncode, proc.stdout, proc.stderr


def test_writes_commands_and_agents_at_the_repo_root(git_repo: Path) -> None:
    sub = git_repo / "src" / "deep"
    sub.mkdir(parents=True)

    code, out, err = _install(sub)

    assert code == 0, err
    commands = sorted(p.stem for p in (git_repo / ".claude" / "commands").glob("*.md"))
    agents = sorted(p.stem for p in (git_repo / ".claude" / "agents").glob("*.md"))
    assert commands == sorted(GENERIC_COMMANDS)
    assert agents == sorted(AGENT_NAMES)
    assert not (sub / ".claude").exists()
    assert "12 written, 0 unchanged, 0 skipped" in out  # and .claude/settings.json
    assert "no --plan given" in out
    # Without a plan the executor finds the one plan; the person is asked only if it cannot.
    text = (git_repo / ".claude/commands/execute-plan.md").read_text(encoding="utf-8")
    assert "    executor execute-plan $ARGUMENTS\n" in text
    assert "ask the person for the plan folder and add `--plan DIR`" in text
    progress = (git_repo / ".claude/commands/show-progress.md").read_text(encoding="utf-8")
    assert "\n!`executor status`\n" in progress


def test_outside_a_repo_the_target_is_the_current_folder(tmp_path: Path) -> None:
    code, out, err = _install(tmp_path)
    assert code == 0, err
    assert (tmp_path / ".claude/agents/backend-builder.md").is_file()
    # no repository here: the advice makes one first (a bare `git add` would fail)
    hint = next(line for line in out.splitlines() if line.startswith("next: "))
    assert f"{tmp_path} is not in one yet: git -C {tmp_path} init && " in hint
    command = hint.split("yet: ", 1)[1]
    done = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert git(tmp_path, "status", "--porcelain") == ""  # .claude/ is committed


def test_explicit_target_and_missing_target(tmp_path: Path) -> None:
    dest = tmp_path / "proj"
    dest.mkdir()
    code, _, err = _install(tmp_path, "--target", "proj")
    assert code == 0, err
    assert (dest / ".claude/commands/show-progress.md").is_file()

    code, _, err = _install(tmp_path, "--target", "nope")
    assert code == 2
    assert f"error: target folder not found: {tmp_path / 'nope'}" in err


def test_agent_files_parse_and_name_their_tools(git_repo: Path) -> None:
    assert _install(git_repo)[0] == 0
    for name in AGENT_NAMES:
        path = git_repo / ".claude" / "agents" / f"{name}.md"
        fields, body = parse_frontmatter(path.read_text(encoding="utf-8"), source=str(path))
        assert fields["name"] == name
        assert len(fields["description"]) > 40
        tools = {t.strip() for t in fields["tools"].split(",")}
        assert tools <= KNOWN_TOOLS, tools
        assert "brief" in body
        assert "git commit" in body or "Do not modify any file" in body
        assert len(body.splitlines()) < 100
    builder = (git_repo / ".claude/agents/backend-builder.md").read_text(encoding="utf-8")
    for words in ("**RED**", "**GREEN**", "**REFACTOR**", "Never run `git commit`"):
        assert words in builder


def test_command_files_parse_and_are_short_prose(ledger_repo: Path) -> None:
    code, _, err = _install(ledger_repo, "--plan", PLAN)
    assert code == 0, err
    files = sorted((ledger_repo / ".claude" / "commands").glob("*.md"))
    assert [p.stem for p in files] == sorted(
        [*GENERIC_COMMANDS, "execute-phase-1", "execute-phase-2"]
    )
    for path in files:
        text = path.read_text(encoding="utf-8")
        fields, body = parse_frontmatter(text, source=str(path))
        assert set(fields) <= {
            "description",
            "argument-hint",
            "allowed-tools",
            "disable-model-invocation",
        }
        assert fields["description"]
        # commands that change the repository run only when the person types them
        changes = path.stem != "show-progress"
        assert (fields.get("disable-model-invocation") == "true") == changes, path.name
        assert fields["allowed-tools"].startswith("Bash(executor *)")
        assert len(text.splitlines()) <= 100, path.name
        assert "```" not in body, f"{path.name}: no code blocks, prose only"
        assert "{{" not in text and "}}" not in text, f"{path.name}: unrendered placeholder"
        assert "$ARGUMENTS" in body


def test_phase_commands_name_the_phase_and_the_plan(ledger_repo: Path) -> None:
    assert _install(ledger_repo, "--plan", PLAN)[0] == 0
    text = (ledger_repo / ".claude/commands/execute-phase-2.md").read_text(encoding="utf-8")
    fields, body = parse_frontmatter(text)
    assert fields["description"].startswith("Run phase 2 (")
    assert f"    executor execute-phase 2 --plan {PLAN} $ARGUMENTS\n" in body
    # it ends by naming the phase's report (and offers its pull request when asked)
    assert "End by naming the phase's report, whatever the exit code" in body
    assert f"`executor report --phase 2 --plan {PLAN}`" in body
    assert f"`executor pr 2 --plan {PLAN}`" in body
    session = (ledger_repo / ".claude/commands/execute-session.md").read_text(encoding="utf-8")
    assert f"    executor execute-session SESSION --phase PHASE --plan {PLAN}\n" in session
    assert "No plan is named here" not in session
    progress = (ledger_repo / ".claude/commands/show-progress.md").read_text(encoding="utf-8")
    assert f"\n!`executor status --plan {PLAN}`\n" in progress


def test_arguments_and_their_hints(ledger_repo: Path) -> None:
    """`$0`/`$1` changed meaning in Claude Code 2.1.19 (`$1` was the first argument, now
    the second) and unmatched ones are kept verbatim since 2.1.210: the command files use
    `$ARGUMENTS` alone, which means the same in every version, and say in prose which
    word is which; `/execute-session` takes `<session> [phase]`, as the CLI does."""
    assert _install(ledger_repo, "--plan", PLAN)[0] == 0
    folder = ledger_repo / ".claude" / "commands"
    expected = {
        "execute-session": ("<session> [phase]", "executor execute-session SESSION --phase PHASE "),
        "resume-session": ("<session>", "executor resume-session SESSION "),
        "template-create": ("<codebase-folder>", "executor template-create --path FOLDER\n"),
    }
    for path in folder.glob("*.md"):
        assert not re.search(r"\$[0-9]|\$ARGUMENTS\[", path.read_text("utf-8")), path.name
    for name, (hint, line) in expected.items():
        fields, body = parse_frontmatter((folder / f"{name}.md").read_text(encoding="utf-8"))
        assert fields["argument-hint"].startswith(hint), name
        assert line in body, name
        assert "The person's arguments are: $ARGUMENTS\n" in body, name


def test_the_relay_loop_keeps_answers_in_the_project(ledger_repo: Path) -> None:
    assert _install(ledger_repo, "--plan", PLAN)[0] == 0
    text = (ledger_repo / ".claude/commands/execute-plan.md").read_text(encoding="utf-8")
    assert "the longest timeout, 600000 ms" in text
    words = " ".join(text.split())
    assert "with the Agent tool (called Task in older Claude Code)" in words
    assert "--response-file - --resume`" in words and "DIR/.agent-answer.md" in words
    assert "/tmp" not in text


def test_plan_outside_the_target_is_named_absolutely(ledger_repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    assert _install(ledger_repo, "--target", str(other), "--plan", PLAN)[0] == 0
    text = (other / ".claude/commands/execute-phase-1.md").read_text(encoding="utf-8")
    assert f"executor execute-phase 1 --plan {(ledger_repo / PLAN).as_posix()} " in text


def test_missing_plan_exits_2_naming_it(git_repo: Path) -> None:
    code, _, err = _install(git_repo, "--plan", "project-plans/none")
    assert code == 2
    assert str(git_repo / "project-plans" / "none") in err
    assert not (git_repo / ".claude").exists()


def test_existing_files_are_skipped_unless_force(git_repo: Path) -> None:
    assert _install(git_repo)[0] == 0
    mine = git_repo / ".claude/agents/backend-builder.md"
    mine.write_text("my own version\n", encoding="utf-8")

    code, out, _ = _install(git_repo)
    assert code == 0
    assert re.search(r"skipped +\.claude/agents/backend-builder\.md \(exists and differs", out)
    assert "0 written, 11 unchanged, 1 skipped" in out
    assert mine.read_text(encoding="utf-8") == "my own version\n"

    code, out, _ = _install(git_repo, "--force", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["written"] == [str(mine)]
    assert report["skipped"] == []
    assert len(report["unchanged"]) == 11
    assert mine.read_text(encoding="utf-8") == (
        data_path("agents", "backend-builder.md").read_text(encoding="utf-8")
    )


def test_a_second_install_naming_the_plan_refreshes_the_files_the_first_wrote(
    ledger_repo: Path,
) -> None:
    """`install-claude`, then `install-claude --plan P` as its own note advises: the
    commands it wrote seconds before (naming no plan) are its own, untouched: refreshed,
    not skipped as "exists and differs". A command the person edited is still skipped."""
    assert _install(ledger_repo)[0] == 0
    edited = ledger_repo / ".claude/commands/show-progress.md"
    edited.write_text(edited.read_text("utf-8") + "my own line\n", "utf-8")

    code, out, err = _install(ledger_repo, "--plan", PLAN)

    assert code == 0, err
    skipped = [line for line in out.splitlines() if line.startswith("skipped")]
    assert skipped == ["skipped    .claude/commands/show-progress.md (exists and differs; "
                       "--force overwrites)"]  # fmt: skip
    for name in ("execute-session", "execute-plan", "resume-session"):
        text = (ledger_repo / f".claude/commands/{name}.md").read_text("utf-8")
        assert f"--plan {PLAN}" in text, name
    assert "my own line" in edited.read_text("utf-8")


def test_install_leaves_no_temp_files_and_git_sees_only_claude(git_repo: Path) -> None:
    assert _install(git_repo)[0] == 0
    leftovers = [p for p in (git_repo / ".claude").rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []
    status = git(git_repo, "status", "--porcelain", "-uall").splitlines()
    assert status and all(line[3:].startswith(".claude/") for line in status)


def test_without_plan_the_one_plan_found_is_named_and_a_removal_says_only_what_is_true(
    git_repo: Path,
) -> None:
    from tests.engine.helpers import make_project

    make_project(git_repo)  # project-plans/ledger, committed: the one plan other commands run
    code, out, err = _install(git_repo)
    assert code == 0, err
    assert "the commands run the one plan found, project-plans/ledger" in out
    assert (git_repo / ".claude/commands/execute-phase-2.md").is_file()
    # nothing of .claude/ was ever committed: removing it leaves nothing to commit
    code, out, err = _install(git_repo, "--remove")
    assert code == 0, err
    assert "next:" not in out and not (git_repo / ".claude").exists()
    _install(git_repo)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "claude")
    code, out, err = _install(git_repo, "--remove")
    assert "-m 'Remove the plan-executor Claude Code commands and hooks'" in out
