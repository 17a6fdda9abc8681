"""Stand-in for Claude Code's `claude -p` (tests only; NOT Claude Code).

Models, from the docs (docs/agent-command.md cites them): print mode; the prompt as the
positional argument (or stdin); `--output-format json` printing one result object;
`--permission-mode`; `--allowedTools` / `--disallowedTools` rules `Tool` and
`Bash(<pattern>)` (`*` wildcard, `\\*` a literal star, legacy `prefix:*`), deny rules
first, then allow rules, then the mode; in print mode nobody can approve anything else,
so it is denied and listed in `permission_denials`. `acceptEdits` and
`bypassPermissions` approve file edits, only `bypassPermissions` approves Bash.
Unknown options are refused like commander does: `error: unknown option '--x'`, exit 1.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from tests.agents.standins import common

MODES = ("default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        found = re.search(r"unrecognized arguments: (\S+)", message)
        text = f"unknown option '{found[1]}'" if found else message
        self.exit(1, f"error: {text}\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="claude", add_help=False, allow_abbrev=False)
    p.add_argument("-p", "--print", action="store_true", dest="print_mode")
    p.add_argument("--output-format", choices=("text", "json", "stream-json"), default="text")
    p.add_argument("--permission-mode", choices=MODES, default="default")
    for flag in ("--allowedTools", "--allowed-tools"):
        p.add_argument(flag, nargs="+", action="extend", dest="allowed", default=[])
    for flag in ("--disallowedTools", "--disallowed-tools"):
        p.add_argument(flag, nargs="+", action="extend", dest="disallowed", default=[])
    p.add_argument("--max-turns", type=int)
    p.add_argument("--model")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("prompt", nargs="?")
    return p


def _rules(values: list[str]) -> list[str]:
    """Rules given as separate arguments or as one comma-separated string."""
    return [r.strip() for v in values for r in re.split(r",(?![^()]*\))", v) if r.strip()]


def _matches(rule: str, tool: str, command: str | None) -> bool:
    """`Tool` matches every call; `Bash(spec)` matches commands the glob `spec` covers.

    `*` matches any characters, so `Bash(npm *)` does not match a bare `npm`; `\\*` is
    a literal star; the legacy `prefix:*` matches the prefix alone or with arguments.
    """
    if rule == tool:
        return True
    found = re.fullmatch(rf"{tool}\((.*)\)", rule, re.DOTALL)
    if not found or command is None:
        return False
    spec = found[1]
    if spec.endswith(":*"):
        return command == spec[:-2] or command.startswith(spec[:-2] + " ")
    pattern = "".join(
        ".*" if part == "*" else re.escape(part[1:] if part.startswith("\\") else part)
        for part in re.split(r"(\\\\|\\\*|\*)", spec)
    )
    return re.fullmatch(pattern, command, re.DOTALL) is not None


def _decide(tool: str, command: str | None, args: argparse.Namespace) -> bool:
    """Deny rules, then allow rules, then the permission mode; print mode cannot ask."""
    parts = common.split_compound(command) if command is not None else [None]
    for part in parts:
        if any(_matches(r, tool, part) for r in _rules(args.disallowed)):
            return False
    if all(any(_matches(r, tool, part) for r in _rules(args.allowed)) for part in parts):
        return True
    if args.permission_mode == "bypassPermissions":
        return True
    return tool == "Edit" and args.permission_mode in ("acceptEdits", "auto")


def main(argv: list[str]) -> int:
    started = time.monotonic()
    args = _parser().parse_args(argv)
    if not args.print_mode:
        sys.stderr.write("stand-in claude models print mode (-p) only\n")
        return 1
    if args.output_format == "stream-json" and not args.verbose:
        sys.stderr.write(
            "Error: When using --print, --output-format=stream-json requires --verbose\n"
        )
        return 1
    stdin = common.read_stdin()
    prompt = args.prompt if args.prompt is not None else stdin
    if not prompt.strip():
        sys.stderr.write(
            "Error: Input must be provided either through stdin or as a prompt "
            "argument when using --print\n"
        )
        return 1
    fail = common.failure()
    if fail == "nonzero":
        sys.stderr.write("Error: stand-in crash (STANDIN_FAIL=nonzero)\n")
        return 1
    if fail == "garbage":
        sys.stdout.write(common.GARBAGE)
        return 0
    repo = Path.cwd()
    work = _Work() if fail == "error" else _do_the_work(args, repo)  # error: the API failed
    common.log(
        {
            "tool": "claude",
            "argv": argv,
            "prompt": prompt,
            "stdin": stdin,
            "edited": work.edit is not None and work.edit.ok,
            "ran": work.ran,
            "refused": work.refused,
        }
    )
    errors = []
    if fail == "error":
        errors.append("stand-in failure (STANDIN_FAIL=error)")
    elif work.edit is not None and not work.edit.ok:
        errors.append(work.edit.report)
    result = _result(work, errors, common.message("claude", prompt, work.edit), started)
    common.noise()
    if args.output_format == "text":
        print(result.get("result") or "; ".join(errors))
    elif args.output_format == "stream-json":
        init = {"type": "system", "subtype": "init", "session_id": result["session_id"]}
        print(json.dumps({**init, "cwd": str(repo), "permissionMode": args.permission_mode}))
        print(json.dumps(result))
    else:
        print(json.dumps(result, indent=2))
    return 1 if errors else 0


@dataclass
class _Work:
    edit: common.Edit | None = None
    ran: list[list[object]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    denials: list[dict[str, object]] = field(default_factory=list)


def _do_the_work(args: argparse.Namespace, repo: Path) -> _Work:
    """Edit (if permitted), then run the requested commands (those permitted)."""
    work = _Work()
    if _decide("Edit", None, args):
        work.edit = common.replay_edit(repo)
    else:
        work.denials.append({"tool_name": "Edit", "tool_use_id": _id(), "tool_input": {}})
    for command in common.requested_commands():
        if _decide("Bash", command, args):
            work.ran.append([command, *common.run_shell(command, repo)])
        else:
            work.refused.append(command)
            denial: dict[str, object] = {"tool_name": "Bash", "tool_use_id": _id()}
            denial["tool_input"] = {"command": command}
            work.denials.append(denial)
    return work


def _result(work: _Work, errors: list[str], final: str, started: float) -> dict[str, Any]:
    """The result object `--output-format json` prints (tests/agents/samples/claude_*)."""
    usage = common.usage()
    result: dict[str, Any] = {
        "type": "result",
        "subtype": "error_during_execution" if errors else "success",
        "is_error": bool(errors),
        "duration_ms": int((time.monotonic() - started) * 1000),
        "duration_api_ms": 900,
        "num_turns": 2 + len(work.ran) + len(work.refused),
        "stop_reason": "end_turn",
        "session_id": str(uuid.uuid4()),
        "total_cost_usd": usage.cost_usd,
        "usage": {
            "input_tokens": usage.input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": usage.output_tokens,
            "server_tool_use": {"web_search_requests": 0},
            "service_tier": "standard",
        },
        "modelUsage": {
            "stand-in-replay": {
                "inputTokens": usage.input_tokens,
                "outputTokens": usage.output_tokens,
                "cacheReadInputTokens": 0,
                "cacheCreationInputTokens": 0,
                "costUSD": usage.cost_usd,
            }
        },
        "permission_denials": work.denials,
        "uuid": str(uuid.uuid4()),
    }
    if errors:
        result["errors"] = errors
    else:
        result["result"] = final
    return result


def _id() -> str:
    return f"toolu_{uuid.uuid4().hex[:20]}"
