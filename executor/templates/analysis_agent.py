"""Phase 2's agent half: the prompt for `architectural-reviewer`, reading its answer,
and merging it over the heuristic analysis.

The prompt is bounded (`MAX_PROMPT_BYTES`, far under the agent's 25k-token read limit):
the folder tree (cut at `TREE_LINES` lines and `TREE_CHARS` characters) and at most
`SAMPLED_FILES` representative files, each cut at `FILE_CHARS` / `FILE_LINES`. The agent
can open anything else itself.

Merging: each field of the answer that is valid replaces the heuristic one and is
recorded as `sources[field] = "agent"`; an invalid field is ignored with a note. One
exception: agents often list only architectural layers, so the heuristic `tests` layer
is kept when the answer has none.
"""

from __future__ import annotations

import json
import re
from typing import Any

from executor.datamodel import dump, validate
from executor.templates.analysis import heuristic_analysis
from executor.templates.answers import excerpt, extract_json, fence, tree
from executor.templates.models import Analysis, Layer, QAAnswers
from executor.templates.qa import apply_answers
from executor.templates.scan import Codebase

MAX_PROMPT_BYTES = 60_000
SAMPLED_FILES = 10
FILE_CHARS = 4_000
FILE_LINES = 120
TREE_LINES = 300
TREE_CHARS = 24_000

ANSWER_SHAPE = {
    "language": "Python",
    "frameworks": ["FastAPI", "SQLAlchemy"],
    "architecture": "Layered",
    "layers": [{"name": "services", "folders": ["app/services"], "description": "..."}],
    "patterns": ["Repository", "Service Layer"],
    "testing_framework": "pytest",
    "build_tools": ["pip"],
    "entities": ["Order"],
    "example_files": ["app/services/order_service.py"],
    "confidence": 0.9,
}
#: answer keys other agents use -> ours
_ALIASES = {
    "primary_language": "language", "architecture_pattern": "architecture",
    "framework": "frameworks", "testing_frameworks": "testing_framework",
    "overall_confidence": "confidence", "domain_entities": "entities",
}  # fmt: skip
_KNOWN = frozenset(ANSWER_SHAPE)
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9 _-]{0,60}$")
#: a language or an architecture: a label, which may carry some punctuation
#: ("C#", "Library (core + public facade)")
_LABEL = re.compile(r"^[A-Za-z][A-Za-z0-9 _.,:;/&+#()'-]{0,79}$")


def analysis_prompt(codebase: Codebase, heuristic: Analysis | None = None) -> str:
    """The brief for `architectural-reviewer`: what to find and the exact answer shape."""
    heuristic = heuristic or heuristic_analysis(codebase)
    found = {
        "language": heuristic.language,
        "frameworks": heuristic.frameworks,
        "architecture": heuristic.architecture,
        "layers": [layer.name for layer in heuristic.layers],
        "patterns": heuristic.patterns,
        "testing_framework": ", ".join(heuristic.testing_frameworks) or None,
        "entities": heuristic.entities,
    }
    head = "\n".join(
        [
            "# Codebase analysis for template-create",
            "",
            f"Analyse the codebase at `{codebase.root}` so that a reusable project template "
            "can be made from it. Below are its folder tree and a few sampled files "
            "(truncated); open any other file there with Read, Grep and Glob.",
            "",
            "## What a first scan found (confirm or correct it)",
            "",
            fence(json.dumps(found, indent=2), "json"),
            "",
            "## Answer",
            "",
            "Answer with ONE JSON object of this shape and nothing else. `layers` lists the "
            "architectural layers with the folders (relative to the codebase) that hold them; "
            "`entities` the main domain entities, most central first, spelled as in the code; "
            "`confidence` is 0 to 1. If you cannot analyse it, answer "
            '`{"error": "<why>"}`.',
            "",
            fence(json.dumps(ANSWER_SHAPE, indent=2), "json"),
            "",
            f"## Folder tree ({len(codebase.files)} files)",
            "",
            fence(tree((f.path for f in codebase.files), limit=TREE_LINES)[:TREE_CHARS], "text"),
            "",
            "## Sampled files",
        ]
    )
    parts = [head]
    size = len(head.encode())
    for path in heuristic.example_files[:SAMPLED_FILES]:
        text = excerpt(codebase, path, max_chars=FILE_CHARS, max_lines=FILE_LINES)
        if text is None:
            continue
        block = f"\n### {path}\n\n{fence(text)}\n"
        if size + len(block.encode()) > MAX_PROMPT_BYTES - 1_000:
            break
        parts.append(block)
        size += len(block.encode())
    return "\n".join(parts)


