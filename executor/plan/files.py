"""File lists in plans: list items, directory trees, task-plan `**Files:**` items."""

from __future__ import annotations

import re

from executor.plan.markdown import code_spans, plain
from executor.plan.models import FileSpec
from executor.plan.vocabulary import looks_like_path

_FILE_PREFIX = re.compile(r"^(?:create|modify|update|test|add|edit|new)\s*:\s*", re.I)
_FILE_ITEM = re.compile(
    r"^(create|creates|modify|modifies|update|test|tests|delete|remove|read|add|edit|new)"
    r"\s*:\s*(.*)$",
    re.I,
)
_LINE_SUFFIX = re.compile(r":\d[\d,\-– ]*$")


def list_item_files(item: str, line: int) -> list[FileSpec]:
    r"""A files-section item: `- \`path\` (note)`, `- \`path\` - note`, `- path note`,
    `- Create: \`path\``, or several paths in code spans; [] when no path is readable."""
    spans = code_spans(item)
    text = plain(item, ticks=False)
    if len(spans) > 1 and all(looks_like_path(s) for s in spans):
        return [FileSpec(path=span, line=line) for span in spans]
    if spans:
        path = spans[0]
        after = plain(item)
        note = after.split(f"`{path}`", 1)[1] if f"`{path}`" in after else ""
    else:
        body = _FILE_PREFIX.sub("", text)
        path, _, note = body.partition(" ")
    path = _FILE_PREFIX.sub("", path).strip().strip("*")
    note = note.strip().strip("-–—:").strip()
    if note.startswith("(") and note.endswith(")"):
        note = note[1:-1].strip()
    return [FileSpec(path=path, note=note, line=line)] if path else []


def task_file_spec(item: str, line: int) -> FileSpec | None:
    """A `**Files:**` item of a task plan: `Create: `path`` (Read items: None)."""
    text = plain(item)
    m = _FILE_ITEM.match(text.lstrip("*_ "))
    if m is None:
        return None
    kind, rest = m.group(1).lower(), m.group(2).strip()
    if kind == "read":
        return None
    spans = code_spans(rest)
    path = spans[0] if spans else rest.split(" ")[0]
    note = rest.split(f"`{path}`", 1)[1] if spans else rest[len(path) :]
    path = _LINE_SUFFIX.sub("", path.strip())
    note = " ".join(p for p in (kind, note.strip(" -–—:")) if p)
    return FileSpec(path=path, note=note, line=line) if path else None


_TREE_MARKS = re.compile(r"[│├└┣┗┃|`]|──|--|─")
_TREE_COMMENT = re.compile(r"\s+(?:#|//|<--|←)\s*(.*)$")


def tree_paths(text: str) -> list[tuple[str, str, int]]:
    """File paths drawn as a directory tree (indentation and/or `├──` marks, `# notes`)
    -> `(path, note, line offset)`; folders end with `/` or hold deeper lines."""
    rows: list[tuple[int, str, str, int]] = []
    for offset, raw in enumerate(text.splitlines()):
        comment = _TREE_COMMENT.search(raw)
        body = raw[: comment.start()] if comment else raw
        if body.lstrip().startswith("#"):
            continue
        flat = _TREE_MARKS.sub(lambda m: " " * len(m.group(0)), body)
        name = flat.strip()
        if not name or " " in name:
            continue
        rows.append(
            (len(flat) - len(flat.lstrip()), name, comment.group(1) if comment else "", offset)
        )
    out: list[tuple[str, str, int]] = []
    stack: list[tuple[int, str]] = []
    for i, (depth, name, note, offset) in enumerate(rows):
        while stack and stack[-1][0] >= depth:
            stack.pop()
        deeper = i + 1 < len(rows) and rows[i + 1][0] > depth
        if name.endswith("/") or deeper:
            stack.append((depth, name.rstrip("/")))
            continue
        out.append(("/".join([*(d for _, d in stack), name]), note.strip(), offset))
    return out
