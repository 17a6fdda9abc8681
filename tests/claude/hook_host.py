"""A stand-in for Claude Code's hooks, and a stand-in model that acts only on what they say.

`ClaudeCode` reads the project's `.claude/settings.json` as Claude Code does and fires
events the way its hooks reference documents: every handler of the event whose matcher
matches (the tool name for tool events, `source` for SessionStart, none for Stop) and
whose `if` rule matches (`Bash(prefix *)` against each subcommand of the Bash command),
run as a shell command (`sh -c`) in the project with `CLAUDE_PROJECT_DIR` set and the
event's JSON on stdin (`session_id`, `transcript_path`, `cwd`, `hook_event_name`, then
the event's own: `stop_hook_active` and `last_assistant_message`; `tool_name`,
`tool_input`, `tool_response` or `error`; `source`; `agent_id`/`agent_type` inside a
subagent). Output: exit 0 with stdout starting `{` is JSON (`decision`, `reason`,
`hookSpecificOutput`, `systemMessage`); exit 2 blocks with stderr; any other exit is a
non-blocking error. Its Bash tool fires PreToolUse first (a deny means the command never
runs), then PostToolUse after exit 0, or PostToolUseFailure with `error` ("Exit code
N\\n" and the output) after any other exit, as Claude Code does.

`Model` is the stand-in for Claude: it ends its turn after every tool call, and what it
does next comes only from hook text (a Stop hook's reason, a SessionStart context) or
the person's words; it never reads an exit code, the executor's output or a request
file. `Session` runs turns: after each of the model's steps it fires Stop; a block hands
the reason back to the model, an allowed stop ends the turn. Claude Code's own cap is
kept too: a turn ends after 8 blocks (counted strictly: all blocks of the turn).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_SUBCOMMAND_RE = re.compile(r"&&|\|\||[;|&\n]")
_RULE_RE = re.compile(r"^(?P<tool>\w+)\((?P<pattern>.*)\)$")
CLAUDE_CODE_BLOCK_CAP = 8


@dataclass
class Handled:
    """One handler run: its command, exit code and output."""

    command: str
    exit_code: int
    stdout: str
    stderr: str


@dataclass
class Fired:
    """What one event's hooks said, read as Claude Code reads it."""

    event: str
    payload: dict[str, Any]
    runs: list[Handled] = field(default_factory=list)
    block_reasons: list[str] = field(default_factory=list)
    contexts: list[str] = field(default_factory=list)
    system_messages: list[str] = field(default_factory=list)
    denials: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def blocked(self) -> bool:
        return bool(self.block_reasons)


@dataclass
class ToolResult:
    command: str
    exit_code: int | None  # None: denied by a PreToolUse hook, never run
    stdout: str = ""
    stderr: str = ""
    pre: Fired | None = None
    post: Fired | None = None


