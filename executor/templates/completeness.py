"""Is the template whole? CRUD symmetry per entity, and a template for every layer.

Findings are warnings: they go into `TemplateSet.completeness`, the verify report and
`validation-report.md`, but never fail validation (a read-only API is legitimate).
Operations are read from identifiers in the entity's files (those whose output path
names the entity): the first word of `create_book`, `addTask`, `DeleteNoteAsync`, ...
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from executor.templates.models import Layer, TemplateFile
from executor.templates.naming import split_words
from executor.templates.render import tokens

VERBS: dict[str, str] = {
    "create": "create",
    "add": "create",
    "insert": "create",
    "post": "create",
    "get": "read",
    "find": "read",
    "read": "read",
    "fetch": "read",
    "list": "read",
    "load": "read",
    "retrieve": "read",
    "update": "update",
    "edit": "update",
    "put": "update",
    "patch": "update",
    "toggle": "update",
    "rename": "update",
    "modify": "update",
    "delete": "delete",
    "remove": "delete",
    "destroy": "delete",
}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: (operation present, operation missing): each pair found is one warning
_PAIRS = (("create", "delete"), ("create", "read"), ("update", "read"), ("delete", "create"))


def _without_placeholders(text: str) -> str:
    """Placeholders read as the word `entity`, so `delete{{EntityName}}` is `deleteEntity`."""
    out, pos = [], 0
    for t in tokens(text):
        out += [text[pos : t.start], "Entity" if t.name else " "]
        pos = t.end
    return "".join([*out, text[pos:]])


def crud_gaps(entity: str, files: Iterable[tuple[TemplateFile, str]]) -> list[str]:
    """'Book: create without delete (...)' for each asymmetric pair of operations."""
    seen: dict[str, list[str]] = {}
    for file, text in files:
        if "{{EntityName" not in file.output_path:
            continue
        for ident in _IDENT.findall(_without_placeholders(text)):
            words = split_words(ident)
            op = VERBS.get(words[0]) if words else None
            if op and file.source_path not in seen.setdefault(op, []):
                seen[op].append(file.source_path)
    return [
        f"{entity}: {have} without {missing} (seen in {', '.join(seen[have][:3])})"
        for have, missing in _PAIRS
        if have in seen and missing not in seen
    ]


def empty_layers(layers: Iterable[Layer], files: Iterable[TemplateFile]) -> list[str]:
    covered = {f.layer for f in files}
    return [
        f"layer '{layer.name}' ({', '.join(layer.folders) or 'no folder'}) has no template"
        for layer in layers
        if layer.name not in covered
    ]
