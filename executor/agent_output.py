"""What an agent CLI's output says: one `AgentReport` per run, whatever the tool.

`parse_agent_output` reads the output each preset asks for (docs/agent-command.md,
"Presets"). That output comes from another program, so it is read tolerantly and nothing
here raises on garbage: a count that is not a finite, non-negative number is unknown, and
a run whose output cannot be understood is an error quoting its first lines
(docs/agent-command.md, "How an agent's output is read").
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import Field

from executor.datamodel import Strict

_EXCERPT_LINES = 5
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class AgentReport(Strict):
    """One agent run, as its CLI reported it. The executor still verifies the work."""

    agent: str = Field(description="preset name, or 'command' for a plain --agent-command")
    ok: bool
    final_message: str = ""
    error_message: str | None = None
    cost_usd: float | None = Field(default=None, description="as reported by the CLI")
    input_tokens: int | None = None
    output_tokens: int | None = None
    turns: int | None = Field(default=None, description="model round trips, if reported")
    denied: list[str] = Field(
        default_factory=list, description="tool calls the CLI's permission system refused"
    )
    duration_s: float = Field(ge=0)


Parser = Callable[[str, str, str, int, float], AgentReport]


def parse_agent_output(
    name: str | None, stdout: str, stderr: str, exit_code: int, duration_s: float
) -> AgentReport:
    """The report for one run of preset `name` (None or unknown: a plain command)."""
    parser = _PARSERS.get(name or "", _generic)
    return parser(name or "command", stdout, stderr, exit_code, duration_s)


# -- helpers --------------------------------------------------------------------------


def _excerpt(*texts: str) -> str:
    """The first few non-empty lines of the first non-empty text, for error messages."""
    for text in texts:
        lines = [ln for ln in _ANSI.sub("", text).splitlines() if ln.strip()]
        if lines:
            shown = "\n".join(lines[:_EXCERPT_LINES])
            more = len(lines) - _EXCERPT_LINES
            return shown + (f"\n... ({more} more lines)" if more > 0 else "")
    return "no output"


def _failed(agent: str, why: str, stdout: str, stderr: str, duration_s: float) -> AgentReport:
    return AgentReport(
        agent=agent,
        ok=False,
        final_message="",
        error_message=f"{why}: {_excerpt(stderr, stdout)}",
        duration_s=duration_s,
    )


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def reported_number(value: object) -> float | None:
    """A cost or count a CLI or a host reported: a finite number, not negative; else
    unknown (None), so no budget is spent by a number no float can hold."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer of hundreds of digits
        return None
    return number if math.isfinite(number) and number >= 0 else None


def reported_int(value: object) -> int | None:
    number = reported_number(value)
    return int(number) if number is not None else None


def _add(total: int | None, value: object) -> int | None:
    got = reported_int(value)
    if got is None:
        return total
    return got if total is None else total + got


def _json_lines(text: str) -> Iterator[dict[str, Any]]:
    """The JSON objects among `text`'s lines (other lines are skipped)."""
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            yield value


