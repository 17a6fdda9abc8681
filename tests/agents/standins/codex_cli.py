"""Stand-in for OpenAI Codex CLI's `codex exec` (tests only; NOT Codex).

Models, from the docs and source (docs/agent-command.md cites them): the prompt as an
argument, or from stdin when it is `-` or omitted; `--json` JSONL events
(`thread.started`, `turn.started`, `item.*`, `turn.completed` with usage, `error`,
`turn.failed`); the sandbox (`read-only` by default: no edits; `workspace-write`: edits,
but `.git` stays read-only, so git commands that write it fail; `danger-full-access` /
`--yolo`: anything); the deprecated `--full-auto` (a warning, then workspace-write);
approvals are always `never` in exec and `-a/--ask-for-approval` is not an exec flag;
outside a git repository it refuses unless `--skip-git-repo-check`. Unknown arguments
are refused like clap does (exit 2).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import uuid
from pathlib import Path
from typing import Any, NoReturn

from tests.agents.standins import common

USAGE = "Usage: codex exec [OPTIONS] [PROMPT]\n       codex exec [OPTIONS] <COMMAND> [ARGS]"
FULL_AUTO_WARNING = "warning: `--full-auto` is deprecated; use `--sandbox workspace-write` instead."


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        found = re.search(r"unrecognized arguments: (\S+)", message)
        text = f"unexpected argument '{found[1]}' found" if found else message
        self.exit(2, f"error: {text}\n\n{USAGE}\n\nFor more information, try '--help'.\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="codex exec", add_help=False, allow_abbrev=False)
    p.add_argument("--json", "--experimental-json", action="store_true")
    p.add_argument(
        "-s", "--sandbox", choices=("read-only", "workspace-write", "danger-full-access")
    )
    p.add_argument("--full-auto", action="store_true")
    p.add_argument(
        "--dangerously-bypass-approvals-and-sandbox", "--yolo", action="store_true", dest="yolo"
    )
    p.add_argument("-C", "--cd", type=Path)
    p.add_argument("--skip-git-repo-check", action="store_true")
    p.add_argument("-o", "--output-last-message", type=Path)
    p.add_argument("--ephemeral", action="store_true")
    p.add_argument("--color", choices=("always", "never", "auto"), default="auto")
    p.add_argument("-m", "--model")
    p.add_argument("prompt", nargs="?")
    return p


def main(argv: list[str]) -> int:
    if argv[:1] != ["exec"]:
        sys.stderr.write("stand-in codex models `codex exec` only\n")
        return 2
    args = _parser().parse_args(argv[1:])
    if args.full_auto:
        sys.stderr.write(FULL_AUTO_WARNING + "\n")
    sandbox = (
        "danger-full-access"
        if args.yolo
        else args.sandbox or ("workspace-write" if args.full_auto else "read-only")
    )
    repo = (args.cd or Path.cwd()).resolve()
    if not args.skip_git_repo_check and common.git(repo, "rev-parse", "--git-dir").returncode:
        sys.stderr.write(
            "Not inside a trusted directory and --skip-git-repo-check was not specified.\n"
        )
        return 1
    stdin = common.read_stdin() if args.prompt in (None, "-") else ""
    prompt = stdin if args.prompt in (None, "-") else args.prompt
    if not prompt.strip():
        sys.stderr.write("No prompt provided via stdin.\n")
        return 1
    fail = common.failure()
    if fail == "nonzero":
        sys.stderr.write("Error: stand-in crash (STANDIN_FAIL=nonzero)\n")
        return 1
    if fail == "garbage":
        sys.stdout.write(common.GARBAGE)
        return 0
    events: list[dict[str, Any]] = [
        {"type": "thread.started", "thread_id": str(uuid.uuid4())},
        {"type": "turn.started"},
    ]
    items = _Items()
    events.append(items.done("reasoning", text="**Reading the brief**"))
    if fail == "error":
        events += [
            {"type": "error", "message": "stream error: stand-in failure (STANDIN_FAIL=error)"},
            {"type": "turn.failed", "error": {"message": "stand-in failure (STANDIN_FAIL=error)"}},
        ]
        return _emit(args, events, None, 1)
    edit = None
    if sandbox == "read-only":
        events.append(items.done("file_change", changes=[], status="failed"))
    else:
        edit = common.replay_edit(repo)
        kinds = [{"path": p, "kind": "update"} for p in edit.changed]
        events.append(
            items.done("file_change", changes=kinds, status="completed" if edit.ok else "failed")
        )
    ran, refused = [], []
    for command in common.requested_commands():
        if sandbox != "danger-full-access" and common.writes_git(command):
            code, output = 128, f"fatal: Unable to create '{repo}/.git/index.lock': "
            output += "Read-only file system\n"
            refused.append(command)
        else:
            code, output = common.run_shell(command, repo)
            ran.append([command, code, output])
        events.append(
            items.done(
                "command_execution",
                command=command,
                aggregated_output=output,
                exit_code=code,
                status="completed" if code == 0 else "failed",
            )
        )
    common.log(
        {
            "tool": "codex",
            "argv": argv,
            "prompt": prompt,
            "sandbox": sandbox,
            "edited": edit is not None and edit.ok,
            "ran": ran,
            "refused": refused,
        }
    )
    final = common.message("codex", prompt, edit)
    events.append(items.done("agent_message", text=final))
    usage = common.usage()
    events.append(
        {
            "type": "turn.completed",
            "usage": {
                "input_tokens": usage.input_tokens,
                "cached_input_tokens": 0,
                "output_tokens": usage.output_tokens,
            },
        }
    )
    return _emit(args, events, final, 0)


class _Items:
    def __init__(self) -> None:
        self.count = 0

    def done(self, kind: str, **fields: object) -> dict[str, Any]:
        item = {"id": f"item_{self.count}", "type": kind, **fields}
        self.count += 1
        return {"type": "item.completed", "item": item}


def _emit(
    args: argparse.Namespace, events: list[dict[str, Any]], final: str | None, code: int
) -> int:
    if args.json:
        for event in events:
            print(json.dumps(event))
    else:
        sys.stderr.write("".join(f"[codex] {e['type']}\n" for e in events))
        if final is not None:
            print(final)
    if final is not None and args.output_last_message:
        args.output_last_message.write_text(final + "\n", encoding="utf-8")
    return code
