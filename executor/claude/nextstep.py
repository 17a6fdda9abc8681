"""What the hooks tell Claude: the exact next step of the relay loop for a waiting run.

One text per waiting request, the same from every hook (Stop, PostToolUse,
SessionStart): what the run waits for, then the commands, with absolute paths, that
answer it and continue the run (`executor bridge respond --dir D ... --resume`, one
process: its exit code is the run's). Claude Code shows hook text to the model as
context, so it is written as facts about the run and the loop, not as orders; each text
stays well under Claude Code's 10,000-character cap on hook output.
"""

from __future__ import annotations

import shlex
from typing import Any

from executor.claude.runs import PausedRun, Pending

#: Characters of a checkpoint's detail quoted (the request holds at most 600; the whole
#: is in the file `context.detail_file` names).
DETAIL_CHARS = 900
#: The most one hook prints (Claude Code moves longer output to a file).
MAX_CHARS = 8000


def q(text: object) -> str:
    """A word of a command line, shell-quoted when it needs it."""
    return shlex.quote(str(text))


def respond(p: Pending, *args: str) -> str:
    return " ".join(["executor bridge respond --dir", q(p.folder), *args, "--resume"])


def continue_line(p: Pending) -> str:
    """The command that continues the run once its answer is written, as the run saved
    it (never the request file's copy, which anything writing the folder can change)."""
    if p.resume:
        return "executor " + " ".join(q(a) for a in p.resume)
    return "the command that stopped, again, with --resume"


def where(p: Pending) -> str:
    """Which step of which run: `session 1 (phase 1), RED step`, `template-create, ...`."""
    ctx = p.request.context
    parts = []
    if isinstance(ctx.get("session"), int):
        parts.append(f"session {ctx['session']}")
        if isinstance(ctx.get("phase"), int):
            parts[-1] += f" (phase {ctx['phase']})"
    elif p.request.phase_name:
        parts.append(p.request.phase_name.replace("_", " "))
    if ctx.get("checkpoint"):
        parts.append(f"checkpoint {ctx['checkpoint']}")
    elif ctx.get("tdd_step"):
        parts.append(f"{str(ctx['tdd_step']).upper()} step")
    parts.append(f"request {p.request.request_id}")
    return ", ".join(parts)


def describe(p: Pending) -> str:
    """The whole next step for one waiting request."""
    head = f"plan-executor: the run in {p.folder} is waiting"
    if p.answered:
        return (
            f"{head}: the answer to its request ({where(p)}) is written in "
            f"{p.folder / '.agent-response.json'}, and nothing has consumed it yet. The run "
            f"continues with `{continue_line(p)}` (its exit code is the run's: 42 means "
            f"the next request)."
        )
    if p.human:
        return _human(p, head)
    return _agent(p, head)


def _agent(p: Pending, head: str) -> str:
    req = p.request
    brief = req.context.get("prompt_file")
    prompt = (
        f"Read the brief at {brief} and do exactly what it asks."
        if brief
        else f"Read the request file {p.folder / '.agent-request.json'}: its `prompt` "
        f"field is your brief; do exactly what it asks."
    )
    return "\n".join(
        [
            f"{head} for the subagent `{req.agent_name}` ({where(p)}).",
            "The relay loop's next step:",
            f"1. The subagent `{req.agent_name}` runs through the Agent tool (Task in older "
            f'Claude Code) with the prompt: "{prompt}"',
            f"2. Its answer goes, unchanged, on stdin to `{respond(p, '--response-file -')}` "
            f"(a quoted heredoc: <<'ANSWER' ... ANSWER). A subagent that failed or could not "
            f"run is reported with `{respond(p, '--status error --error-message', q('WHY'))}`.",
            "That one command records the answer and continues the run; its exit code is the "
            "run's (42 again: the next request, which the hooks describe the same way; 0: "
            "done; anything else: show the person the executor's message).",
        ]
    )


def _human(p: Pending, head: str) -> str:
    ctx = p.request.context
    question = str(ctx.get("question") or p.request.prompt)
    lines = [
        f"{head} for the person's decision ({where(p)}).",
        "The question to put to the person, who chooses (Claude never chooses for them):",
        f"  {question}",
    ]
    detail = str(ctx.get("detail") or "").strip()
    if detail:
        cut = detail[:DETAIL_CHARS] + (" ..." if len(detail) > DETAIL_CHARS else "")
        lines += ["What they decide on:", *(f"  {line}" for line in cut.splitlines())]
    if ctx.get("detail_file"):
        lines.append(f"(All of it: {ctx['detail_file']})")
    options = _options(ctx)
    if options:
        lines.append("Options: " + "; ".join(f"{value} ({label})" for value, label in options))
    lines.append(
        "Once the person has chosen, their choice is recorded, and the run continued, with "
        f"`{respond(p, '--response', 'VALUE')}` (VALUE: the chosen option's value)."
    )
    if any(value == "request_changes" for value, _ in options):
        feedback = respond(p, "--response request_changes --feedback", q("THEIR WORDS"))
        lines.append(f"The changes they ask for go with their choice: `{feedback}`.")
    lines.append(
        "Until they answer, the run waits (its state is saved): ending the turn with the "
        "question is the right way to wait."
    )
    return "\n".join(lines)


def _options(ctx: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    for opt in ctx.get("options") or []:
        if isinstance(opt, dict) and opt.get("value"):
            out.append((str(opt["value"]), str(opt.get("label") or opt["value"])))
    return out


def option_words(p: Pending) -> list[str]:
    """The values and labels of a human request's options, lower case."""
    words = []
    for value, label in _options(p.request.context):
        words += [value.lower().replace("_", " "), label.lower()]
    return words


def describe_paused(run: PausedRun) -> str:
    what = f"session {run.session}" if run.session is not None else "a session"
    note = f" ({run.notes})" if run.notes else ""
    go_on = list(run.scope) or (
        ["resume-session", str(run.session)] if run.session is not None else []
    )
    command = (
        f"executor {' '.join(go_on)} --plan {q(run.folder)}"
        if go_on
        else f"executor status --plan {q(run.folder)}"
    )
    slash = f"/{' '.join(go_on)}" if go_on else "/show-progress"
    return (
        f"plan-executor: the plan run in {run.folder} is paused at {what}{note}; its state "
        f"is saved. It continues where it stopped with `{command}` (or the person types "
        f"{slash}); `executor status --plan {q(run.folder)}` shows the whole plan."
    )


def join(texts: list[str]) -> str:
    text = "\n\n".join(texts)
    if len(text) > MAX_CHARS:
        text = text[: MAX_CHARS - 40].rstrip() + "\n... (cut; `executor bridge show` has it)"
    return text
