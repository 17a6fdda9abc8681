"""Golden files: the whole template folder made from each sample codebase.

Regenerate after an intended change, then review the diff:

    UPDATE_GOLDEN=1 python -m pytest tests/templates/test_golden.py -q

(The variable is read at import time: the shared fixtures clear EXECUTOR_* variables.)
Paths of the temporary source project are written as `<SOURCE>`.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from executor import fsutil
from tests.templates.helpers import create_template, tree_bytes
from tests.templates.projects import CSHARP_MVVM, PYTHON_SERVICE, REACT_APP, write_project
from tests.templates.test_agents import RECOMMENDED
from tests.templates.test_analysis import AGENT_ANSWER

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

CASES = {
    "python-service": (PYTHON_SERVICE, None, None),
    "react-app": (REACT_APP, None, None),
    "csharp-mvvm": (CSHARP_MVVM, None, None),
    "python-service-agent": (
        PYTHON_SERVICE,
        "My analysis:\n```json\n" + json.dumps(AGENT_ANSWER, indent=2) + "\n```",
        json.dumps(RECOMMENDED),
    ),
}


def _made(tmp_path: Path, case: str, analysis: str | None, agents: str | None) -> dict[str, bytes]:
    files, _, _ = CASES[case]
    source = write_project(tmp_path / "src", files)
    dest = tmp_path / "out" / case
    create_template(source, dest, analysis_answer=analysis, agents_answer=agents, validate=True)
    marker = str(source.resolve()).encode()
    return {rel: data.replace(marker, b"<SOURCE>") for rel, data in tree_bytes(dest).items()}


@pytest.mark.parametrize("case", list(CASES))
def test_template_folder_matches_golden(tmp_path: Path, case: str) -> None:
    _, analysis, agents = CASES[case]
    made = _made(tmp_path, case, analysis, agents)
    folder = GOLDEN / case
    if UPDATE:
        shutil.rmtree(folder, ignore_errors=True)
        for rel, data in made.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            fsutil.atomic_write_bytes(folder / rel, data)
    golden = tree_bytes(folder)
    assert sorted(made) == sorted(golden), "UPDATE_GOLDEN=1 regenerates (see module docstring)"
    for rel, data in made.items():
        assert data.decode() == golden[rel].decode(), rel


@pytest.mark.parametrize("garbage", ["", "sorry, I cannot", '{"language": 42}', "[1, 2,]"])
def test_garbage_answers_give_the_fallback_template(tmp_path: Path, garbage: str) -> None:
    made = _made(tmp_path, "python-service", garbage, garbage)
    golden = tree_bytes(GOLDEN / "python-service")
    assert made == golden


def test_the_agent_answers_are_visible_in_the_outputs() -> None:
    manifest = json.loads((GOLDEN / "python-service-agent" / "manifest.json").read_text("utf-8"))
    assert (manifest["architecture"], manifest["frameworks"], manifest["confidence"]) == (
        "Hexagonal", ["WSGI"], 0.95,
    )  # fmt: skip
    assert manifest["sources"]["architecture"] == "agent"
    assert manifest["layers"][:2] == ["services", "adapters"]
    agents = sorted(p.name for p in (GOLDEN / "python-service-agent" / "agents").iterdir())
    assert agents == ["in-memory-repository-expert.md", "wsgi-routing-specialist.md"]
    guide = (GOLDEN / "python-service-agent" / "CLAUDE.md").read_text("utf-8")
    assert "- `wsgi-routing-specialist` (`agents/wsgi-routing-specialist.md`)" in guide
    assert "Hexagonal. The core talks to the outside only through ports" in guide
    assert "analysis by: agent, heuristic;" in guide
