"""Phase 5: every text file of the project becomes a template (or those picked by
`include` globs), with names replaced by placeholders and `{{` escaped.

All files and not a few samples, because applying a template must give a project that
works, and a file left out is a file missing from it. What is left out on purpose, and
where a template is stored: docs/template-create.md, "Which files become templates".
"""

from __future__ import annotations

import fnmatch
import hashlib
from collections.abc import Sequence
from pathlib import PurePosixPath

from executor.errors import TemplateGenerationError
from executor.templates import completeness, detect
from executor.templates.models import Analysis, Layer, TemplateEntry, TemplateFile, TemplateSet
from executor.templates.placeholders import Substitution, concepts, declare, occurs
from executor.templates.reserved import reserved_names
from executor.templates.scan import Codebase, SourceFile


def _selected(f: SourceFile, include: Sequence[str]) -> bool:
    if not include:
        return True
    for pattern in include:
        pattern = pattern.strip().rstrip("/")
        if fnmatch.fnmatch(f.path, pattern) or f.path.startswith(pattern + "/"):
            return True
    return False


def assign_layer(f: SourceFile, layers: Sequence[Layer]) -> tuple[str, str]:
    """(layer name, the folder the file is placed relative to; '' for the root)."""
    names = {layer.name for layer in layers}
    best: tuple[int, str, str] | None = None
    for layer in layers:
        if layer.name == "tests" and not detect.is_test_file(f):
            continue
        if layer.name != "tests" and "tests" in names and detect.is_test_file(f):
            continue
        for folder in layer.folders:
            folder = folder.strip("/")
            if folder in {"", "."} or f.path.startswith(folder + "/"):
                depth = 0 if folder in {"", "."} else folder.count("/") + 1
                if best is None or depth > best[0]:
                    best = (depth, layer.name, "" if depth == 0 else folder)
    if best is None:
        return ("tests" if "tests" in names and detect.is_test_file(f) else "project"), ""
    return best[1], best[2]


def _template_path(f: SourceFile, layer: str, folder: str, taken: set[str]) -> str:
    inner = f.path[len(folder) + 1 :] if folder else f.path
    path, n = f"templates/{layer}/{inner}.template", 1
    if path in taken:
        path = f"templates/{layer}/{f.path}.template"
    while path in taken:
        n += 1
        path = f"templates/{layer}/{f.path}.{n}.template"
    taken.add(path)
    return path


def _prioritised(files: list[SourceFile], analysis: Analysis) -> list[SourceFile]:
    """Example files first, then layered files, then the rest (for `max_templates`)."""
    examples = {p: i for i, p in enumerate(analysis.example_files)}
    return sorted(
        files,
        key=lambda f: (examples.get(f.path, len(examples)), detect.layer_of(f) is None, f.path),
    )


def generate_templates(
    codebase: Codebase,
    analysis: Analysis,
    *,
    include: Sequence[str] = (),
    max_templates: int | None = None,
) -> TemplateSet:
    """Templates for the project's files; raises TemplateGenerationError when none can be
    made (no text file selected). The entity is the first of `analysis.entities` that
    occurs in the selected files (an agent may name one the code does not use)."""
    skipped: list[str] = []
    candidates: list[SourceFile] = []
    for f in codebase.files:
        if not _selected(f, include) or f.name.lower() in detect.LOCK_FILES:
            continue
        if codebase.text(f.path) is None:
            skipped.append(f"{f.path}: binary")
            continue
        candidates.append(f)
    if max_templates is not None and len(candidates) > max_templates:
        kept = _prioritised(candidates, analysis)[:max_templates]
        skipped += [f"{f.path}: over max_templates" for f in candidates if f not in kept]
        candidates = sorted(kept, key=lambda f: f.path)
    if not candidates:
        where = f" matching {', '.join(include)}" if include else ""
        raise TemplateGenerationError(
            f"no text file{where} to make a template from in {codebase.root}",
            path=codebase.root,
            problems=skipped,
        )
    texts = [codebase.text(f.path) or "" for f in candidates]
    entity = next((e for e in analysis.entities if occurs(e, texts)), None)
    python = (t for f, t in zip(candidates, texts, strict=True) if f.suffix in {".py", ".pyi"})
    reserved = reserved_names([analysis.language, *analysis.languages], python)
    subst = Substitution(concepts(analysis.project_name, entity), reserved)
    taken: set[str] = set()
    entries: list[TemplateEntry] = []
    used: set[str] = set()
    # a folder that holds Python modules is a package: a path in it spells names snake
    packages = {
        str(PurePosixPath(f.path).parent) for f in codebase.files if f.suffix in {".py", ".pyi"}
    } - {"."}
    for f, source in zip(candidates, texts, strict=True):
        text, names = subst.apply(source, f.path)
        in_package = str(PurePosixPath(f.path).parent) in packages
        output_path, path_names = subst.apply(
            f.path, f.path, default="snake" if in_package else None
        )
        layer, folder = assign_layer(f, analysis.layers)
        names = list(dict.fromkeys(path_names + names))
        used.update(names)
        file = TemplateFile(
            source_path=f.path,
            template_path=_template_path(f, layer, folder, taken),
            output_path=output_path,
            layer=layer,
            sha256=hashlib.sha256(codebase.data(f.path)).hexdigest(),
            executable=f.executable,
            placeholders=names,
        )
        entries.append(TemplateEntry(file=file, text=text))
    placeholders = declare(subst, used)
    findings = completeness.empty_layers(analysis.layers, [e.file for e in entries])
    if "EntityName" in placeholders:
        pairs = [(e.file, e.text) for e in entries]
        findings = completeness.crud_gaps(placeholders["EntityName"].default, pairs) + findings
    return TemplateSet(
        placeholders=placeholders, entries=entries, skipped=skipped, completeness=findings
    )
