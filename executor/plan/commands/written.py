"""Test commands as plans write them: in a code span, a code block, or task prose.

A plan's command is what a person would type to verify the step, exactly as written:
- the lines of one shell block are one command (`cd tests/x` then `node a.test.js` is
  `cd tests/x && node a.test.js`); comment lines, blank lines, `$ ` prompts and trailing
  `# notes` are dropped, backslash continuations joined;
- a block for a second terminal is a manual check, not a command the executor can run;
- setup (`npm install`, `chmod +x`, `mkdir`) is not verification, nor is anything else
  that is not a check (`executor.plan.commands.checks`);
- in prose, a command follows a verb that runs it: "Run `npm run typecheck`", "run tests
  with `uv run pytest x -v`", "run `terraform validate` in `deploy/`".
"""

from __future__ import annotations

import re

from executor.plan.commands.checks import judge
from executor.plan.text import words
from executor.plan.text.inline import code_spans
from executor.plan.text.vocabulary import looks_like_path

#: Fence info strings that hold shell commands (no info: a bare block after a step).
SHELL = frozenset(
    {"", "bash", "sh", "shell", "console", "zsh", "terminal", "fish", "cmd", "powershell"}
)
_PROMPT = re.compile(r"^\s*(?:\$|>|%|PS>)\s+")
_TRAILING_NOTE = re.compile(r"""^([^'"#]*?\S)\s+#\s.*$""")
_RUN_VERB = re.compile(
    r"(?:^|[\s:;,(*])(?:run(?:ning)?|execut(?:e|ing)|re-?run|verify with|check with)\b"
    r"[^`\n]{0,60}?`"
    r"|^[^`\n]*\b(?:verify|check|confirm|validate)\b[^\n]*\busing\s+`"
    r"|(?:运行|執行|执行|実行|실행|ausf[uü]hren|ejecutar|executar|ex[eé]cuter|ch[aạ]y)\s*[:：]?\s*`",
    re.I,
)
#: A command named before its verb (Japanese, Korean, German word order):
#: `` `cargo test` で全テストが成功することを確認 ``, `` `npm test` 실행 ``.
_SPAN_THEN_VERB = re.compile(
    r"`([^`]+)`\s*(?:を|で|が|로|으로|를|을)?[^`\n]{0,30}?"
    r"(?:実行|確認|検証|실행|확인|검증|ausf[uü]hren|pr[uü]fen)",
    re.I,
)


_SPAN = re.compile(r"`[^`]*`")
#: A piece of every verb `_RUN_VERB` and `_SPAN_THEN_VERB` know, in lowered text: a line
#: with none runs nothing (most lines; the whole patterns cost more).
_VERB_HINT = re.compile(
    r"run|execut|exécut|verify|check|confirm|validate|运行|執行|执行|実行|실행|ausf|ejecut"
    r"|ch[aạ]y|確認|検証|확인|검증|pr[uü]f"
)
#: `git add ...` / `git commit ...` lines of a block: one commit per session is ours.
_OURS = re.compile(r"^(?:git\s+(?:-C\s+\S+\s+)?(?:add|commit)\b)")


def _open_quote(line: str) -> bool:
    """The line leaves a double-quoted string open (a commit message going on)."""
    return line.replace('\\"', "").count('"') % 2 == 1


def block_command(code: str, info: str = "") -> str | None:
    """The one command a shell code block holds (its lines joined with ` && `), or None
    (not shell, empty, or something a person runs by hand). Whether it is a check is
    `executor.plan.commands.checks.judge`'s to say."""
    if info.split(" ", 1)[0].lower() not in SHELL:
        return None
    parts: list[str] = []
    pending = ""
    in_commit = False
    for raw in code.split("\n"):
        line = pending + _PROMPT.sub("", raw).strip()
        pending = ""
        if in_commit or _OURS.match(line):  # staging and committing are the executor's
            in_commit = _open_quote(line) != in_commit
            continue
        if not line or line.startswith("#"):
            if "another terminal" in line.lower():
                return None
            continue
        if line.endswith("\\"):
            pending = line[:-1].rstrip() + " "
            continue
        note = _TRAILING_NOTE.match(line)
        parts.append(note.group(1) if note else line)
    if pending.strip():
        parts.append(pending.strip())
    command = " && ".join(parts)
    return command or None


def verifies(command: str | None) -> bool:
    """A command that may verify a session: a check (`executor.plan.commands.checks.judge`)."""
    return bool(command) and judge(command) is None


def text_command(text: str) -> str | None:
    """The command a line of prose tells the reader to run (`Run \\`npm test\\``)."""
    if "`" not in text or _VERB_HINT.search(text.lower()) is None:
        return None
    masked = _SPAN.sub(lambda m: "`" + "x" * (len(m.group(0)) - 2) + "`", text)
    m = _RUN_VERB.search(masked)  # a verb outside code spans
    if m is None:
        after = _SPAN_THEN_VERB.search(text)
        if after is None or looks_like_path(after.group(1)):
            return None
        return after.group(1).strip() if " " in after.group(1).strip() else None
    spans = code_spans(text[m.end() - 1 :])
    if not spans or looks_like_path(spans[0]) or spans[0].endswith("/"):
        return None
    command = spans[0].strip()
    return command if " " in command or command.isidentifier() else None


_RUN_WORD = re.compile(
    r"\b(?:run|execute)\b|运行|執行|执行|実行|실행|ausf[uü]hren|ejecutar|executar|ex[eé]cuter",
    re.I,
)
_LEADING_SPAN = re.compile(r"^\s*`([^`]+)`")
#: An outcome with the command that shows it: `所有測試通過 (`pnpm test X`)`, `builds (`make`)`.
_OUTCOME = re.compile(rf"(?:{words.PASSES})[^`\n]{{0,12}}?\(\s*`([^`]+)`\s*\)", re.I)


def detail_command(task: str, detail: str) -> str | None:
    """The command a detail line of a task names without a verb before it: an outcome's
    (`編譯成功 (`pnpm build`)`), or one listed under a task that says it runs checks
    (`執行 TypeScript 類型檢查和 lint` over `` `pnpm tsc --noEmit` ✅ 通過 ``)."""
    outcome = _OUTCOME.search(detail)
    span = _LEADING_SPAN.match(detail) if _RUN_WORD.search(_SPAN.sub("", task)) else None
    found = outcome or span
    if found is None:
        return None
    command = found.group(1).strip()
    return command if " " in command and not looks_like_path(command) else None


def join(commands: list[str]) -> str | None:
    """Several verification commands, run in order, as one."""
    unique = list(dict.fromkeys(commands))
    return " && ".join(unique) if unique else None
