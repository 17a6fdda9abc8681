"""Phase 2's deterministic half: `heuristic_analysis(codebase)` reads what files show.

It always succeeds on a scanned codebase, so template-create has a complete analysis
even when no agent answers; the agent's answer is merged over it (`analysis_agent`).
Confidence starts at 0.4 and grows with each kind of evidence found (frameworks,
tests, layers, patterns, an entity), capped at 0.9: a scan is never certain.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import PurePosixPath

from executor.templates import detect
from executor.templates.conventions import code_style, naming_conventions
from executor.templates.models import Analysis, Layer
from executor.templates.naming import singularize, split_words
from executor.templates.scan import Codebase

#: Words that name a role, not a domain entity (`TaskListItem` -> entity `task`).
ROLE_WORDS = frozenset(
    {
        "test", "tests", "spec", "use", "repository", "repo", "service", "services",
        "controller", "handler", "view", "views", "viewmodel", "model", "models", "page",
        "form", "list", "item", "card", "detail", "details", "modal", "dialog", "button",
        "api", "router", "routes", "route", "schema", "schemas", "dto", "store", "context",
        "provider", "component", "interface", "impl", "base", "abstract", "i", "index", "main",
        "app", "init", "conftest", "config", "settings", "utils", "helpers", "types", "db",
        "database", "program", "startup", "module", "mock", "fake", "fixture", "fixtures",
        "setup", "readme",
    }
) | frozenset(detect.SUFFIX_PATTERNS)  # fmt: skip
MANIFEST_FILES = frozenset(
    {"pyproject.toml", "package.json", "go.mod", "cargo.toml", "pom.xml", "requirements.txt"}
)
_CLASS_NAME = re.compile(r"\b(?:class|interface|record|struct)\s+([A-Z]\w*)")
_PROJECT_NAME = (
    ("pyproject.toml", re.compile(r"^\[project\][^\[]*?^name\s*=\s*[\"']([^\"']+)", re.M | re.S)),
    ("setup.cfg", re.compile(r"^\[metadata\][^\[]*?^name\s*=\s*(\S+)", re.M | re.S)),
    ("cargo.toml", re.compile(r"^\[package\][^\[]*?^name\s*=\s*[\"']([^\"']+)", re.M | re.S)),
    ("go.mod", re.compile(r"^module\s+(?:\S+/)?([^/\s]+)\s*$", re.M)),
)


def project_name(codebase: Codebase) -> str:
    """The name the project gives itself (package metadata), else its folder's name."""
    for f in codebase.files:
        if f.parts[:-1]:
            continue
        text = codebase.text(f.path) or ""
        low = f.name.lower()
        if low == "package.json":
            try:
                data = json.loads(text)
            except ValueError:
                data = None
            if isinstance(data, dict) and isinstance(data.get("name"), str):
                return str(data["name"]).rsplit("/", 1)[-1]
        for name, regex in _PROJECT_NAME:
            if low == name and (m := regex.search(text)):
                return m.group(1)
    projects = [f for f in codebase.files if f.suffix == ".csproj" and not detect.is_test_file(f)]
    if projects:
        return PurePosixPath(min(projects, key=lambda f: len(f.parts)).name).stem
    return codebase.root.name


def _languages(codebase: Codebase) -> dict[str, int]:
    counted = Counter(
        detect.LANGUAGES[f.suffix] for f in codebase.files if f.suffix in detect.LANGUAGES
    )
    return dict(sorted(counted.items(), key=lambda kv: (-kv[1], kv[0])))


def _dependencies(codebase: Codebase) -> dict[str, list[str]]:
    """kind ('framework', 'testing', 'build') -> display names, in first-seen order."""
    out: dict[str, list[str]] = defaultdict(list)
    for names in detect.dependency_names(codebase).values():
        for name in names:
            found = detect.classify_dependency(name)
            if found and found[0] not in out[found[1]]:
                out[found[1]].append(found[0])
    return out


def _testing(codebase: Codebase, declared: list[str], language: str) -> list[str]:
    if declared:
        return declared
    tests = [f for f in codebase.files if detect.is_test_file(f) and f.suffix in detect.LANGUAGES]
    if language == "Python" and tests:
        texts = [codebase.head(f.path) for f in tests]
        if any(f.name == "conftest.py" for f in tests) or any("import pytest" in t for t in texts):
            return ["pytest"]
        if any("unittest" in t for t in texts):
            return ["unittest"]
    if language == "Go" and tests:
        return ["go test"]
    return []


def _build_tools(codebase: Codebase, declared: list[str]) -> list[str]:
    names = {f.name.lower() for f in codebase.files if not f.parts[:-1]}
    suffixes = {f.suffix for f in codebase.files}
    tools: list[str] = []
    pyproject = codebase.text("pyproject.toml") if "pyproject.toml" in names else None
    if pyproject and (m := re.search(r"build-backend\s*=\s*[\"']([\w.]+)", pyproject)):
        backend = m.group(1).split(".")[0]
        tools.append(
            {"hatchling": "Hatch", "poetry": "Poetry", "flit_core": "Flit"}.get(backend, backend)
        )
    checks = (
        ("setup.py" in names, "setuptools"),
        (any(n.startswith("requirements") for n in names), "pip"),
        ("yarn.lock" in names, "yarn"),
        ("pnpm-lock.yaml" in names, "pnpm"),
        ("package.json" in names and not {"yarn.lock", "pnpm-lock.yaml"} & names, "npm"),
        (bool(suffixes & {".csproj", ".sln"}), "dotnet"),
        ("go.mod" in names, "Go modules"),
        ("cargo.toml" in names, "Cargo"),
        ("pom.xml" in names, "Maven"),
        (bool(names & {"build.gradle", "build.gradle.kts"}), "Gradle"),
        ("makefile" in names, "Make"),
        ("dockerfile" in names, "Docker"),
        ("tox.ini" in names, "tox"),
        ("noxfile.py" in names, "nox"),
    )
    tools += [tool for present, tool in checks if present and tool not in tools]
    return tools + [t for t in declared if t not in tools]


