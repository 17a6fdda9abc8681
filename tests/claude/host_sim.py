"""A simulated Claude Code host: does exactly what the command files tell Claude to do.

Loop (bounded): run the executor command; on exit 42 read the request file named on the
`NEED_AGENT` stderr line (the Read tool: no process); for an agent request ask the
subagent (standing in for the Agent tool: by default the replay agent with `--request`;
a test may give its own `agent`), and pipe its answer to `executor bridge respond
--response-file - --resume` as the command files say; for a human request pick an answer
from the offered options (`approve` by default) and answer with `--response VALUE
--resume`. That one process answers and continues the run: its exit code is the next
round's. Any exit code but 42 ends the loop. Every executor call is a real subprocess.

Usable as a script: `python tests/claude/host_sim.py [--repo DIR] [--solutions DIR]
[--max-rounds N] -- execute-phase 1 --plan project-plans/ledger`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

NEED_AGENT = 42
_REQUEST_RE = re.compile(r" in (?P<path>/.*?\.agent-request\.json)")
_DIR_RE = re.compile(r"--dir (?P<dir>/\S+?)`")


class HostError(RuntimeError):
    """The executor broke the contract the command files rely on."""


@dataclass
class AgentAnswer:
    """What the subagent said: `ok` False means it failed (`text` is why)."""

    text: str
    ok: bool = True


#: A subagent: (the request, with `kind`, `request_file` and `prompt_file` added; the
#: repository) -> its answer
Agent = Callable[[dict[str, Any], Path], AgentAnswer]


@dataclass
class Round:
    """One executor run and what the host did about it."""

    argv: list[str]
    exit_code: int
    stderr: str
    kind: str | None = None
    agent_name: str | None = None
    question: str | None = None
    answer: str | None = None


@dataclass
class HostResult:
    exit_code: int | None  # None: the round budget ran out
    rounds: list[Round] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""

    @property
    def agent_rounds(self) -> list[Round]:
        return [r for r in self.rounds if r.kind == "agent"]

    @property
    def human_rounds(self) -> list[Round]:
        return [r for r in self.rounds if r.kind == "human"]


def _executor(
    args: Sequence[str], *, cwd: Path, env: dict[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "executor", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
    )


def request_dir(stderr: str) -> Path:
    """DIR: the folder of the request file named on the NEED_AGENT line (as printed)."""
    for line in reversed(stderr.splitlines()):
        if "NEED_AGENT" not in line:
            continue
        m = _REQUEST_RE.search(line)
        if m:
            return Path(m.group("path")).parent
        m = _DIR_RE.search(line)
        if m:
            return Path(m.group("dir"))
    raise HostError(f"exit 42 without a NEED_AGENT line naming the request file:\n{stderr}")


def choose(options: Sequence[Any], preferred: str) -> str:
    """The value to answer a human checkpoint with: `preferred` when offered."""
    values = [str(o.get("value")) for o in options if isinstance(o, dict) and o.get("value")]
    if not values or preferred in values:
        return preferred
    for fallback in ("approve", "continue", "yes"):
        if fallback in values:
            return fallback
    return values[0]


def run_host(
    argv: Sequence[str],
    *,
    repo: Path,
    solutions: Path | None = None,
    answer: str = "approve",
    max_rounds: int = 200,
    env: dict[str, str] | None = None,
    agent: Agent | None = None,
) -> HostResult:
    """Drive `executor <argv>` to an exit code other than 42 (or the round budget)."""
    full_env = {**os.environ, **(env or {})}
    args = list(argv)
    result = HostResult(exit_code=None)
    proc = _executor(args, cwd=repo, env=full_env)
    for _ in range(max_rounds):
        rnd = Round(argv=list(args), exit_code=proc.returncode, stderr=proc.stderr)
        result.rounds.append(rnd)
        result.stdout, result.stderr = proc.stdout, proc.stderr
        if proc.returncode != NEED_AGENT:
            result.exit_code = proc.returncode
            return result
        folder = request_dir(proc.stderr)
        request = read_request(folder)
        rnd.kind, rnd.agent_name = request["kind"], request["agent_name"]
        stdin = None
        if request["kind"] == "agent":
            said = (agent or _replay(solutions, full_env))(request, repo)
            rnd.answer = said.text
            if said.ok:
                respond, stdin = ["--status", "success", "--response-file", "-"], said.text
            else:
                respond = ["--status", "error", "--error-message", said.text]
        else:
            context = request.get("context") or {}
            rnd.question = str(context.get("question", ""))
            rnd.answer = choose(context.get("options") or [], answer)
            respond = ["--status", "success", "--response", rnd.answer]
        args = ["bridge", "respond", "--dir", str(folder), *respond, "--resume"]
        proc = _executor(args, cwd=repo, env=full_env, stdin=stdin)
    return result


def read_request(folder: Path) -> dict[str, Any]:
    """The pending request as the host reads it: the file itself."""
    path = folder / ".agent-request.json"
    request: dict[str, Any] = json.loads(path.read_text("utf-8"))
    context = request.get("context") or {}
    kind = "human" if request["agent_name"] == "human" else "agent"
    return {**request, "kind": kind, "request_file": str(path),
            "prompt_file": context.get("prompt_file")}  # fmt: skip


def _replay(solutions: Path | None, env: dict[str, str]) -> Agent:
    """Stand-in for a builder subagent: the replay agent, run on the request file."""

    def agent(request: dict[str, Any], repo: Path) -> AgentAnswer:
        cmd = ["replay-agent", "--request", str(request["request_file"]), "--repo", str(repo)]
        if solutions is not None:
            cmd += ["--solutions", str(solutions)]
        done = _executor(cmd, cwd=repo, env=env)
        if done.returncode == 0:
            return AgentAnswer(done.stdout.strip() or "done")
        why = (done.stderr.strip() or f"replay agent exited {done.returncode}")[:500]
        return AgentAnswer(why, ok=False)

    return agent


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repo", type=Path, default=Path.cwd())
    parser.add_argument("--solutions", type=Path, default=None)
    parser.add_argument("--answer", default="approve")
    parser.add_argument("--max-rounds", type=int, default=200)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    ns = parser.parse_args(argv)
    command = ns.command[1:] if ns.command[:1] == ["--"] else ns.command
    result = run_host(
        command,
        repo=ns.repo.resolve(),
        solutions=ns.solutions,
        answer=ns.answer,
        max_rounds=ns.max_rounds,
    )
    for rnd in result.rounds:
        what = f" -> {rnd.kind} {rnd.agent_name}" if rnd.kind else ""
        asked = f" ({rnd.question!r}: {rnd.answer})" if rnd.question else ""
        print(f"executor {' '.join(rnd.argv)}: exit {rnd.exit_code}{what}{asked}")
    if result.exit_code is None:
        print(f"stopped after {ns.max_rounds} rounds", file=sys.stderr)
        return 1
    sys.stderr.write(result.stderr)
    return result.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
