"""Phase 7: the template's CLAUDE.md, the guide Claude Code reads in a project made
from it: stack, architecture, layers, patterns, conventions, placeholders, and the
agents that were actually written (passed in; never a list of hoped-for agents)."""

from __future__ import annotations

from collections.abc import Sequence

from executor.templates.agents import ARCHITECTURE_RULES
from executor.templates.models import AgentSpec, Analysis, Manifest, Settings


def _bullets(items: Sequence[str], empty: str) -> list[str]:
    return [f"- {i}" for i in items] or [f"- {empty}"]


def claude_md(
    manifest: Manifest, settings: Settings, analysis: Analysis, agents: Sequence[AgentSpec]
) -> str:
    style = settings.code_style
    org = settings.file_organization
    indent = "tabs" if style.indentation == "tabs" else f"{style.indent_size} spaces"
    decided = sorted({s for s in manifest.sources.values()})
    layers = [
        f"| {name} | {', '.join(f'`{f}`' for f in m.folders) or '-'} | `{m.template_folder}/` "
        f"| {', '.join(f'`{e}`' for e in m.examples) or '-'} |"
        for name, m in settings.layer_mappings.items()
    ]
    naming = [
        f"| {kind.replace('_', ' ')} | {c.style} | {', '.join(f'`{e}`' for e in c.examples)} |"
        for kind, c in settings.naming_conventions.items()
    ]
    placeholders = [
        f"| `{p.name}` | `{p.default}` | {p.description} |" for p in manifest.placeholders.values()
    ]
    agent_lines = [f"`{a.name}` (`agents/{a.name}.md`): {a.description}" for a in agents]
    lines = [
        f"# {manifest.name}",
        "",
        manifest.description or f"A {manifest.architecture} {manifest.language} template.",
        "",
        f"Made from `{manifest.source_project}` by plan-executor template-create "
        f"(analysis by: {', '.join(decided) or 'heuristic'}; confidence {manifest.confidence}).",
        "",
        "## Technology stack",
        "",
        f"- Language: {manifest.language}",
        f"- Frameworks: {', '.join(manifest.frameworks) or 'none detected'}",
        f"- Testing: {', '.join(analysis.testing_frameworks) or 'none detected'}",
        f"- Build tools: {', '.join(analysis.build_tools) or 'none detected'}",
        "",
        "## Architecture",
        "",
        f"{manifest.architecture}. "
        + ARCHITECTURE_RULES.get(manifest.architecture, "Keep each module focused on one concern."),
        "",
        "| Layer | Folders | Templates | Examples |",
        "|---|---|---|---|",
        *(layers or ["| - | - | - | - |"]),
        "",
        "## Patterns",
        "",
        *_bullets(manifest.patterns, "none detected"),
        "",
        "## Conventions",
        "",
        "| Names | Style | Examples |",
        "|---|---|---|",
        *(naming or ["| - | - | - |"]),
        "",
        f"- Code style: {indent}, lines up to {style.line_length} characters "
        f"({style.line_length_source}), {style.quotes} quotes, {style.line_endings.upper()} "
        f"line endings{', semicolons' if style.semicolons else ''}.",
        f"- Source root: `{org.source_root}`; tests: {org.test_location}"
        + (f" (`{org.test_file_pattern}`)" if org.test_file_pattern else "")
        + ".",
        "",
        "## Placeholders",
        "",
        "| Placeholder | Default (from the source project) | Meaning |",
        "|---|---|---|",
        *placeholders,
        "",
        "## Agents",
        "",
        *_bullets(agent_lines, "none: this template ships no agents"),
        "",
        "## Using this template",
        "",
        f"`executor template-apply {manifest.name} DEST --set ProjectName=MyProject` renders "
        f"the {len(manifest.templates)} templates into DEST; every placeholder not set takes "
        "its default or is computed from the one it derives from.",
        "",
    ]
    return "\n".join(lines)