def _layers(codebase: Codebase) -> list[Layer]:
    folders: dict[str, list[str]] = defaultdict(list)
    counts: Counter[str] = Counter()
    for f in codebase.files:
        layer = detect.layer_of(f)
        if layer is None:
            continue
        counts[layer] += 1
        folder = detect.layer_folder(f) or "."
        if layer == "tests" and not any(
            detect.LAYER_FOLDERS.get(p.lower()) == "tests" for p in f.parts[:-1]
        ):
            folder = "/".join(f.parts[:-1]) or "."
        if folder not in folders[layer]:
            folders[layer].append(folder)
    return [
        Layer(
            name=name,
            folders=sorted(folders[name]),
            file_count=counts[name],
            description=detect.LAYER_DESCRIPTIONS.get(name, ""),
        )
        for name in sorted(counts)
    ]


def _declared_names(codebase: Codebase) -> dict[str, list[str]]:
    """Code file -> its stem and the classes it declares."""
    return {
        f.path: [
            PurePosixPath(f.name).stem.split(".")[0],
            *_CLASS_NAME.findall(codebase.head(f.path)),
        ]
        for f in codebase.files
        if f.suffix in detect.LANGUAGES
    }


def _patterns(codebase: Codebase, names: dict[str, list[str]]) -> list[str]:
    found: Counter[str] = Counter()
    for path, declared in names.items():
        for name in declared:
            words = split_words(name)
            joined = "".join(words[-2:])
            for key in (joined, words[-1] if words else ""):
                if key in detect.SUFFIX_PATTERNS:
                    found[detect.SUFFIX_PATTERNS[key]] += 1
                    break
        text = codebase.head(path)
        for regex, pattern in detect.CONTENT_PATTERNS:
            if regex.search(text):
                found[pattern] += 1
    return sorted(found, key=lambda p: (-found[p], p))


def _entities(names: dict[str, list[str]]) -> list[str]:
    """Domain entities: names left in file/class names once role words are removed,
    ranked by how many files carry them (at least two)."""
    files_of: dict[str, set[str]] = defaultdict(set)
    for path, declared in names.items():
        for name in declared:
            words = [w for w in split_words(name) if w not in ROLE_WORDS and not w.isdigit()]
            if len(words) == 1 and len(words[0]) >= 3:
                files_of[singularize(words[0])].add(path)
    ranked = sorted(files_of, key=lambda e: (-len(files_of[e]), e))
    return [e[:1].upper() + e[1:] for e in ranked if len(files_of[e]) >= 2][:5]


def _architecture(layers: list[Layer], patterns: list[str], language: str) -> str:
    names = {layer.name for layer in layers}
    if "viewmodels" in names or "MVVM" in patterns:
        return "MVVM"
    if {"domain", "application", "infrastructure"} <= names:
        return "Clean Architecture"
    if {"ports", "adapters"} <= names:
        return "Hexagonal"
    if {"controllers", "views", "models"} <= names:
        return "MVC"
    if "components" in names and language in {"TypeScript", "JavaScript"}:
        return "Component-based"
    tiers = {"models", "repositories", "services", "api", "data", "controllers", "handlers"}
    if len(names & tiers) >= 2:
        return "Layered"
    return "Modular"


def representative_files(codebase: Codebase, layers: list[Layer], limit: int = 10) -> list[str]:
    """Up to `limit` files that show the project: manifests first, then the largest code
    file of each layer, then the largest remaining code files."""
    picked: list[str] = []
    manifests = [
        f
        for f in codebase.files
        if (not f.parts[:-1] and f.name.lower() in MANIFEST_FILES) or f.suffix == ".csproj"
    ]
    picked += [f.path for f in manifests[:2]]
    code = [f for f in codebase.files if f.suffix in detect.LANGUAGES]
    by_size = sorted(code, key=lambda f: (-f.size, f.path))
    for layer in layers:
        for f in by_size:
            if detect.layer_of(f) == layer.name and f.path not in picked:
                picked.append(f.path)
                break
    picked += [f.path for f in by_size if f.path not in picked]
    return picked[:limit]


def heuristic_analysis(codebase: Codebase) -> Analysis:
    languages = _languages(codebase)
    language = next(iter(languages), "Unknown")
    deps = _dependencies(codebase)
    layers = _layers(codebase)
    names = _declared_names(codebase)
    patterns = _patterns(codebase, names)
    entities = _entities(names)
    testing = _testing(codebase, deps["testing"], language)
    evidence = [deps["framework"], testing, len(layers) >= 2, patterns, entities]
    notes = ["the codebase has more files than were scanned"] if codebase.truncated else []
    fields = (
        "language",
        "frameworks",
        "testing_frameworks",
        "build_tools",
        "architecture",
        "layers",
        "patterns",
        "entities",
        "confidence",
    )
    return Analysis(
        project_name=project_name(codebase),
        language=language,
        languages=languages,
        frameworks=deps["framework"],
        testing_frameworks=testing,
        build_tools=_build_tools(codebase, deps["build"]),
        architecture=_architecture(layers, patterns, language),
        layers=layers,
        patterns=patterns,
        entities=entities,
        naming=naming_conventions(codebase, language),
        code_style=code_style(codebase, language),
        example_files=representative_files(codebase, layers),
        confidence=round(min(0.9, 0.4 + 0.1 * sum(bool(e) for e in evidence)), 2),
        sources=dict.fromkeys(fields, "heuristic"),
        notes=notes,
    )
