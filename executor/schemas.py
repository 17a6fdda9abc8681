"""JSON Schemas for the files the executor writes and reads, into `docs/schemas/`.

`write_schemas(dir)` is the generator; a test compares `docs/schemas/` with fresh output
so the published contract never drifts from the code:
`python -m executor.schemas docs/schemas`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from executor import fsutil
from executor.bridge.models import AgentRequest, AgentResponse, InvokerLedger
from executor.bridge.template_state import TemplateCreateState
from executor.claude.models import HookRecord
from executor.engine.running import RunningAgent
from executor.workflows.tdd.record.state import RunState

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

#: file name -> (record, what the file is)
SCHEMAS: dict[str, tuple[type[BaseModel], str]] = {
    "agent-request.schema.json": (AgentRequest, "`.agent-request.json`, written by the executor"),
    "agent-response.schema.json": (
        AgentResponse,
        "`.agent-response.json`, written by the host (`executor bridge respond` writes it)",
    ),
    "agent-state.schema.json": (
        RunState,
        "`.agent-state.json`, a plan run's state (written by the executor only)",
    ),
    "template-create-state.schema.json": (
        TemplateCreateState,
        "`.template-create-state.json`, template-create's state (the workflow and the seed API)",
    ),
    "agent-bridge-ledger.schema.json": (
        InvokerLedger,
        "`.agent-bridge-ledger.json`, AgentBridgeInvoker.request()'s bookkeeping",
    ),
    "agent-hook.schema.json": (
        HookRecord,
        "`.agent-hook.json`, the Claude Code hooks' record beside a pending request: the "
        "conversation running the loop, the Stop hook's blocks in a row",
    ),
    "agent-running.schema.json": (
        RunningAgent,
        "`.agent-running.json`, the agent process a run has running (the next run stops one "
        "a killed run left)",
    ),
}


def render_schemas() -> dict[str, str]:
    """File name -> schema text, exactly as `write_schemas` writes it."""
    out: dict[str, str] = {}
    for name, (model, what) in SCHEMAS.items():
        schema = {"$schema": SCHEMA_DIALECT, "$id": name, **model.model_json_schema()}
        schema.setdefault("description", f"Schema of {what}.")
        out[name] = fsutil.dumps_json(schema)
    return out


def write_schemas(directory: Path) -> list[Path]:
    """Write every schema into `directory` (atomically); return the paths written."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, text in render_schemas().items():
        path = directory / name
        fsutil.atomic_write_text(path, text, fault="schema")
        written.append(path)
    return written


if __name__ == "__main__":  # python -m executor.schemas [DIR]
    import sys

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/schemas")
    for p in write_schemas(target):
        print(p)