def parse_analysis_answer(text: str) -> dict[str, Any] | None:
    """The answer as a dict with our key names, or None (not JSON, an `error`, or
    nothing we know). Values are checked later, by `merge_analysis`."""
    data = extract_json(text or "")
    if not isinstance(data, dict):
        return None
    stack = data.get("technology_stack")
    if isinstance(stack, dict):  # seed 000's nested form
        data = {**stack, **{k: v for k, v in data.items() if k != "technology_stack"}}
    out = {_ALIASES.get(str(k), str(k)): v for k, v in data.items()}
    out = {k: v for k, v in out.items() if k in _KNOWN}
    return out or None


def _names(value: Any, *, limit: int = 20) -> list[str] | None:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        return None
    names = [v.strip() for v in value if isinstance(v, str) and v.strip()]
    if len(names) != len(value) or any(len(n) > 80 for n in names):
        return None
    return list(dict.fromkeys(names))[:limit]


def _folder(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    folder = value.strip().strip("/").removeprefix("./") or "."
    if folder.startswith("/") or ".." in folder.split("/") or ":" in folder:
        return None
    return folder


def _layers(value: Any, heuristic: Analysis) -> list[Layer] | None:
    if not isinstance(value, list) or not value:
        return None
    known = {layer.name: layer for layer in heuristic.layers}
    layers: list[Layer] = []
    for item in value:
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return None
        if not _NAME.match(item["name"].strip()):
            return None
        name = re.sub(r"[^a-z0-9]+", "-", item["name"].strip().lower()).strip("-")
        raw = item.get("folders", item.get("folder", []))
        folders = [f for f in map(_folder, raw if isinstance(raw, list) else [raw]) if f]
        same = known.get(name)
        layers.append(
            Layer(
                name=name,
                folders=folders or (same.folders if same else []),
                description=str(item.get("description") or (same.description if same else "")),
                file_count=same.file_count if same else 0,
            )
        )
    if "tests" in known and not any(layer.name == "tests" for layer in layers):
        layers.append(known["tests"])  # tests are not an architectural layer; keep ours
    return layers


def merge_analysis(heuristic: Analysis, answer: dict[str, Any] | None) -> Analysis:
    """The heuristic analysis with every valid field of the agent's answer applied."""
    if not answer:
        return heuristic
    merged = validate(Analysis, dump(heuristic))
    notes: list[str] = []

    def take(field: str, value: Any, ok: bool) -> None:
        if ok:
            setattr(merged, field, value)
            merged.sources[field] = "agent"
        else:
            notes.append(f"agent answer: {field!r} ignored (not a valid value)")

    for key, value in answer.items():
        if key in {"language", "architecture"}:
            ok = isinstance(value, str) and bool(_LABEL.match(value.strip()))
            take(key, value.strip() if ok else None, ok)
        elif key in {"frameworks", "patterns", "build_tools", "example_files"}:
            names = _names(value)
            take(key, names, names is not None)
        elif key == "testing_framework":
            names = _names(value)
            take("testing_frameworks", names, names is not None)
        elif key == "entities":
            names = _names(value, limit=5)
            ok = names is not None and all(_NAME.match(n) for n in names)
            take(key, names, ok)
        elif key == "layers":
            layers = _layers(value, heuristic)
            take(key, layers, layers is not None)
        elif key == "confidence":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1
            take(key, round(float(value), 2) if ok else None, ok)
    merged.notes = [*heuristic.notes, *notes]
    merged.agent_answer = answer
    return merged


def analyse(heuristic: Analysis, answer_text: str | None, answers: QAAnswers) -> Analysis:
    """Phase 2 in one call, once the agent answered (or did not: `answer_text` None):
    the heuristic analysis, the agent's valid fields over it, the user's choices over
    both."""
    parsed = parse_analysis_answer(answer_text) if answer_text is not None else None
    merged = merge_analysis(heuristic, parsed)
    if answer_text is not None and parsed is None:
        merged.notes.append("agent answer not usable (no JSON object with known fields)")
    return apply_answers(merged, answers, asked=heuristic)
