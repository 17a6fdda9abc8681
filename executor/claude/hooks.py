"""The Claude Code hooks: what `executor hook stop|post-tool|session-start|pre-tool` answer.

Each reads the event's JSON on stdin and looks only at files: the repository's run
folders (`executor.claude.runs`) and what waits there. What each says, and when the Stop
hook lets a person stop, is in docs/claude-code.md, "The hooks". A hook never fails its
host: any error becomes one line for the person, with nothing blocked or denied. The
hooks are declared once (`HOOKS`: the CLI's commands and `executor.cli.main`'s fast path),
and the input is validated only once the files show something to act on, because a Stop
with nothing waiting runs on every turn (docs/performance.md, "The Claude Code hooks").
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

from executor.claude.nextstep import describe, describe_paused, join, option_words
from executor.claude.runs import (
    REQUEST_NAME,
    Pending,
    Scan,
    named_folders,
    read_run_file,
    run_folders,
    scan,
)

if TYPE_CHECKING:
    from executor.claude.models import HookInput, HookRecord

#: Stops in a row the Stop hook blocks for one request (a new turn of the person's
#: starts the count again). An agent request needs two steps (the subagent, then
#: `bridge respond`); a question for the person needs one (to put it).
MAX_BLOCKS = {"agent": 2, "human": 1}
#: Our record beside a pending request (`executor.claude.models.HookRecord`).
RECORD_NAME = ".agent-hook.json"
#: The most of our record read (it is under 300 bytes).
RECORD_LIMIT = 64 << 10
_EXECUTOR_RE = re.compile(r"(?:^|[\s;&|(/])executor(?:\s|$)")

Output = dict[str, Any] | None


class Hook(NamedTuple):
    """One `executor hook NAME`: the Claude Code events it answers, its help, and what
    it leaves alone when it fails."""

    name: str
    events: tuple[str, ...]
    help: str
    on_failure: str


HOOKS: tuple[Hook, ...] = (
    Hook("stop", ("Stop",), "block the stop while a request of this repository's run "
         "waits, with the exact next step (our cap: twice in a row per agent request, "
         "once per question)", "the stop is allowed"),
    Hook("post-tool", ("PostToolUse", "PostToolUseFailure"), "after a Bash call that ran "
         "`executor`, the next step of a run that waits, as context for Claude",
         "nothing was added"),
    Hook("session-start", ("SessionStart",), "name a run left waiting (a request, a "
         "pause) with the command that continues it", "nothing was added"),
    Hook("pre-tool", ("PreToolUse",), "deny our subagents a Bash git command that "
         "commits, pushes or moves history", "the command was not checked"),
)  # fmt: skip
EVENTS: dict[str, Hook] = {h.name: h for h in HOOKS}


def run(name: str, stdin: TextIO | None = None, stdout: TextIO | None = None,
        env: Mapping[str, str] | None = None) -> int:  # fmt: skip
    """`executor hook NAME`: read the event's JSON, print ours. Always 0."""
    import os

    out: Output
    try:
        raw = (stdin or sys.stdin).read()
    except Exception as e:
        out = _failed(name, f"cannot read stdin ({_one_line(e)})")
    else:
        out = handle(name, raw, os.environ if env is None else env)
    if out is not None:
        with contextlib.suppress(Exception):  # a host that stopped reading: nothing to say
            text = json.dumps(_shown(out), ensure_ascii=False)
            print(text, file=stdout or sys.stdout, flush=True)
    return 0


def _shown(value: Any) -> Any:
    """Every text of our output through `console.shown`: Claude Code puts `reason` and
    `systemMessage` on the person's terminal, and they quote a request, which quotes an
    agent's or a test run's words."""
    from executor.console import shown

    if isinstance(value, str):
        return shown(value)
    if isinstance(value, dict):
        return {k: _shown(v) for k, v in value.items()}
    return value


def handle(event: str, raw: str, env: Mapping[str, str]) -> Output:
    """What hook `event` prints for the stdin `raw` (None: nothing). Never raises."""
    try:
        if not _worth_reading(event, raw, env):
            return None
    except Exception:
        pass  # the full reading below says what is wrong
    try:
        hook = _read(raw)
    except Exception as e:
        return _failed(event, f"cannot read the hook input ({_one_line(e)})")
    try:
        return _HANDLERS[event](hook, env)
    except Exception as e:  # the boundary: a hook never fails its host
        return _failed(event, f"{type(e).__name__}: {_one_line(e)}")


