"""What the four stand-in agent CLIs share (tests only: these are NOT the real tools).

A stand-in accepts the flags its real CLI documents (at least those the presets and the
old doc lines use) and rejects others the way the real parser does; reads the prompt
where the real tool reads it; lets a small model of the tool's documented permission
rules decide what the "model" may do; does the edits by running the replay agent
(`tests/replay_agent.py`: `executor replay-agent` without its CLI; it reads
EXECUTOR_SESSION / EXECUTOR_TDD_STEP / EXECUTOR_ATTEMPT); and prints output shaped like
the real tool's (tests/agents/samples/).

Environment knobs:

| variable | effect |
|---|---|
| `STANDIN_SOLUTIONS` | the replay agent's solutions folder (required to edit) |
| `STANDIN_FAIL` | `error` (the tool's own error report), `nonzero` (crash), `garbage` |
| `STANDIN_COST_USD`, `STANDIN_INPUT_TOKENS`, `STANDIN_OUTPUT_TOKENS` | usage to report |
| `STANDIN_RUN` | shell commands the simulated model asks to run after editing, one a line |
| `STANDIN_LOG` | a file the stand-in appends one JSON line to: what it got and did |
| `STANDIN_ANSWERS` | a folder of `<EXECUTOR_TDD_STEP>.txt`: that step's final message |
| `STANDIN_NOISE_BYTES` | print this many bytes of progress lines before the tool's report |
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FAILURES = ("error", "nonzero", "garbage")
GARBAGE = "\x1b[31mSegmentation fault (core dumped)\x1b[0m\nthis is not the tool's output\n"
#: git subcommands that write the repository's metadata (`.git`).
_GIT_WRITES = frozenset(
    [
        "add",
        "am",
        "checkout",
        "cherry-pick",
        "commit",
        "merge",
        "pull",
        "push",
        "rebase",
        "reset",
        "restore",
        "revert",
        "rm",
        "stash",
        "switch",
        "tag",
    ]
)


@dataclass(frozen=True)
class Usage:
    cost_usd: float
    input_tokens: int
    output_tokens: int


def usage() -> Usage:
    return Usage(
        cost_usd=float(os.environ.get("STANDIN_COST_USD", "0.0421")),
        input_tokens=int(os.environ.get("STANDIN_INPUT_TOKENS", "1234")),
        output_tokens=int(os.environ.get("STANDIN_OUTPUT_TOKENS", "567")),
    )


def failure() -> str | None:
    mode = os.environ.get("STANDIN_FAIL") or None
    if mode is not None and mode not in FAILURES:
        raise SystemExit(f"stand-in: STANDIN_FAIL must be one of {', '.join(FAILURES)}")
    return mode


def requested_commands() -> list[str]:
    return [ln.strip() for ln in os.environ.get("STANDIN_RUN", "").splitlines() if ln.strip()]


def noise() -> None:
    """Print `STANDIN_NOISE_BYTES` bytes (whole lines) of progress to stdout: a chatty run."""
    line = b"working: " + b"." * 1014 + b"\n"
    lines = -(-int(os.environ.get("STANDIN_NOISE_BYTES") or 0) // len(line))
    while lines > 0:
        sys.stdout.buffer.write(line * min(lines, 64))
        lines -= 64
    sys.stdout.flush()


def read_stdin() -> str:
    return "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()


@dataclass
class Edit:
    """What the replay agent did: its report, and the files that changed in git's eyes."""

    ok: bool
    report: str
    changed: list[str] = field(default_factory=list)


def canned_answer() -> str | None:
    """The prepared final message for this step (`STANDIN_ANSWERS`), if there is one."""
    folder = os.environ.get("STANDIN_ANSWERS")
    answer = Path(folder or ".") / f"{os.environ.get('EXECUTOR_TDD_STEP', '')}.txt"
    return answer.read_text("utf-8") if folder and answer.is_file() else None


def replay_edit(repo: Path) -> Edit:
    """Do the step's work: run the replay agent in `repo` (it reads EXECUTOR_* itself);
    a step with a canned answer only answers."""
    if canned_answer() is not None:
        return Edit(ok=True, report="answered from STANDIN_ANSWERS")
    solutions = os.environ.get("STANDIN_SOLUTIONS")
    if not solutions:
        return Edit(ok=False, report="stand-in: STANDIN_SOLUTIONS is not set")
    before = _snapshot(repo)
    proc = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve().parents[2] / "replay_agent.py"),
            "--solutions",
            solutions,
            "--repo",
            str(repo),
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        return Edit(ok=False, report=(proc.stderr or proc.stdout).strip())
    after = _snapshot(repo)
    changed = sorted(path for path, digest in after.items() if before.get(path) != digest)
    return Edit(ok=True, report=proc.stdout.strip(), changed=changed)


def _snapshot(repo: Path) -> dict[str, str]:
    """Each path git reports as changed, with its status and a digest of its content."""
    out = {}
    for line, path in git_status(repo).items():
        file = repo / path
        body = file.read_bytes() if file.is_file() else b""
        out[path] = line[:2] + hashlib.sha256(body).hexdigest()
    return out


def git_status(repo: Path) -> dict[str, str]:
    """`git status --porcelain` lines (untracked files listed one by one) -> their paths."""
    proc = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    return {line: line[3:] for line in proc.stdout.splitlines() if len(line) > 3}


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)


def writes_git(command: str) -> bool:
    """True when `command` is a git command that writes `.git` (commit, push, reset...)."""
    for part in split_compound(command):
        try:
            tokens = shlex.split(part)
        except ValueError:
            continue
        while tokens and re.fullmatch(r"\w+=.*", tokens[0]):  # VAR=value prefixes
            tokens.pop(0)
        if not tokens or Path(tokens[0]).name != "git":
            continue
        rest = tokens[1:]
        while rest and rest[0].startswith("-"):  # git -C dir / -c key=value / --no-pager
            rest = rest[2:] if rest[0] in ("-C", "-c") else rest[1:]
        if rest and rest[0] in _GIT_WRITES:
            return True
    return False


def split_compound(command: str) -> list[str]:
    """The simple commands of a compound one (`a && b; c | d`)."""
    return [p for p in re.split(r"\s*(?:&&|\|\||;|\|)\s*", command.strip()) if p]


def run_shell(command: str, cwd: Path) -> tuple[int, str]:
    proc = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def log(entry: dict[str, Any]) -> None:
    path = os.environ.get("STANDIN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")


def message(tool: str, prompt: str, edit: Edit | None) -> str:
    """The final message: the canned answer, else what the stand-in read and what the
    replay agent did."""
    canned = canned_answer()
    if canned is not None:
        return canned
    first = prompt.strip().splitlines()[0] if prompt.strip() else "(empty prompt)"
    did = edit.report if edit is not None else "no edits (not permitted)"
    return f"stand-in {tool} (not an AI) read {len(prompt)} characters ({first!r}). {did}"
