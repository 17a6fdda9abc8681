"""install-claude's hooks in `.claude/settings.json`: merged into the person's settings,
replaced on re-install, taken out by `--remove`; a broken file is refused, nothing written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from executor.claude.settings import MARKER, OUR_HOOKS, with_ours, without_ours
from executor.resources import data_path
from tests.conftest import git, run_cli

PLAN = "project-plans/ledger"

#: A person's settings: their own hooks (one in an event we use too), permissions, more.
THEIRS: dict[str, Any] = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(npm test *)"], "deny": ["Read(./.env)"]},
    "hooks": {
        "PostToolUse": [
            {"matcher": "Edit|Write",
             "hooks": [{"type": "command", "command": "npx prettier --write \"$FILE\""}]},
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "say hi"}]}],
    },
    "env": {"FOO": "1"},
    "model": "opus",
}  # fmt: skip


def _install(repo: Path, *args: str) -> tuple[int, str, str]:
    proc = run_cli("install-claude", *args, cwd=repo)
    return proc.returncode, proc.stdout, proc.stderr


def _settings(repo: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((repo / ".claude/settings.json").read_text("utf-8"))
    return data


def _ours(settings: dict[str, Any]) -> dict[str, list[str]]:
    """Our hook commands by event."""
    return {
        event: [h["command"] for g in groups for h in g["hooks"] if h["command"].startswith(MARKER)]
        for event, groups in settings.get("hooks", {}).items()
        if any(h["command"].startswith(MARKER) for g in groups for h in g["hooks"])
    }


@pytest.fixture
def theirs(git_repo: Path) -> Path:
    (git_repo / ".claude").mkdir()
    (git_repo / ".claude/settings.json").write_text(json.dumps(THEIRS), encoding="utf-8")
    return git_repo


def test_a_fresh_install_writes_the_five_hooks(git_repo: Path) -> None:
    code, out, err = _install(git_repo)
    assert code == 0, err
    settings = _settings(git_repo)
    assert _ours(settings) == {
        "SessionStart": ["executor hook session-start"],
        "Stop": ["executor hook stop"],
        "PostToolUse": ["executor hook post-tool"],
        "PostToolUseFailure": ["executor hook post-tool"],
        "PreToolUse": ["executor hook pre-tool"],
    }
    hooks = settings["hooks"]
    assert "matcher" not in hooks["Stop"][0]  # Stop has no matcher
    assert hooks["PostToolUseFailure"][0]["matcher"] == "Bash"
    assert hooks["PostToolUse"][0]["hooks"][0]["if"] == "Bash(executor *)"
    # every Bash call: `Bash(git *)` never matched `if ...; then git push; fi` (issue 29)
    assert "if" not in hooks["PreToolUse"][0]["hooks"][0]
    assert "wrote      .claude/settings.json" in out
    assert "install-claude --remove` takes them out" in out


def test_merging_keeps_the_persons_settings_and_hooks(theirs: Path) -> None:
    code, _, err = _install(theirs)
    assert code == 0, err
    merged = _settings(theirs)
    assert list(merged) == list(THEIRS)  # every key, in its place
    assert {k: v for k, v in merged.items() if k != "hooks"} == {
        k: v for k, v in THEIRS.items() if k != "hooks"
    }
    assert without_ours(merged) == THEIRS  # take ours out: exactly theirs
    # Their hook in an event we use comes first, ours after it.
    assert merged["hooks"]["Stop"][0] == THEIRS["hooks"]["Stop"][0]
    assert merged["hooks"]["PostToolUse"][0] == THEIRS["hooks"]["PostToolUse"][0]
    assert merged["hooks"]["Notification"] == THEIRS["hooks"]["Notification"]


def test_re_install_replaces_ours_and_changes_nothing_else(theirs: Path) -> None:
    assert _install(theirs)[0] == 0
    first = (theirs / ".claude/settings.json").read_bytes()
    code, out, _ = _install(theirs)
    assert code == 0
    assert "unchanged  .claude/settings.json" in out
    assert (theirs / ".claude/settings.json").read_bytes() == first
    # An older copy of ours (another timeout, another place) is replaced, not doubled;
    # a handler of theirs put into our group stays.
    settings = _settings(theirs)
    settings["hooks"]["Stop"][1]["hooks"][0]["timeout"] = 99
    settings["hooks"]["PreToolUse"][0]["hooks"].append({"type": "command", "command": "mine"})
    (theirs / ".claude/settings.json").write_text(json.dumps(settings), encoding="utf-8")
    assert _install(theirs)[0] == 0
    again = _settings(theirs)
    assert sum(cmd.count(MARKER) for cmds in _ours(again).values() for cmd in cmds) == 5
    assert again["hooks"]["Stop"][-1] == OUR_HOOKS["Stop"]
    assert {"type": "command", "command": "mine"} in again["hooks"]["PreToolUse"][0]["hooks"]
    assert with_ours(again) == again


def test_remove_takes_ours_out_and_leaves_theirs(theirs: Path) -> None:
    assert _install(theirs)[0] == 0
    code, out, err = _install(theirs, "--remove")
    assert code == 0, err
    assert _settings(theirs) == THEIRS
    assert "updated    .claude/settings.json" in out
    assert not (theirs / ".claude/commands").exists()
    assert not (theirs / ".claude/agents").exists()
    assert (theirs / ".claude/settings.json").exists()


def test_remove_keeps_files_the_person_changed(git_repo: Path) -> None:
    shutil.copytree(data_path("plans", "examples", "ledger"), git_repo / PLAN)
    assert _install(git_repo, "--plan", PLAN)[0] == 0
    mine = git_repo / ".claude/commands/execute-phase-2.md"
    mine.write_text(mine.read_text("utf-8") + "\nMy note.\n", encoding="utf-8")
    code, out, err = _install(git_repo, "--remove", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["kept"] == [str(mine)]
    removed = {Path(p).name for p in report["removed"]}
    assert {"settings.json", "execute-phase-1.md", "execute-session.md",
            "backend-builder.md"} <= removed  # fmt: skip
    assert len(removed) == 14 - 1
    assert sorted(p.name for p in (git_repo / ".claude").rglob("*")) == [
        "commands",
        "execute-phase-2.md",
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"hooks": {"Stop": [}', "settings.json:1: not valid JSON"),
        ("[1, 2]", "expected a JSON object at the top, found list"),
        ('{"hooks": {"Stop": {"command": "x"}}}', "hooks.Stop: "),
        ('{"hooks": {"Stop": [{"command": "x"}]}}', "hooks.Stop.0.hooks: "),
    ],
)
def test_a_broken_settings_file_is_refused_and_nothing_is_written(
    git_repo: Path, text: str, problem: str
) -> None:
    (git_repo / ".claude").mkdir()
    settings = git_repo / ".claude/settings.json"
    settings.write_text(text, encoding="utf-8")
    before = sorted(p.name for p in (git_repo / ".claude").iterdir())
    for args in ((), ("--remove",)):
        code, out, err = _install(git_repo, *args)
        assert code == 64, (args, out, err)
        assert problem in err, err
        assert "nothing was written" in err
        assert settings.read_text("utf-8") == text
        assert sorted(p.name for p in (git_repo / ".claude").iterdir()) == before


def test_no_hooks_leaves_the_settings_alone(theirs: Path) -> None:
    code, out, _ = _install(theirs, "--no-hooks")
    assert code == 0
    assert _settings(theirs) == THEIRS
    assert "settings.json" not in out


def test_the_settings_file_commits_with_the_rest(git_repo: Path) -> None:
    assert _install(git_repo)[0] == 0
    status = git(git_repo, "status", "--porcelain", "-uall").splitlines()
    assert "?? .claude/settings.json" in status


def test_every_hook_we_write_is_one_the_cli_runs_for_its_event() -> None:
    from executor.claude.hooks import EVENTS, HOOKS

    written: set[tuple[str, str]] = set()
    for event, group in OUR_HOOKS.items():
        for handler in group["hooks"]:
            name = handler["command"].removeprefix(MARKER)
            assert event in EVENTS[name].events, (event, name)
            written.add((event, name))
    assert written == {(event, h.name) for h in HOOKS for event in h.events}
