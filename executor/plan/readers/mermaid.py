"""Session dependencies drawn in a plan file: a Mermaid graph (`S1 --> S2`), or a tree of
sessions in a plain block, each under the session it waits for, with lines that say the
rest (`Session 13 (Events) depends on Sessions 6, 9, 11`, `depends on all above`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from executor.plan.text.vocabulary import parse_session_refs


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


_TREE_SESSION = re.compile(r"\bsession\s+#?(\d+)\b", re.I)
_BRANCH = re.compile(r"[└├╰]|(?:^|\s)(?:\+|\|)?--|→|->")
_DEPENDS_ON = re.compile(r"\bdepends?\s+on\b(.*)$", re.I)
_ALL_ABOVE = re.compile(r"^\s*all\b", re.I)


def tree_edges(raw: str, first_line: int) -> list[Edge]:
    """The edges of a tree of sessions (`└→ Session 2` under `Session 1`: 2 waits for
    1) and of its `Session N ... depends on ...` lines; [] for a block that draws none."""
    lines = raw.split("\n")
    if sum(1 for t in lines if _BRANCH.search(t) and _TREE_SESSION.search(t)) < 2:
        return []
    edges: list[Edge] = []
    above: list[tuple[int, int]] = []  # (column, session) of the branch being read
    for offset, text in enumerate(lines):
        node = _TREE_SESSION.search(text)
        if node is None:
            continue
        number, line = int(node.group(1)), first_line + offset
        said = _DEPENDS_ON.search(text)
        if said is not None:
            if _ALL_ABOVE.match(said.group(1)):
                befores = list(range(1, number))
            else:
                befores = parse_session_refs(said.group(1)) or []
            edges += [Edge(b, number, line) for b in befores if b != number]
            continue
        while above and above[-1][0] >= node.start():
            above.pop()
        if above and _BRANCH.search(text[: node.start()]):
            edges.append(Edge(above[-1][1], number, line))
        above.append((node.start(), number))
    return edges
