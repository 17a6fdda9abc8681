"""Phases 3 and 4: `manifest.json` (what the template is) and `settings.json` (how code
in it is written and laid out). Both are built from the analysis and the templates;
nothing here reads the disk.

Complexity (1-10): 1, plus up to 3 for the number of templates (one per 10), up to 3
for layers (one per 2) and up to 3 for frameworks (one each).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from executor.templates.detect import LANGUAGES
from executor.templates.models import (
    Analysis,
    FileOrganization,
    LayerMapping,
    Manifest,
    QAAnswers,
    Settings,
    TemplateSet,
)
from executor.templates.qa import purpose


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _tag(text: str) -> str:
    return re.sub(r"[^a-z0-9#+.]+", "-", text.lower()).strip("-")


def build_manifest(
    analysis: Analysis,
    answers: QAAnswers,
    templates: TemplateSet,
    *,
    source_project: Path,
    created_at: str | None = None,
) -> Manifest:
    layers = list(
        dict.fromkeys(
            [*(layer.name for layer in analysis.layers), *(e.file.layer for e in templates.entries)]
        )
    )
    words = [analysis.language, *analysis.frameworks, analysis.architecture, *analysis.patterns]
    complexity = (
        1
        + min(3, len(templates.entries) // 10)
        + min(3, len(analysis.layers) // 2)
        + min(3, len(analysis.frameworks))
    )
    return Manifest(
        name=answers.template_name,
        description=purpose(answers, analysis),
        language=analysis.language,
        frameworks=list(analysis.frameworks),
        testing_frameworks=list(analysis.testing_frameworks),
        build_tools=list(analysis.build_tools),
        architecture=analysis.architecture,
        patterns=list(analysis.patterns),
        layers=layers,
        tags=list(dict.fromkeys(t for t in map(_tag, words) if t)),
        complexity=complexity,
        source_project=str(source_project),
        confidence=analysis.confidence,
        sources=dict(analysis.sources),
        created_at=created_at or utc_now(),
        placeholders=dict(templates.placeholders),
        templates=[e.file for e in templates.entries],
    )


def _common_folder(paths: list[str]) -> str:
    if not paths:
        return "."
    parts = [PurePosixPath(p).parts[:-1] for p in paths]
    common: list[str] = []
    for level in zip(*parts, strict=False):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return "/".join(common) or "."


def _test_pattern(names: list[str]) -> str:
    patterns = (
        (r"^test_.*\.py$", "test_*.py"),
        (r"^.*_test\.py$", "*_test.py"),
        (r"^.*_test\.go$", "*_test.go"),
        (r"^.*\.test\.tsx?$", "*.test.ts(x)"),
        (r"^.*\.spec\.tsx?$", "*.spec.ts(x)"),
        (r"^.*\.test\.jsx?$", "*.test.js(x)"),
        (r"^.*Tests?\.cs$", "*Tests.cs"),
        (r"^.*Tests?\.java$", "*Test.java"),
    )
    counted = {label: sum(bool(re.match(rx, n)) for n in names) for rx, label in patterns}
    best = max(counted, key=lambda k: counted[k])
    return best if counted[best] else ""


def build_settings(analysis: Analysis, templates: TemplateSet) -> Settings:
    files = [e.file for e in templates.entries]
    code = [
        f.source_path
        for f in files
        if LANGUAGES.get(PurePosixPath(f.source_path).suffix) == analysis.language
        and f.layer != "tests"
    ]
    tests = [f.source_path for f in files if f.layer == "tests"]
    test_dirs = {str(PurePosixPath(t).parent) for t in tests}
    code_dirs = {str(PurePosixPath(c).parent) for c in code}
    if not tests:
        location = "none found"
    elif test_dirs & code_dirs:
        location = "alongside the code"
    else:
        location = f"separate: {_common_folder(tests)}/"
    mappings: dict[str, LayerMapping] = {}
    for layer in analysis.layers:
        mappings[layer.name] = LayerMapping(
            folders=list(layer.folders),
            template_folder=f"templates/{layer.name}",
            examples=sorted(
                (f.source_path for f in files if f.layer == layer.name),
                key=lambda path: (PurePosixPath(path).stem in {"__init__", "index"}, path),
            )[:3],
        )
    return Settings(
        naming_conventions=dict(analysis.naming),
        file_organization=FileOrganization(
            source_root=_common_folder(code),
            test_location=location,
            test_file_pattern=_test_pattern([PurePosixPath(t).name for t in tests]),
            by_layer=len([layer for layer in analysis.layers if layer.name != "tests"]) >= 2,
            config_files=[
                f.source_path
                for f in files
                if "/" not in f.source_path and PurePosixPath(f.source_path).suffix not in LANGUAGES
            ],
        ),
        layer_mappings=mappings,
        code_style=analysis.code_style,
    )