def _json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text` that starts a line (it may span many lines)."""
    decoder = json.JSONDecoder()
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("{"):
            start = offset + len(line) - len(line.lstrip())
            try:
                value, _ = decoder.raw_decode(text, start)
            except (ValueError, RecursionError):
                value = None
            if isinstance(value, dict):
                return value
        offset += len(line)
    return None


# -- the generic --agent-command ------------------------------------------------------


def _generic(
    agent: str, stdout: str, stderr: str, exit_code: int, duration_s: float
) -> AgentReport:
    if exit_code != 0:
        return _failed(agent, f"exit {exit_code}", stdout, stderr, duration_s)
    return AgentReport(agent=agent, ok=True, final_message=stdout.strip(), duration_s=duration_s)


# -- Claude Code: one result object (--output-format json) ----------------------------


def _claude(agent: str, stdout: str, stderr: str, exit_code: int, duration_s: float) -> AgentReport:
    results = [obj for obj in _json_lines(stdout) if obj.get("type") == "result"]
    if not results:
        whole = _json_object(stdout)
        results = [whole] if whole is not None and whole.get("type") == "result" else []
    if not results:
        why = f"no result object in claude output (exit {exit_code})"
        return _failed(agent, why, stdout, stderr, duration_s)
    res = results[-1]
    text = _str(res.get("result"))
    subtype = _str(res.get("subtype")) or "?"
    ok = res.get("is_error") is False and subtype == "success" and exit_code == 0
    error = None
    if not ok and res.get("is_error") is False and subtype == "success":
        error = f"claude exited {exit_code} after a successful result: {_excerpt(stderr)}"
    elif not ok:
        errors = res.get("errors")
        listed = [str(e) for e in errors] if isinstance(errors, list) else []
        detail = text or "; ".join(listed) or _excerpt(stderr)
        error = f"claude {subtype} (exit {exit_code}): {detail}"
    usage = _dict(res.get("usage"))
    inputs: int | None = None
    for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
        inputs = _add(inputs, usage.get(key))
    denials = res.get("permission_denials")
    return AgentReport(
        agent=agent,
        ok=ok,
        final_message=text.strip() if ok else "",
        error_message=error,
        cost_usd=reported_number(res.get("total_cost_usd")),
        input_tokens=inputs,
        output_tokens=reported_int(usage.get("output_tokens")),
        turns=reported_int(res.get("num_turns")),
        denied=[_claude_denial(d) for d in denials] if isinstance(denials, list) else [],
        duration_s=duration_s,
    )


def _claude_denial(denial: object) -> str:
    if not isinstance(denial, dict):
        return str(denial)
    tool = denial.get("tool_name", "?")
    tool_input = denial.get("tool_input")
    if isinstance(tool_input, dict) and isinstance(tool_input.get("command"), str):
        return f"{tool}({tool_input['command']})"
    return str(tool)


# -- Codex: JSONL events (codex exec --json) -------------------------------------------


def _codex(agent: str, stdout: str, stderr: str, exit_code: int, duration_s: float) -> AgentReport:
    events = list(_json_lines(stdout))
    if not any(isinstance(e.get("type"), str) for e in events):
        why = f"no JSON events in codex output (exit {exit_code})"
        return _failed(agent, why, stdout, stderr, duration_s)
    message, failure, pending_error = "", None, None
    inputs: int | None = None
    outputs: int | None = None
    turns = 0
    denied: list[str] = []
    for event in events:
        kind = event.get("type")
        item = _dict(event.get("item"))
        if kind == "turn.completed":
            turns += 1
            pending_error = None  # an error before a completed turn was a transient notice
            usage = _dict(event.get("usage"))
            inputs = _add(inputs, usage.get("input_tokens"))
            outputs = _add(outputs, usage.get("output_tokens"))
        elif kind == "turn.failed":
            failure = _str(_dict(event.get("error")).get("message")) or "turn failed"
        elif kind == "error":
            pending_error = _str(event.get("message")) or "error"
        elif kind == "item.completed" and item.get("type") == "agent_message":
            message = _str(item.get("text"))
        elif kind == "item.completed" and item.get("status") == "declined":
            denied.append(str(item.get("command") or item.get("type")))
    error = failure or pending_error
    if error is None and exit_code != 0:
        error = _excerpt(stderr, stdout)
    if error is None and turns == 0:
        error = "no turn.completed event"
    return AgentReport(
        agent=agent,
        ok=error is None,
        final_message=message.strip() if error is None else "",
        error_message=None if error is None else f"codex (exit {exit_code}): {error}",
        input_tokens=inputs,
        output_tokens=outputs,
        turns=turns or None,
        denied=denied,
        duration_s=duration_s,
    )


# -- Gemini CLI: one JSON object (--output-format json) --------------------------------


def _gemini(agent: str, stdout: str, stderr: str, exit_code: int, duration_s: float) -> AgentReport:
    obj = _json_object(stdout) or _json_object(stderr)  # fatal errors go to stderr
    if obj is None:
        why = f"no JSON object in gemini output (exit {exit_code})"
        return _failed(agent, why, stdout, stderr, duration_s)
    err = obj.get("error")
    error = None
    if isinstance(err, dict):
        code = f" {err['code']}" if "code" in err else ""
        error = f"{err.get('type', 'error')}{code}: {err.get('message', '')}".strip()
    elif err is not None:
        error = str(err)
    if error is None and exit_code != 0:
        error = f"exit {exit_code}: {_excerpt(stderr)}"
    models = _dict(_dict(obj.get("stats")).get("models"))
    inputs: int | None = None
    outputs: int | None = None
    for model in models.values():
        tokens = _dict(_dict(model).get("tokens"))
        inputs = _add(inputs, tokens.get("prompt"))
        outputs = _add(outputs, tokens.get("candidates"))
    response = _str(obj.get("response"))
    return AgentReport(
        agent=agent,
        ok=error is None,
        final_message=response.strip() if error is None else "",
        error_message=None if error is None else f"gemini: {error}",
        input_tokens=inputs,
        output_tokens=outputs,
        duration_s=duration_s,
    )


# -- aider: plain text with usage lines --------------------------------------------------

_COUNT = r"(\d+(?:\.\d+)?k?)"
_TOKENS = re.compile(
    rf"Tokens: {_COUNT} sent(?:, {_COUNT} cache write)?(?:, {_COUNT} cache hit)?, "
    rf"{_COUNT} received\."
)
_COST = re.compile(r"Cost: \$(\d+(?:\.\d+)?) message, \$(\d+(?:\.\d+)?) session\.")
_API_ERROR = re.compile(r"^litellm\.\w+(?:Error|Timeout)\b.*")
#: Lines aider prints around the model's reply (start-up banner, usage report).
_BANNER = (
    "Aider v",
    "Main model:",
    "Weak model:",
    "Editor model:",
    "Model:",
    "Git repo:",
    "Repo-map:",
    "Tokens:",
    "Cost:",
)


def _aider_count(text: str | None) -> int:
    """aider's `format_tokens` output back to a number ('2.1k' -> 2100; rounded by aider)."""
    if not text:
        return 0
    number = reported_number(float(text[:-1]) * 1000 if text.endswith("k") else float(text))
    return round(number) if number is not None else 0


def _aider(agent: str, stdout: str, stderr: str, exit_code: int, duration_s: float) -> AgentReport:
    text = _ANSI.sub("", stdout)
    lines = text.splitlines()
    reports = [m for m in (_TOKENS.search(ln) for ln in lines) if m]
    costs = [m for m in (_COST.search(ln) for ln in lines) if m]
    inputs = sum(_aider_count(m[1]) + _aider_count(m[2]) + _aider_count(m[3]) for m in reports)
    outputs = sum(_aider_count(m[4]) for m in reports)
    api_errors = [ln.strip() for ln in lines if _API_ERROR.match(ln.strip())]
    error = None
    if exit_code != 0:
        error = f"exit {exit_code}: {_excerpt(stderr, stdout)}"
    elif not any(ln.startswith("Aider v") for ln in lines):  # aider always prints its banner
        error = f"no aider banner in the output: {_excerpt(stdout, stderr)}"
    elif api_errors and not reports:  # aider exits 0 even when no model call succeeded
        error = api_errors[-1]
    body = [ln for ln in lines if not ln.strip().startswith(_BANNER)]
    return AgentReport(
        agent=agent,
        ok=error is None,
        final_message="\n".join(body).strip() if error is None else "",
        error_message=None if error is None else f"aider: {error}",
        # the session's total so far
        cost_usd=reported_number(float(costs[-1][2])) if costs else None,
        input_tokens=inputs if reports else None,
        output_tokens=outputs if reports else None,
        turns=len(reports) or None,
        duration_s=duration_s,
    )


_PARSERS: dict[str, Parser] = {
    "claude": _claude,
    "codex": _codex,
    "gemini": _gemini,
    "aider": _aider,
}