def _worth_reading(event: str, raw: str, env: Mapping[str, str]) -> bool:
    """False when the files (or where the call comes from) show nothing for the hook to
    act on, so its input need not be read through `HookInput`: a Stop where no request
    waits beside a record naming this conversation; a git call outside our subagents;
    a subagent's Bash call the git guard lets through (every Bash call of every
    conversation starts this hook); a Bash call that does not run `executor`."""
    peek = json.loads(raw)
    if not isinstance(peek, dict):
        return True
    tool_input = peek.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if event == "pre-tool":  # the main conversation's git is the person's
        from executor.claude.gitguard import forbidden_git

        return bool(peek.get("agent_type")) and (
            not isinstance(command, str) or bool(forbidden_git(command))
        )
    if event == "post-tool":
        return not isinstance(command, str) or _EXECUTOR_RE.search(command) is not None
    if event != "stop":
        return True
    cwd = peek.get("cwd")
    folders = _folders(Path(cwd) if isinstance(cwd, str) and cwd else None, env)
    # as our record spells it (`fsutil.dumps_json`); a false match only costs the full read
    session = (
        b'"session_id": '
        + json.dumps(str(peek.get("session_id") or ""), ensure_ascii=False).encode()
    )
    for folder in folders:
        if not (folder / REQUEST_NAME).exists():
            with contextlib.suppress(OSError):
                (folder / RECORD_NAME).unlink()  # kept only beside a pending request
            continue
        problems: list[str] = []
        record = read_run_file(folder / RECORD_NAME, RECORD_LIMIT, problems)
        if problems or (record is not None and session in record):
            return True  # a candidate, or a record to complain about: the full reading
    return False


def _read(raw: str) -> HookInput:
    from executor.claude.models import HookInput
    from executor.datamodel import validate_json

    return validate_json(HookInput, raw.strip() or "{}")


def _failed(event: str, why: str) -> dict[str, Any]:
    return {"systemMessage": f"plan-executor {event} hook: {why}; {EVENTS[event].on_failure}."}


def _one_line(e: BaseException) -> str:
    return (" ".join(str(e).split()) or type(e).__name__)[:300]


def _folders(
    cwd: Path | None, env: Mapping[str, str], named: list[Path] | None = None
) -> list[Path]:
    project = env.get("CLAUDE_PROJECT_DIR")
    return run_folders(
        cwd or Path.cwd(), project_dir=Path(project) if project else None, named=named or ()
    )


def _scan(hook: HookInput, env: Mapping[str, str], *, named: list[Path] | None = None,
          paused: bool = False) -> Scan:  # fmt: skip
    cwd = Path(hook.cwd) if hook.cwd else None
    return scan(_folders(cwd, env, named), paused=paused)


# -- stop -----------------------------------------------------------------------------
def on_stop(hook: HookInput, env: Mapping[str, str]) -> Output:
    found = _scan(hook, env)
    _forget(found.folders)
    reasons: list[str] = []
    held: list[str] = []
    for p in found.pending:
        record = _record(p.folder, found.problems)
        if record is None or record.session_id != hook.session_id:
            continue  # not this conversation's loop: SessionStart named it
        asking = p.human and not p.answered
        if asking and _asked(p, hook.last_assistant_message):
            continue  # the question is with the person: the stop is the wait
        cap = MAX_BLOCKS["human" if asking else "agent"]
        again = hook.stop_hook_active and record.request_id == p.request.request_id
        count = record.blocks if again else 0
        if count >= cap:
            held.append(_still_waiting(p))
            continue
        _save_record(p, hook.session_id, blocks=count + 1)
        reasons.append(
            describe(p) + f"\n(plan-executor's Stop hook: hold {count + 1} of at most {cap} "
            f"in a row for this request. If the person asked to stop, the turn ends by saying "
            f"the run waits: its state is saved, and the step above continues it.)"
        )
    lines = held + [f"plan-executor: {problem}" for problem in found.problems]
    if reasons:
        block: dict[str, Any] = {"decision": "block", "reason": join(reasons)}
        return {**block, "systemMessage": " ".join(lines)} if lines else block
    return {"systemMessage": " ".join(lines)} if lines else None


