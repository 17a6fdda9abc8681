"""Phase 6: the specialist subagents a template ships in `agents/<name>.md`.

`agents_prompt` asks `architectural-reviewer` for a JSON array of recommendations (seed
000's shape); `parse_agents_answer` keeps the valid ones; `fallback_agents` is the
deterministic set used when there is no usable answer (a language, an architecture, a
framework and a testing specialist). `agent_markdown` writes one Claude Code subagent
file; its body is built from the analysis and settings, so each agent knows the
project's layers, naming, style and example files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from executor.templates.answers import extract_json, fence
from executor.templates.detect import LANGUAGES, is_test_file
from executor.templates.models import AgentSpec, Analysis, QAAnswers, Settings
from executor.templates.scan import SourceFile

#: Agents plan-executor already ships: never recommended again.
SHIPPED_AGENTS = ("architectural-reviewer", "agent-content-enhancer")
MAX_AGENTS = 10
AGENT_NAME = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
_PRIORITY_WORDS = {"critical": 10, "high": 8, "medium": 5, "low": 3}
ANSWER_SHAPE = [
    {
        "name": "repository-pattern-specialist",
        "description": "Writes and reviews repositories in this project's style",
        "reason": "Data access goes through four repositories with the same shape",
        "technologies": ["Python", "SQLAlchemy"],
        "example_files": ["app/repositories/order_repository.py"],
        "priority": 8,
    }
]
ARCHITECTURE_RULES: dict[str, str] = {
    "Layered": "Calls go down one layer at a time (routes -> services -> repositories -> "
    "models); no layer imports one above it.",
    "MVVM": "Views bind to ViewModels only; ViewModels never reference Views; models hold "
    "no UI logic. Commands and observable properties live in the ViewModel.",
    "MVC": "Controllers stay thin: they parse input, call the model layer and pick a view.",
    "Clean Architecture": "Dependencies point inwards: the domain depends on nothing, "
    "application on the domain, infrastructure on both.",
    "Hexagonal": "The core talks to the outside only through ports; adapters implement them.",
    "Component-based": "Components render; state and side effects live in hooks; data "
    "access lives in services. Components receive data through props.",
}


def slug(text: str) -> str:
    text = text.replace(".NET", "dotnet").replace("C#", "csharp").replace("F#", "fsharp")
    text = text.replace("C++", "cpp")
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "general"


def agents_prompt(analysis: Analysis, *, template_name: str = "") -> str:
    summary = {
        "project": analysis.project_name,
        "language": analysis.language,
        "frameworks": analysis.frameworks,
        "architecture": analysis.architecture,
        "layers": {layer.name: layer.folders for layer in analysis.layers},
        "patterns": analysis.patterns,
        "testing": analysis.testing_frameworks,
        "entities": analysis.entities,
        "example_files": analysis.example_files,
    }
    return "\n".join(
        [
            "# Specialist agents for a project template",
            "",
            f"A template{f' named `{template_name}`' if template_name else ''} is being made "
            "from the codebase analysed below. Recommend the specialised Claude Code "
            "subagents that someone building on it needs: one per technology, pattern or "
            "layer that needs its own expertise (typically 3 to 7). Do not recommend "
            f"{' or '.join(SHIPPED_AGENTS)}: they exist already.",
            "",
            "## The codebase",
            "",
            fence(json.dumps(summary, indent=2), "json"),
            "",
            "## Answer",
            "",
            "Answer with ONE JSON array of this shape and nothing else. `name` is "
            "kebab-case; `priority` is 1 (nice to have) to 10 (essential); `example_files` "
            "are paths from the codebase that show what the agent must follow.",
            "",
            fence(json.dumps(ANSWER_SHAPE, indent=2), "json"),
        ]
    )


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list):
        return []
    return [v.strip() for v in value if isinstance(v, str) and v.strip()][:20]


def _priority(value: Any) -> int:
    if isinstance(value, str):
        value = _PRIORITY_WORDS.get(value.strip().lower(), value)
        value = int(value) if isinstance(value, str) and value.strip().isdigit() else value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return max(1, min(10, int(value)))
    return 5


def _spec(item: Any) -> AgentSpec | None:
    if not isinstance(item, dict):
        return None
    name, description = item.get("name"), item.get("description")
    if not isinstance(name, str) or not isinstance(description, str) or not description.strip():
        return None
    if not re.search(r"[A-Za-z0-9]", name):
        return None
    name = slug(name)
    if not AGENT_NAME.match(name) or len(name) > 64 or name in SHIPPED_AGENTS:
        return None
    return AgentSpec(
        name=name,
        description=" ".join(description.split())[:300],
        reason=" ".join(str(item.get("reason") or "").split())[:500],
        technologies=_strings(item.get("technologies")),
        example_files=_strings(item.get("example_files")),
        priority=_priority(item.get("priority")),
        tools=[t for t in _strings(item.get("tools")) if re.match(r"^[A-Z][A-Za-z]+$", t)],
        source="agent",
    )


def parse_agents_answer(text: str) -> list[AgentSpec] | None:
    """The valid recommendations, highest priority first, or None when there are none."""
    data = extract_json(text or "", want=list)
    if data is None:
        wrapped = extract_json(text or "")
        data = wrapped.get("agents") if isinstance(wrapped, dict) else None
    if not isinstance(data, list):
        return None
    specs: dict[str, AgentSpec] = {}
    for item in data:
        spec = _spec(item)
        if spec is not None and spec.name not in specs:
            specs[spec.name] = spec
    ranked = sorted(specs.values(), key=lambda s: -s.priority)[:MAX_AGENTS]
    return ranked or None


def fallback_agents(analysis: Analysis) -> list[AgentSpec]:
    """At least three: the language, the architecture and testing, plus up to two
    frameworks."""
    files = [SourceFile(path=p, size=0, executable=False) for p in analysis.example_files]
    tests = [f.path for f in files if is_test_file(f)]
    code = [f.path for f in files if f.suffix in LANGUAGES and f.path not in tests]
    lang, arch = analysis.language, analysis.architecture
    testing = analysis.testing_frameworks[0] if analysis.testing_frameworks else lang
    arch_slug = slug(arch) if "architecture" in arch.lower() else f"{slug(arch)}-architecture"
    specs = [
        AgentSpec(
            name=f"{arch_slug}-specialist",
            priority=8,
            technologies=[arch],
            description=f"Keeps new code in the {arch} structure of this project: "
            "the right layer, the right dependencies, the existing patterns",
            reason=f"The project is organised as {arch} with layers "
            f"{', '.join(layer.name for layer in analysis.layers) or 'none found'}",
            example_files=code[:4],
        ),
        AgentSpec(
            name=f"{slug(lang)}-specialist",
            priority=7,
            technologies=[lang],
            description=f"Writes idiomatic {lang} following this project's naming and code style",
            reason=f"{lang} is the main language ({analysis.languages.get(lang, 0)} files)",
            example_files=code[:3],
        ),
        AgentSpec(
            name=f"{slug(testing)}-testing-specialist",
            priority=7,
            technologies=[testing],
            description=f"Writes and fixes tests with {testing} in the project's style",
            reason="Every change needs tests like the existing ones",
            example_files=tests[:3],
        ),
    ]
    for framework in analysis.frameworks[:2]:
        specs.append(
            AgentSpec(
                name=f"{slug(framework)}-specialist",
                priority=6,
                technologies=[framework],
                description=f"Uses {framework} the way this project does",
                reason=f"The project depends on {framework}",
                example_files=code[:3],
            )
        )
    unique: dict[str, AgentSpec] = {}
    for spec in specs:
        unique.setdefault(spec.name, spec)
    return list(unique.values())


def select_agents(
    analysis: Analysis, answers: QAAnswers, answer_text: str | None
) -> list[AgentSpec]:
    """Phase 6 in one call: none, the built-in set, or the agent's recommendations when
    they parse (else the built-in set)."""
    if answers.agents == "none":
        return []
    if answers.agents == "ai" and answer_text is not None:
        recommended = parse_agents_answer(answer_text)
        if recommended:
            return recommended
    return fallback_agents(analysis)


def _frontmatter_value(text: str) -> str:
    """A one-line YAML scalar that `executor.claude.frontmatter` (and YAML) read back."""
    text = " ".join(text.split())
    plain_ok = (
        text
        and not text.startswith(tuple("[]{}&*!|>'\"%@`#,-?:"))
        and ": " not in text
        and " #" not in text
        and not text.endswith(":")
    )
    return text if plain_ok else "'" + text.replace("'", "''") + "'"


def _naming_lines(settings: Settings) -> list[str]:
    lines = []
    for kind, conv in settings.naming_conventions.items():
        example = f" (e.g. {', '.join(f'`{e}`' for e in conv.examples)})" if conv.examples else ""
        lines.append(f"- {kind.replace('_', ' ')}: {conv.style}{example}")
    return lines


def agent_markdown(
    spec: AgentSpec, analysis: Analysis, settings: Settings, *, template_name: str
) -> str:
    style = settings.code_style
    indent = "tabs" if style.indentation == "tabs" else f"{style.indent_size} spaces"
    org = settings.file_organization
    layers = [
        f"- {layer.name}: {', '.join(f'`{f}`' for f in layer.folders) or '(no folder)'}"
        + (f" ({layer.description})" if layer.description else "")
        for layer in analysis.layers
    ]
    front = [f"name: {spec.name}", f"description: {_frontmatter_value(spec.description)}"]
    if spec.tools:
        front.append(f"tools: {', '.join(spec.tools)}")
    examples = [f"- `{p}`" for p in spec.example_files] or ["- (none named)"]
    testing = ", ".join(analysis.testing_frameworks) or "the project's tests"
    pattern = f", {org.test_file_pattern}" if org.test_file_pattern else ""
    rules = [
        ARCHITECTURE_RULES.get(analysis.architecture, "Keep each module focused on one concern."),
        "Put every new file in the folder of its layer and name it like its neighbours.",
        f"Write or update tests with every change ({testing}; {org.test_location}{pattern}).",
    ]
    body = [
        "---",
        *front,
        "---",
        "",
        f"You are the {spec.name.replace('-', ' ')} for projects made from the "
        f"`{template_name}` template: {analysis.architecture} {analysis.language}"
        + (f" with {', '.join(analysis.frameworks)}" if analysis.frameworks else "")
        + ".",
        "",
        spec.description + ".",
        "",
        "## Why this agent",
        "",
        spec.reason or "Recommended for this template.",
        "",
        "## Technologies",
        "",
        *[f"- {t}" for t in spec.technologies or [analysis.language]],
        "",
        "## Architecture and layers",
        "",
        *(layers or ["- (no layers found)"]),
        "",
        f"Patterns in use: {', '.join(analysis.patterns) or 'none detected'}.",
        "",
        "## Naming",
        "",
        *(_naming_lines(settings) or ["- (no convention detected)"]),
        "",
        "## Code style",
        "",
        f"- Indentation: {indent}; lines up to {style.line_length} characters "
        f"({style.line_length_source}); {style.quotes} quotes; {style.line_endings.upper()} "
        "line endings.",
        "",
        "## Examples to follow",
        "",
        *examples,
        "",
        "## Rules",
        "",
        *[f"- {r}" for r in rules],
        "",
    ]
    return "\n".join(body)


def agent_files(
    specs: Sequence[AgentSpec], analysis: Analysis, settings: Settings, *, template_name: str
) -> dict[str, str]:
    """`agents/<name>.md` -> content, for every agent."""
    return {
        f"agents/{s.name}.md": agent_markdown(s, analysis, settings, template_name=template_name)
        for s in specs
    }
