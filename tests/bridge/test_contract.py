"""Published contract: schemas in sync, the public API, and a light resume path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import executor.bridge
from executor.schemas import render_schemas, write_schemas

REPO = Path(__file__).resolve().parents[2]


def test_docs_schemas_match_the_models() -> None:
    docs = REPO / "docs" / "schemas"
    fresh = render_schemas()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in docs.glob("*.schema.json")}
    assert on_disk == fresh, "run: python -m executor.schemas docs/schemas"


def test_write_schemas_writes_valid_json(tmp_path: Path) -> None:
    paths = write_schemas(tmp_path)
    assert {p.name for p in paths} == set(render_schemas())
    for p in paths:
        schema = json.loads(p.read_text(encoding="utf-8"))
        assert schema["$schema"].startswith("https://json-schema.org/")
        assert schema["type"] == "object"


def test_public_api() -> None:
    for name in ("AgentBridgeInvoker", "StateManager", "AgentInvocationError"):
        assert name in executor.bridge.__all__
        assert hasattr(executor.bridge, name)


def test_bridge_imports_no_heavy_library() -> None:
    code = (
        "import sys, executor.bridge, executor.schemas;"
        "heavy = [m for m in ('executor.cli', 'rich', 'git', 'questionary', 'markdown_it')"
        " if m in sys.modules]; print(','.join(heavy))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == ""