def _asked(p: Pending, message: str | None) -> bool:
    """Whether Claude's last message puts the question: it quotes the question, or names
    two of its options (or its only one)."""
    if not message:
        return False
    text = " ".join(message.lower().replace("_", " ").split())
    question = " ".join(str(p.request.context.get("question") or "").lower().split())
    if question and question[:60] in text:
        return True
    words = option_words(p)
    named = {i // 2 for i, word in enumerate(words) if word and word in text}
    return len(named) >= min(2, len(words) // 2) > 0


def _still_waiting(p: Pending) -> str:
    who = "your decision" if p.human else f"the subagent {p.request.agent_name}"
    return (
        f"plan-executor: the run in {p.folder} still waits for {who} (request "
        f"{p.request.request_id}); `executor bridge show --dir {p.folder}` shows it, and "
        f"asking Claude to continue picks it up."
    )


def _record(folder: Path, problems: list[str]) -> HookRecord | None:
    """Our record beside the request in `folder`: None when there is none yet, or it is
    unreadable (no conversation runs this loop then; a FIFO or a link put in its place
    is said in `problems`, and the next `executor` call's record replaces it)."""
    from executor.claude.models import HookRecord
    from executor.datamodel import validate_json

    data = read_run_file(folder / RECORD_NAME, RECORD_LIMIT, problems)
    try:
        return None if data is None else validate_json(HookRecord, data)
    except Exception:
        return None


def _save_record(p: Pending, session_id: str, *, blocks: int) -> None:
    from executor import fsutil
    from executor.claude.models import HookRecord
    from executor.datamodel import dump

    record = HookRecord(session_id=session_id, request_id=p.request.request_id, blocks=blocks)
    fsutil.atomic_write_json(p.folder / RECORD_NAME, dump(record), fault="hook_record")


def _forget(folders: list[Path]) -> None:
    """Our record is kept only beside a pending request."""
    for folder in folders:
        if not (folder / REQUEST_NAME).exists():
            with contextlib.suppress(OSError):
                (folder / RECORD_NAME).unlink()


# -- post-tool --------------------------------------------------------------------------
def on_post_tool(hook: HookInput, env: Mapping[str, str]) -> Output:
    command = hook.tool_input.get("command")
    if hook.tool_name != "Bash" or not isinstance(command, str) or hook.agent_id:
        return None  # a subagent's own calls (a builder's test run) relay nothing
    if not _EXECUTOR_RE.search(command):
        return None
    output = hook.error if hook.error is not None else _response_text(hook.tool_response)
    named = named_folders(output)
    found = _scan(hook, env, named=named)
    if named:  # the requests this call left
        mine = {folder.resolve() for folder in named}
        pending = [p for p in found.pending if p.folder in mine]
    elif (hook.error or "").startswith("Exit code 42"):  # its NEED_AGENT line was cut
        pending = found.pending
    else:
        pending = []
    if not pending:
        return _problems(found)
    for p in pending:  # this conversation runs these loops now; its blocks start afresh
        _save_record(p, hook.session_id, blocks=0)
    event = hook.hook_event_name
    if event not in ("PostToolUse", "PostToolUseFailure"):
        event = "PostToolUseFailure" if hook.error is not None else "PostToolUse"
    context = join([describe(p) for p in pending])
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}


def _response_text(response: Any) -> str:
    if isinstance(response, dict):
        return "\n".join(str(response.get(k) or "") for k in ("stdout", "stderr"))
    return "" if response is None else str(response)


def _problems(found: Scan) -> Output:
    if not found.problems:
        return None
    return {"systemMessage": " ".join(f"plan-executor: {p}" for p in found.problems)}


# -- session-start ----------------------------------------------------------------------
def on_session_start(hook: HookInput, env: Mapping[str, str]) -> Output:
    found = _scan(hook, env, paused=True)
    texts = [describe(p) for p in found.pending] + [describe_paused(r) for r in found.paused]
    if not texts:
        return _problems(found)
    context = (
        "A plan-executor run of this repository was left waiting; the person decides "
        "whether to go on.\n\n" + join(texts)
    )
    where = ", ".join(str(p.folder) for p in found.pending) or ", ".join(
        str(r.folder) for r in found.paused
    )
    lines = [f"plan-executor: a run is waiting in {where}."]
    lines += [f"plan-executor: {problem}" for problem in found.problems]
    return {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context},
        "systemMessage": " ".join(lines),
    }


# -- pre-tool ---------------------------------------------------------------------------
def on_pre_tool(hook: HookInput, env: Mapping[str, str]) -> Output:
    from executor.claude.gitguard import forbidden_git
    from executor.claude.install import AGENT_NAMES

    command = hook.tool_input.get("command")
    agent = (hook.agent_type or "").rsplit(":", 1)[-1]
    if hook.tool_name != "Bash" or agent not in AGENT_NAMES or not isinstance(command, str):
        return None

    bad = forbidden_git(command)
    if not bad:
        return None
    why = (
        f"plan-executor: the subagent {agent} does not run {', '.join(sorted(set(bad)))}. "
        f"The executor checks each step itself and makes the session's one commit; leave "
        f"the changes in the worktree and say in the answer what you changed."
    )
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": why,
        }
    }


_HANDLERS: dict[str, Callable[[HookInput, Mapping[str, str]], Output]] = {
    "stop": on_stop,
    "post-tool": on_post_tool,
    "session-start": on_session_start,
    "pre-tool": on_pre_tool,
}
