"""Run template-create's steps in order, as the workflow driver does, minus the bridge:
agent answers are passed in as text (None: the agent did not answer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from executor.templates import (
    Written,
    agent_files,
    analyse,
    analysis_prompt,
    answers,
    assemble_template,
    build_manifest,
    build_settings,
    claude_md,
    generate_templates,
    heuristic_analysis,
    scan_codebase,
    select_agents,
    template_files,
)

CREATED_AT = "2025-01-01T00:00:00Z"


def create_template(
    source: Path,
    dest: Path,
    *,
    analysis_answer: str | None = None,
    agents_answer: str | None = None,
    given: dict[str, Any] | None = None,
    force: bool = False,
    validate: bool = False,
) -> Written:
    codebase = scan_codebase(source, exclude=[dest])
    heuristic = heuristic_analysis(codebase)
    qa = answers(heuristic, given or {})
    assert len(analysis_prompt(codebase, heuristic).encode()) < 60_000
    analysis = analyse(heuristic, analysis_answer, qa)
    templates = generate_templates(codebase, analysis, include=qa.example_files)
    manifest = build_manifest(
        analysis, qa, templates, source_project=codebase.root, created_at=CREATED_AT
    )
    settings = build_settings(analysis, templates)
    specs = select_agents(analysis, qa, agents_answer)
    files = template_files(
        manifest=manifest,
        settings=settings,
        templates=templates,
        agent_files=agent_files(specs, analysis, settings, template_name=manifest.name),
        claude_md=claude_md(manifest, settings, analysis, specs),
    )
    return assemble_template(dest, files, source=codebase.root, force=force, validate=validate)


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under `root` (relative posix path -> bytes)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and ".pytest_cache" not in p.parts
    }
