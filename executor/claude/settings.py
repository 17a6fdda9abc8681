"""Our hooks in `.claude/settings.json`, merged into what the person has there.

Ours are recognised by their command, which starts with `executor hook ` (`MARKER`):
install-claude first takes every such handler out (a group left with no handler goes,
an event left with no group goes, `hooks` left empty goes), then appends one group per
event of ours. Everything else the person has (their hooks, even in the same event,
their permissions, any other key, the order of keys) is kept as it is; the file is
re-serialised (2-space JSON), so only its spacing can change. `--remove` only takes ours
out. A file that is not JSON, or whose `hooks` is not the shape Claude Code documents,
is refused (ConfigError, exit 64) before anything is written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from executor.errors import ConfigError

SETTINGS = ".claude/settings.json"
#: Every hook command we write starts with this; nothing else of a person's does.
MARKER = "executor hook "
#: Seconds Claude Code waits for one of our hooks (a hook that times out blocks nothing).
TIMEOUT = 30


def _handler(event: str, condition: str | None = None) -> dict[str, Any]:
    handler: dict[str, Any] = {"type": "command"}
    if condition:
        handler["if"] = condition  # Claude Code spawns the hook only for such a command
    handler["command"] = MARKER + event
    handler["timeout"] = TIMEOUT
    return handler


#: Claude Code event -> our matcher group. Stop and SessionStart take no matcher (every
#: stop, every session start, resume, /clear and compaction); PostToolUse fires only
#: for a Bash call that succeeded, PostToolUseFailure for one that exited non-zero
#: (exit 42 among them), so the same hook is on both.
OUR_HOOKS: dict[str, dict[str, Any]] = {
    "SessionStart": {"hooks": [_handler("session-start")]},
    "Stop": {"hooks": [_handler("stop")]},
    "PostToolUse": {"matcher": "Bash", "hooks": [_handler("post-tool", "Bash(executor *)")]},
    "PostToolUseFailure": {
        "matcher": "Bash",
        "hooks": [_handler("post-tool", "Bash(executor *)")],
    },
    # no `if` rule: Claude Code matches `Bash(git *)` per subcommand, so it never started
    # the guard for `if ...; then git push; fi`, `{ git commit; }` or `find -exec git push`
    "PreToolUse": {"matcher": "Bash", "hooks": [_handler("pre-tool")]},
}


def is_ours(handler: object) -> bool:
    if not isinstance(handler, dict):
        return False
    command = handler.get("command")
    return isinstance(command, str) and command.lstrip().startswith(MARKER)


def read_settings(path: Path) -> dict[str, Any] | None:
    """The settings in `path` (None when there is no file); ConfigError naming the file
    and the problem when it is not JSON or its `hooks` is not Claude Code's shape."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read it ({e}); nothing was written.") from e
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(
            f"{path}:{e.lineno}: not valid JSON ({e.msg}, column {e.colno}); Claude Code "
            f"cannot read it either. Fix it, then run install-claude again; nothing was "
            f"written."
        ) from e
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path}: expected a JSON object at the top, found {type(data).__name__}; nothing "
            f"was written."
        )
    from executor.claude.models import ClaudeSettings
    from executor.datamodel import DataError, validate

    try:
        validate(ClaudeSettings, data)
    except DataError as e:
        raise ConfigError(
            f"{path}: its hooks are not the shape Claude Code documents ("
            + "; ".join(e.problems)
            + "); fix them, then run install-claude again; nothing was written."
        ) from e
    return data


def without_ours(settings: dict[str, Any]) -> dict[str, Any]:
    """A copy of `settings` with every handler of ours taken out."""
    out = dict(settings)
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return out
    kept_events: dict[str, Any] = {}
    for event, groups in hooks.items():
        kept_groups = []
        for group in groups:
            handlers = group.get("hooks", [])
            mine = [h for h in handlers if is_ours(h)]
            if not mine:
                kept_groups.append(group)
            elif len(mine) < len(handlers):
                kept_groups.append({**group, "hooks": [h for h in handlers if not is_ours(h)]})
        if kept_groups or not groups:
            kept_events[event] = kept_groups
    if kept_events or not hooks:
        out["hooks"] = kept_events
    else:
        del out["hooks"]
    return out


def with_ours(settings: dict[str, Any]) -> dict[str, Any]:
    """`settings` with our hooks (and no older copy of them) added."""
    out = without_ours(settings)
    hooks = dict(out.get("hooks") or {})
    for event, group in OUR_HOOKS.items():
        hooks[event] = [*hooks.get(event, []), json.loads(json.dumps(group))]
    out["hooks"] = hooks
    return out


def render(settings: dict[str, Any]) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
