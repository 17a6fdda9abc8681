"""Stand-in for aider in scripting mode, `aider --message-file F` (tests only; NOT aider).

Models, from the docs and source (docs/agent-command.md cites them): `--message` /
`--message-file` (one message, then exit); confirmations answered only with
`--yes-always`; git, as aider documents it: before editing, `--dirty-commits` (on by
default) commits the changes already in the repository, and `--auto-commits` (on by
default) commits aider's own edits; `--gitignore` (on by default, with `--yes-always`)
adds `.aider*` to `.gitignore`; the chat history `.aider.chat.history.md` is written in
the repository root; the plain-text output with its banner and its
`Tokens: ... Cost: ...` report; a failed model call prints a `litellm.*Error` line and
still exits 0. Unknown arguments are refused by argparse, as aider's parser does (exit 2).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.agents.standins import common

BOOL = argparse.BooleanOptionalAction


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="aider", add_help=False, allow_abbrev=False)
    p.add_argument("--message", "--msg", "-m")
    p.add_argument("--message-file", "-f", type=Path)
    p.add_argument("--yes-always", action="store_true", default=None)
    p.add_argument("--model")
    for flag, default in (
        ("auto-commits", True),
        ("dirty-commits", True),
        ("git", True),
        ("gitignore", True),
        ("stream", True),
        ("pretty", True),
        ("check-update", True),
        ("show-release-notes", None),
        ("analytics", None),
        ("suggest-shell-commands", True),
        ("auto-test", False),
    ):
        p.add_argument(f"--{flag}", action=BOOL, default=default)
    p.add_argument("--analytics-disable", action="store_true")
    p.add_argument("--test-cmd")
    p.add_argument("files", nargs="*")
    return p


def _format_tokens(count: int) -> str:
    """aider.utils.format_tokens."""
    if count < 1000:
        return f"{count}"
    if count < 10000:
        return f"{count / 1000:.1f}k"
    return f"{round(count / 1000)}k"


def _commit(repo: Path, paths: list[str], message: str, out: list[str]) -> None:
    """Commit `paths` like aider does (its name on the committer), noting the new commit."""
    if not paths:
        return
    common.git(repo, "add", "-A", "--", *paths)
    env_name = common.git(repo, "config", "user.name").stdout.strip() or "user"
    done = common.git(repo, "-c", f"user.name={env_name} (aider)", "commit", "-q", "-m", message)
    if done.returncode == 0:
        out.append(
            f"Commit {common.git(repo, 'rev-parse', '--short', 'HEAD').stdout.strip()} {message}"
        )


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.message is None and args.message_file is None:
        sys.stderr.write("stand-in aider models --message / --message-file only\n")
        return 2
    prompt = (
        args.message
        if args.message is not None
        else (args.message_file.read_text(encoding="utf-8"))
    )
    fail = common.failure()
    if fail == "nonzero":
        sys.stderr.write(
            "Traceback (most recent call last):\nRuntimeError: stand-in crash "
            "(STANDIN_FAIL=nonzero)\n"
        )
        return 1
    if fail == "garbage":
        sys.stdout.write(common.GARBAGE)
        return 0
    repo = Path.cwd()
    in_git = args.git and common.git(repo, "rev-parse", "--git-dir").returncode == 0
    out = [
        "Aider v0.86.1",
        "Main model: stand-in/replay with whole edit format",
        "Weak model: stand-in/replay",
        f"Git repo: .git with {len(common.git(repo, 'ls-files').stdout.split())} files"
        if in_git
        else "Git repo: none",
        "Repo-map: disabled",
    ]
    if in_git and args.gitignore and args.yes_always:
        ignore = repo / ".gitignore"
        text = ignore.read_text(encoding="utf-8") if ignore.exists() else ""
        if ".aider*" not in text.splitlines():
            ignore.write_text(
                text + ("" if text.endswith("\n") or not text else "\n") + ".aider*\n"
            )
            out.append("Added .aider* to .gitignore")
    history = repo / ".aider.chat.history.md"
    with history.open("a", encoding="utf-8") as chat:
        chat.write(f"\n# aider chat started\n\n#### {prompt.strip()}\n")
    if fail == "error":
        out += [
            "litellm.APIConnectionError: stand-in failure (STANDIN_FAIL=error)",
            "The API provider's servers are down or overloaded.",
        ]
        print("\n".join(out))
        return 0  # aider exits 0 after a failed model call
    if in_git and args.dirty_commits:
        dirty = [p for p in common.git_status(repo).values() if not p.startswith(".aider")]
        _commit(repo, dirty, "chore: commit changes found before the edit", out)
    edit = common.replay_edit(repo)
    out.append(common.message("aider", prompt, edit))
    out += [f"Applied edit to {path}" for path in edit.changed]
    if in_git and args.auto_commits:
        _commit(
            repo,
            [p for p in edit.changed if not p.startswith(".aider")],
            "feat: apply the requested change",
            out,
        )
    usage = common.usage()
    out.append(
        f"Tokens: {_format_tokens(usage.input_tokens)} sent, "
        f"{_format_tokens(usage.output_tokens)} received. "
        f"Cost: ${usage.cost_usd:.2f} message, ${usage.cost_usd:.2f} session."
    )
    common.log(
        {
            "tool": "aider",
            "argv": argv,
            "prompt": prompt,
            "edited": edit.ok,
            "ran": [],
            "refused": [],
        }
    )
    print("\n".join(out))
    return 0 if edit.ok else 1
