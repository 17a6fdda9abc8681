"""What a host must read per agent call, for growing plans.

Run: `python benchmarks/brief_size.py`. For generated plans of 10, 100 and 1,000
sessions it prints the size of the agent brief for session 1 and for the last
session, and the size of `.agent-request.json` the host reads first. Briefs are
session-scoped, so both must stay flat as the plan grows (the request ~1 KB, the
brief a few KB set by the session's own text, never by the plan's length).
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import tempfile
from pathlib import Path

from executor.bridge.protocol import BridgeChannel
from executor.errors import NeedAgent
from executor.plan import load_plan
from executor.workflows.tdd.record.session import AgentCall, SessionRecord
from executor.workflows.tdd.record.state import RunRecord, RunState, SessionArchive
from executor.workflows.tdd.session.brief import digest, render_brief
from executor.workflows.tdd.step import Step

_spec = importlib.util.spec_from_file_location(
    "parse_plan", Path(__file__).with_name("parse_plan.py")
)
assert _spec and _spec.loader
parse_plan = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(parse_plan)


def measure(n: int) -> tuple[int, int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        parse_plan.generate(folder, n)
        plan = load_plan(folder)
        sizes = []
        for session in (plan.sessions()[0], plan.sessions()[-1]):
            ss = SessionRecord()
            record = RunRecord(tool_version="x", definition_hash="x", run_id="x", repo=tmp)
            state = RunState(project_name="x", plan_version="x", run=record)
            archive = SessionArchive(folder / ".agent-sessions")
            for d in session.dependencies:  # what each finished dependency left behind
                archive.put(d, SessionRecord(
                    step=Step.DONE,
                    commit_hash="0" * 40,
                    files_modified=[f"app/feature_{d}.py", f"tests/test_feature_{d}.py"],
                    agent_calls=[
                        AgentCall(step=Step.REFACTOR_AGENT, attempt=1, status="success",
                                  seconds=1.0, message="Refactored the feature; tests pass.")
                    ],
                ))  # fmt: skip
            brief = render_brief(
                session=session,
                state=ss,
                role="green",
                test_command=session.test_command("green"),
                suite_command="pytest",
                repo_root=folder,
                digest=digest(plan, state, archive, session.dependencies),
            )
            sizes.append(len(brief.encode()))
        channel = BridgeChannel(folder)
        pending = channel.new_pending(
            key="s1.green.a1.f0", agent_name="backend-builder", prompt="read the brief"
        )
        with contextlib.suppress(NeedAgent):
            channel.emit(
                pending,
                phase=1,
                phase_name="Phase 1",
                prompt=(
                    f"Session {n}, GREEN step: read the brief at {folder}/.agent-briefs/x.md "
                    "and do only what it says."
                ),
                context={
                    "plan": str(folder),
                    "phase": 1,
                    "session": n,
                    "tdd_step": "green",
                    "prompt_file": f"{folder}/.agent-briefs/x.md",
                },
            )
        return sizes[0], sizes[1], channel.request_file.stat().st_size


def main() -> int:
    print(f"{'sessions':>9} {'brief s1 (B)':>13} {'brief sN (B)':>13} {'request (B)':>12}")
    for n in (10, 100, 1000):
        first, last, req = measure(n)
        print(f"{n:>9} {first:>13,} {last:>13,} {req:>12,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
