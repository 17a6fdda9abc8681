"""Stand-in for Gemini CLI's headless mode, `gemini -p` (tests only; NOT Gemini CLI).

Models, from the docs and source (docs/agent-command.md cites them): `-p/--prompt` text
appended to stdin; `--output-format json` printing `{session_id, response, stats}` or an
`error` object; folder trust enabled and this folder not yet trusted, so without
`--skip-trust` (or GEMINI_TRUST_WORKSPACE=true) a headless run stops with
FatalUntrustedWorkspaceError (exit 55); approval modes in headless runs (`default`: no
edit or shell tools, `auto_edit`: edits, `yolo`: everything, `plan`: read-only) where a
policy `ask_user` counts as deny; `--policy FILE` rules (`run_shell_command`,
`commandPrefix`, `decision`, `priority`; highest priority wins) read from the TOML subset
the preset writes; the deprecated `--yolo` and `--allowed-tools` (a warning).
Argument errors exit 42 (documented "input error"), like yargs' message. `--help` lists
the options; STANDIN_GEMINI_VERSION (default 0.45.0) models an older CLI: before 0.41
there is no `--skip-trust` (and no folder trust), before 0.30 no `--policy`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import uuid
from pathlib import Path
from typing import Any, NoReturn

from tests.agents.standins import common

MODES = ("default", "auto_edit", "yolo", "plan")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        found = re.search(r"unrecognized arguments: (.*)", message)
        text = f"Unknown arguments: {found[1].lstrip('-')}" if found else message
        self.exit(42, f"Usage: gemini [options] [command]\n\n{text}\n")


def _version() -> tuple[int, ...]:
    text = os.environ.get("STANDIN_GEMINI_VERSION", "0.45.0")
    return tuple(int(part) for part in text.split("."))


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gemini", add_help=False, allow_abbrev=False)
    version = _version()
    p.add_argument("-p", "--prompt")
    p.add_argument("-m", "--model", default="gemini-2.5-pro")
    p.add_argument("-o", "--output-format", choices=("text", "json", "stream-json"), default="text")
    p.add_argument("--approval-mode", choices=MODES)
    p.add_argument("-y", "--yolo", action="store_true")
    if version >= (0, 41):
        p.add_argument("--skip-trust", action="store_true")
    if version >= (0, 30):
        p.add_argument("--policy", action="append", default=[], type=Path)
    p.add_argument("--allowed-tools", action="append", default=[])
    p.add_argument("--include-directories", action="append", default=[])
    p.add_argument("-d", "--debug", action="store_true")
    p.add_argument("query", nargs="*")
    return p


def _policy_rules(paths: list[Path]) -> list[dict[str, Any]]:
    """`[[rule]]` tables with `key = <JSON-compatible value>` lines (the preset's subset)."""
    rules: list[dict[str, Any]] = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line == "[[rule]]":
                rules.append({})
            elif line and not line.startswith("#") and rules:
                key, _, value = line.partition(" = ")
                rules[-1][key.strip()] = json.loads(value)
    return rules


def _shell_allowed(command: str, rules: list[dict[str, Any]], mode: str) -> bool:
    decision = None
    for rule in sorted(rules, key=lambda r: -int(r.get("priority", 0))):
        prefixes = rule.get("commandPrefix", [])
        prefixes = [prefixes] if isinstance(prefixes, str) else prefixes
        if rule.get("toolName", "run_shell_command") == "run_shell_command" and any(
            command.startswith(p) for p in prefixes
        ):
            decision = rule.get("decision")
            break
    if decision is None:
        decision = "allow" if mode == "yolo" else "ask_user"
    return decision == "allow"  # headless: ask_user is treated as deny


def _fatal(args: argparse.Namespace, kind: str, message: str, code: int) -> int:
    if args.output_format == "json":
        error = {"type": kind, "message": message, "code": code}
        sys.stderr.write(json.dumps({"session_id": str(uuid.uuid4()), "error": error}, indent=2))
        sys.stderr.write("\n")
    else:
        sys.stderr.write(f"{kind}: {message}\n")
    return code


def _help(parser: argparse.ArgumentParser) -> int:
    """yargs-like: `Options:` then one line per flag."""
    lines = ["Usage: gemini [options] [command]", "", "Options:"]
    for action in parser._actions:
        if action.option_strings:
            lines.append("  " + ", ".join(action.option_strings))
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def main(argv: list[str]) -> int:
    parser = _parser()
    if "--help" in argv or "-h" in argv:
        return _help(parser)
    args = parser.parse_args(argv)
    if args.yolo and args.approval_mode:
        return _fatal(
            args,
            "FatalInputError",
            "Cannot use both --yolo (-y) and --approval-mode "
            "together. Use --approval-mode=yolo instead.",
            42,
        )
    if args.yolo:
        sys.stderr.write("--yolo is deprecated. Use --approval-mode=yolo instead.\n")
    if args.allowed_tools:
        sys.stderr.write("The allowed-tools cli argument is deprecated; use the policy engine.\n")
    stdin = common.read_stdin()
    prompt = "\n".join(x for x in (stdin, args.prompt or " ".join(args.query)) if x)
    if not prompt.strip():
        return _fatal(args, "FatalInputError", "No input provided via stdin.", 42)
    trusted = (
        _version() < (0, 41)
        or getattr(args, "skip_trust", False)
        or os.environ.get("GEMINI_TRUST_WORKSPACE") == "true"
    )
    if not trusted:
        return _fatal(
            args,
            "FatalUntrustedWorkspaceError",
            "Gemini CLI is not running in a "
            "trusted directory; use --skip-trust to trust it for this run.",
            55,
        )
    fail = common.failure()
    if fail == "nonzero":
        sys.stderr.write("Error: stand-in crash (STANDIN_FAIL=nonzero)\n")
        return 1
    if fail == "garbage":
        sys.stdout.write(common.GARBAGE)
        return 0
    if fail == "error":
        return _fatal(args, "ApiError", "stand-in failure (STANDIN_FAIL=error)", 1)
    mode = args.approval_mode or ("yolo" if args.yolo else "default")
    rules = _policy_rules(getattr(args, "policy", []))
    for tool in args.allowed_tools:
        found = re.fullmatch(r"run_shell_command\((.*)\)", tool)
        if found:
            rules.append({"commandPrefix": found[1], "decision": "allow", "priority": 0})
    repo = Path.cwd()
    edit = common.replay_edit(repo) if mode in ("auto_edit", "yolo") else None
    ran, denied = [], []
    for command in common.requested_commands():
        if _shell_allowed(command, rules, mode):
            ran.append([command, *common.run_shell(command, repo)])
        else:
            denied.append(command)
    common.log(
        {
            "tool": "gemini",
            "argv": argv,
            "prompt": prompt,
            "mode": mode,
            "edited": edit is not None and edit.ok,
            "ran": ran,
            "refused": denied,
        }
    )
    if edit is not None and not edit.ok:
        return _fatal(args, "FatalToolExecutionError", edit.report, 54)
    response = common.message("gemini", prompt, edit)
    if args.output_format != "json":
        print(response)
        return 0
    usage = common.usage()
    tokens = {
        "prompt": usage.input_tokens,
        "candidates": usage.output_tokens,
        "total": usage.input_tokens + usage.output_tokens,
        "cached": 0,
        "thoughts": 0,
        "tool": 0,
    }
    calls = len(ran) + len(denied) + (1 if edit else 0)
    stats = {
        "models": {
            args.model: {
                "api": {"totalRequests": 1 + calls, "totalErrors": 0, "totalLatencyMs": 900},
                "tokens": tokens,
            }
        },
        "tools": {
            "totalCalls": calls,
            "totalSuccess": len(ran) + (1 if edit else 0),
            "totalFail": len(denied),
            "totalDurationMs": 10,
            "totalDecisions": {
                "accept": 0,
                "reject": len(denied),
                "modify": 0,
                "auto_accept": len(ran) + (1 if edit else 0),
            },
            "byName": {},
        },
        "files": {"totalLinesAdded": 0, "totalLinesRemoved": 0},
    }
    print(
        json.dumps(
            {"session_id": str(uuid.uuid4()), "response": response, "stats": stats}, indent=2
        )
    )
    return 0
