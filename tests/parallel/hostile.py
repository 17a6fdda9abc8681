"""A hostile stand-in agent for parallel runs: the replay agent (as `standin.py`), plus
one attack made at one session's step, as an agent running side by side with others
could make it.

    python tests/parallel/hostile.py --solutions DIR --at SESSION:STEP --attack KIND ...

- `--attack amend --target N --files JSON`: wait until session N's branch holds its
  commit, then put a commit with the same message and trailers in its place, whose
  files JSON (path -> text) replace the session's (broken code, an emptied test);
- `--attack forge-state --target N --state PATH`: mark session N completed in the main
  run's state at PATH, checksum and all, as a program that read the executor's source
  would;
- `--attack write --files JSON`: write files (absolute path -> text) where it likes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from executor.replay import run_agent

WAIT = 120.0


def _git(*args: str, env: dict[str, str] | None = None, data: str | None = None) -> str:
    return subprocess.run(
        ["git", *args], check=True, capture_output=True, text=True, input=data,
        env={**os.environ, **(env or {})},
    ).stdout.strip()  # fmt: skip


def amend(target: int, files: dict[str, str]) -> None:
    """Session `target`'s commit on its branch, replaced by one holding `files`."""
    branch = f"refs/heads/executor/session-{target}"
    deadline = time.monotonic() + WAIT
    while True:
        head = subprocess.run(["git", "rev-parse", "--verify", "-q", branch],
                              capture_output=True, text=True).stdout.strip()  # fmt: skip
        if head and f"Agent-Step: session-{target}" in _git("log", "-1", "--format=%B", head):
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"hostile: session {target} never committed")
        time.sleep(0.05)
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _git("read-tree", head, env=env)
        for path, text in files.items():
            blob = _git("hash-object", "-w", "--stdin", data=text)
            _git("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
        tree = _git("write-tree", env=env)
    message = _git("log", "-1", "--format=%B", head) + "\n"
    forged = _git("commit-tree", tree, "-p", f"{head}^", "-F", "-", data=message)
    _git("update-ref", branch, forged, head)


def forge_state(target: int, path: Path, commit: str | None = None) -> None:
    """Session `target` completed as `commit` (default: HEAD here) in the state at `path`."""
    from executor.datamodel import validate_json
    from executor.store import seal
    from executor.workflows.tdd.record.state import RunState

    state = validate_json(RunState, path.read_bytes())
    entry = state.entry(target)
    assert entry is not None
    entry.status, entry.commit_hash = "completed", commit or _git("rev-parse", "HEAD")
    state.checksum = ""
    data = seal(state.model_dump_json(by_alias=True).encode("utf-8"))
    tmp = path.with_name(path.name + ".forged")
    tmp.write_bytes(data + b"\n")
    os.replace(tmp, path)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--solutions", type=Path, required=True)
    parser.add_argument("--at", required=True)
    parser.add_argument("--attack", required=True, choices=["amend", "forge-state", "write"])
    parser.add_argument("--target", type=int, default=0)
    parser.add_argument("--files", default="{}")
    parser.add_argument("--state", type=Path)
    ns = parser.parse_args()
    env = os.environ
    here = f"{env.get('EXECUTOR_SESSION', '')}:{env.get('EXECUTOR_TDD_STEP', '')}"
    if here == ns.at:
        files = json.loads(ns.files)
        if ns.attack == "amend":
            amend(ns.target, files)
        elif ns.attack == "forge-state":
            assert ns.state is not None
            try:
                forge_state(ns.target, ns.state)
            except OSError as e:  # a sandbox keeps it out: the agent goes on
                print(f"hostile: {e}", file=sys.stderr)
        else:
            for path, text in files.items():
                try:
                    Path(path).write_text(text, encoding="utf-8")
                except OSError as e:  # a sandbox keeps it out: the agent goes on
                    print(f"hostile: {e}", file=sys.stderr)
    result = run_agent(solutions=ns.solutions, repo=Path.cwd(), request=None, env=env)
    print(result.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
