"""Session dependencies drawn as a Mermaid graph (`S1 --> S2`) in a plan file."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise


@dataclass
class Edge:
    """`S1 --> S2` in a Mermaid block: `after` depends on `before`."""

    before: int
    after: int
    line: int


def mermaid_edges(raw: str, first_line: int) -> list[Edge]:
    """The session edges of a Mermaid block whose first line is `first_line`:
    `S1 --> S2`, `S1[Label] --> S2`, `S2 --> S3 & S4`, chains, `-->|label|`, comments."""
    edges: list[Edge] = []
    for offset, text in enumerate(raw.split("\n")):  # block text: lines end at LF only
        text = re.sub(r"%%.*$", "", text)
        text = re.sub(r"\|[^|]*\|", "", text)
        text = re.sub(r"--\s[^->]*?-->", "-->", text)
        parts = re.split(r"\s*(?:-{2,}>|={2,}>|-\.+->|-{3,}|~~~)\s*", text.strip())
        if len(parts) < 2:
            continue
        groups = [
            [n for n in (_mermaid_node(p) for p in part.split("&")) if n is not None]
            for part in parts
        ]
        for before, after in pairwise(groups):
            for b in before:
                for a in after:
                    edges.append(Edge(b, a, first_line + offset))
    return edges


_NODE_ID = re.compile(r"^\s*(?:s|session)[_\-]?(\d+)\b", re.I)
_NODE_LABEL = re.compile(r"session\s+#?(\d+)", re.I)


def _mermaid_node(text: str) -> int | None:
    """Session number of a Mermaid node (`S1`, `S1[Models]`, `A[Session 1]`), else None."""
    text = text.strip()
    if m := _NODE_ID.match(text):
        return int(m.group(1))
    if m := _NODE_LABEL.search(text):
        return int(m.group(1))
    return None