class ClaudeCode:
    """The hook side of Claude Code, for one conversation in one project."""

    _conversations = 0

    def __init__(self, project: Path, *, env: dict[str, str] | None = None) -> None:
        self.project = project
        self.settings = json.loads((project / ".claude" / "settings.json").read_text("utf-8"))
        bin_dir = str(Path(sys.executable).parent)  # where `executor` is installed
        base = {**os.environ, **(env or {})}
        self.env = {**base, "PATH": bin_dir + os.pathsep + base.get("PATH", ""),
                    "CLAUDE_PROJECT_DIR": str(project)}  # fmt: skip
        ClaudeCode._conversations += 1  # each ClaudeCode is one conversation
        self.session_id = f"stand-in-{ClaudeCode._conversations}"
        self.fired: list[Fired] = []

    # -- events -----------------------------------------------------------------------
    def fire(self, event: str, **fields: Any) -> Fired:
        payload = {
            "session_id": self.session_id,
            "transcript_path": str(self.project / ".stand-in-transcript.jsonl"),
            "cwd": str(self.project),
            "permission_mode": "default",
            "hook_event_name": event,
            **fields,
        }
        fired = Fired(event, payload)
        for group in self.settings.get("hooks", {}).get(event, []):
            if not self._matches(event, group.get("matcher"), payload):
                continue
            for handler in group.get("hooks", []):
                if handler.get("type") != "command":
                    continue
                if "if" in handler and not _rule_matches(handler["if"], payload):
                    continue
                self._run(handler, payload, fired)
        self.fired.append(fired)
        return fired

    @staticmethod
    def _matches(event: str, matcher: str | None, payload: dict[str, Any]) -> bool:
        if event in ("Stop", "UserPromptSubmit") or matcher in (None, "", "*"):
            return True  # Stop has no matcher: one there is ignored
        subject = payload.get("source") if event == "SessionStart" else payload.get("tool_name")
        if re.fullmatch(r"[\w|, -]+", matcher):
            return subject in [m.strip() for m in re.split(r"[|,]", matcher)]
        return re.search(matcher, str(subject)) is not None

    def _run(self, handler: dict[str, Any], payload: dict[str, Any], fired: Fired) -> None:
        proc = subprocess.run(
            ["sh", "-c", handler["command"]],
            cwd=self.project,
            env=self.env,
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            timeout=handler.get("timeout", 600),
        )
        fired.runs.append(Handled(handler["command"], proc.returncode, proc.stdout, proc.stderr))
        if proc.returncode == 2:
            fired.block_reasons.append(proc.stderr)
            return
        if proc.returncode != 0 and not proc.stdout.lstrip().startswith("{"):
            fired.errors.append(f"{handler['command']}: exit {proc.returncode}: {proc.stderr}")
            return
        if not proc.stdout.lstrip().startswith("{"):
            if fired.event == "SessionStart" and proc.stdout.strip():
                fired.contexts.append(proc.stdout)  # plain stdout is context here
            return
        out = json.loads(proc.stdout)
        if out.get("systemMessage"):
            fired.system_messages.append(out["systemMessage"])
        if out.get("decision") == "block":
            assert out.get("reason"), "a block needs a reason"
            fired.block_reasons.append(out["reason"])
        specific = out.get("hookSpecificOutput") or {}
        if specific:
            assert specific.get("hookEventName") == fired.event, specific
            if specific.get("additionalContext"):
                fired.contexts.append(specific["additionalContext"])
            if specific.get("permissionDecision") == "deny":
                fired.denials.append(specific.get("permissionDecisionReason", ""))

    # -- tools ------------------------------------------------------------------------
    def bash(
        self, command: str, *, stdin: str | None = None, agent: str | None = None
    ) -> ToolResult:
        sub = {"agent_id": f"agent-{agent}", "agent_type": agent} if agent else {}
        tool_input = {"command": command, "description": "run", "timeout": 600000}
        pre = self.fire("PreToolUse", tool_name="Bash", tool_input=tool_input, **sub)
        if pre.denials:
            return ToolResult(command, None, pre=pre)
        proc = subprocess.run(
            ["sh", "-c", command],
            cwd=self.project,
            env=self.env,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode == 0:
            response = {"stdout": proc.stdout, "stderr": proc.stderr, "interrupted": False,
                        "isImage": False}  # fmt: skip
            post = self.fire("PostToolUse", tool_name="Bash", tool_input=tool_input,
                             tool_response=response, **sub)  # fmt: skip
        else:
            error = f"Exit code {proc.returncode}\n{proc.stdout}{proc.stderr}"
            post = self.fire("PostToolUseFailure", tool_name="Bash", tool_input=tool_input,
                             error=error, is_interrupt=False, **sub)  # fmt: skip
        return ToolResult(command, proc.returncode, proc.stdout, proc.stderr, pre, post)


def _rule_matches(rule: str, payload: dict[str, Any]) -> bool:
    """A permission rule such as `Bash(git *)` against the tool call: each subcommand of
    a Bash command is checked, leading `VAR=value` words stripped."""
    m = _RULE_RE.match(rule)
    if m is None or m["tool"] != payload.get("tool_name"):
        return False
    pattern = m["pattern"].removesuffix(":*").removesuffix(" *")
    command = str((payload.get("tool_input") or {}).get("command", ""))
    for part in _SUBCOMMAND_RE.split(command):
        words = [w for w in part.split() if not re.match(r"^[A-Za-z_]\w*=", w)]
        text = " ".join(words)
        if text == pattern or text.startswith(pattern + " "):
            return True
    return False


# -- the model ------------------------------------------------------------------------
_SUBAGENT_RE = re.compile(
    r"waiting for the subagent `(?P<name>[^`]+)` \(.*?request (?P<id>[0-9a-f-]+)\)"
)
_PROMPT_RE = re.compile(r'with the prompt: "(?P<prompt>[^"]+)"')
_BRIEF_RE = re.compile(r"Read the brief at (?P<brief>/\S+\.md) ")
_RESPOND_RE = re.compile(r"`(?P<cmd>executor bridge respond [^`]*--response-file - --resume)`")
_HUMAN_RE = re.compile(r"waiting for the person's decision \(.*?request (?P<id>[0-9a-f-]+)\)")
_CHOICE_RE = re.compile(r"`(?P<cmd>executor bridge respond [^`]*--response VALUE --resume)`")
_QUESTION_RE = re.compile(r"who chooses \(Claude never chooses for them\):\n  (?P<q>.+)\n")
_OPTIONS_RE = re.compile(r"^Options: (?P<opts>.+)$", re.MULTILINE)
_CONTINUE_RE = re.compile(r"The run continues with `(?P<cmd>executor [^`]+)`")


@dataclass
class Step:
    """What the model did on one instruction: a tool call (`tool`) or a message."""

    message: str
    tool: ToolResult | None = None
    question: str | None = None


class Model:
    """Claude, reduced to following hook text to the letter."""

    def __init__(self, claude: ClaudeCode, subagent_commit: bool = True) -> None:
        self.claude = claude
        self.answers: dict[str, str] = {}
        self.waiting_choice: str | None = None  # the respond command with VALUE in it
        self.subagent_commit = subagent_commit  # a builder that tries to commit, once
        self.subagent_calls: list[ToolResult] = []

    def act(self, instruction: str) -> Step:
        """One step on a hook's text: the first run it describes."""
        if m := _CONTINUE_RE.search(instruction):
            return Step("Continued the run.", self.claude.bash(m["cmd"]))
        if m := _SUBAGENT_RE.search(instruction):
            rid = m["id"]
            if rid not in self.answers:
                prompt = _PROMPT_RE.search(instruction)
                assert prompt, instruction
                self.answers[rid] = self.subagent(m["name"], prompt["prompt"])
                return Step(f"The subagent {m['name']} answered.")
            respond = _RESPOND_RE.search(instruction)
            assert respond, instruction
            answer = self.answers[rid]
            command = f"{respond['cmd']} <<'ANSWER'\n{answer}\nANSWER"
            return Step("Recorded the answer.", self.claude.bash(command))
        if _HUMAN_RE.search(instruction):
            question, options, choice = (_QUESTION_RE.search(instruction),
                                         _OPTIONS_RE.search(instruction),
                                         _CHOICE_RE.search(instruction))  # fmt: skip
            assert question and options and choice, instruction
            self.waiting_choice = choice["cmd"]
            text = f"{question['q']} Options: {options['opts']}"
            return Step(text, question=text)
        raise AssertionError(f"the model cannot follow this:\n{instruction}")

    def choose(self, value: str) -> Step:
        """The person's answer to the question the model put."""
        assert self.waiting_choice, "no question was put to the person"
        command, self.waiting_choice = self.waiting_choice.replace("VALUE", value), None
        return Step(f"Answered {value}.", self.claude.bash(command))

    def subagent(self, name: str, prompt: str) -> str:
        """The Agent tool: a builder (the replay agent) doing the brief's step, through
        the Bash tool as that subagent (so PreToolUse sees its commands)."""
        brief = _BRIEF_RE.search(prompt + " ")
        assert brief, prompt
        request = Path(brief["brief"]).parent.parent / ".agent-request.json"
        if self.subagent_commit:
            self.subagent_calls.append(
                self.claude.bash("git add -A && git commit -qm 'wip'", agent=name)
            )
        done = self.claude.bash(
            f"executor replay-agent --request {shlex.quote(str(request))} "
            f"--repo {shlex.quote(str(self.claude.project))}",
            agent=name,
        )
        self.subagent_calls.append(done)
        assert done.exit_code == 0, done.stderr
        return done.stdout.strip() or "done"


@dataclass
class Turn:
    user: str
    steps: list[Step] = field(default_factory=list)
    stops: list[Fired] = field(default_factory=list)
    question: str | None = None  # the question the turn ended on


class Session:
    """Turns of one Claude Code conversation."""

    def __init__(self, claude: ClaudeCode, model: Model) -> None:
        self.claude = claude
        self.model = model
        self.turns: list[Turn] = []
        self.start = claude.fire("SessionStart", source="startup", model="stand-in")

    def turn(self, user: str, first: Step) -> Turn:
        """A turn whose first step the person's message caused (`first`); then the model
        stops after every step, and only a Stop hook's block brings it back."""
        turn = Turn(user, [first])
        self.turns.append(turn)
        step, active = first, False
        while True:
            stop = self.claude.fire(
                "Stop", stop_hook_active=active, last_assistant_message=step.message
            )
            turn.stops.append(stop)
            if not stop.blocked:
                turn.question = step.question
                return turn
            if sum(s.blocked for s in turn.stops) >= CLAUDE_CODE_BLOCK_CAP:
                return turn  # Claude Code overrides the hook and ends the turn
            active = True
            step = self.model.act("\n".join(stop.block_reasons))
            turn.steps.append(step)
