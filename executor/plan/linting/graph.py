"""The session dependency graph: cycles, depth levels, the critical path.

Works on plain `{session: [dependencies]}` maps so lint, `plan show` and the engine
can share it. Dependencies on sessions that do not exist are ignored here (lint
reports them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from executor.plan.models import Plan

Graph = Mapping[int, Sequence[int]]


def graph_of(plan: Plan) -> dict[int, list[int]]:
    """`{session number: its dependencies that exist}` in plan order."""
    numbers = {s.number for s in plan.sessions()}
    return {s.number: [d for d in s.dependencies if d in numbers] for s in plan.sessions()}


def find_cycles(graph: Graph) -> list[list[int]]:
    """Each dependency cycle once, as `[a, b, ..., a]` starting at its smallest member."""
    white, grey, black = 0, 1, 2
    color = dict.fromkeys(graph, white)
    cycles: list[list[int]] = []
    seen: set[frozenset[int]] = set()
    for root in sorted(graph):
        if color[root] != white:
            continue
        stack: list[tuple[int, int]] = [(root, 0)]
        path: list[int] = [root]
        color[root] = grey
        while stack:
            node, i = stack[-1]
            deps = [d for d in graph.get(node, ()) if d in color]
            if i < len(deps):
                stack[-1] = (node, i + 1)
                nxt = deps[i]
                if color[nxt] == grey:
                    cycle = path[path.index(nxt) :]
                    key = frozenset(cycle)
                    if key not in seen:
                        seen.add(key)
                        start = cycle.index(min(cycle))
                        ordered = cycle[start:] + cycle[:start]
                        cycles.append([*ordered, ordered[0]])
                elif color[nxt] == white:
                    color[nxt] = grey
                    stack.append((nxt, 0))
                    path.append(nxt)
            else:
                color[node] = black
                stack.pop()
                path.pop()
    return cycles


def depth_levels(graph: Graph) -> dict[int, int]:
    """Depth of each session (0 = no dependencies); sessions on a cycle are left out."""
    depth: dict[int, int] = {}
    pending = {n: [d for d in deps if d in graph] for n, deps in graph.items()}
    progress = True
    while progress:
        progress = False
        for n, deps in pending.items():
            if n not in depth and all(d in depth for d in deps):
                depth[n] = 1 + max((depth[d] for d in deps), default=-1)
                progress = True
    return depth


def parallel_groups(graph: Graph) -> list[list[int]]:
    """Sessions grouped by depth: each group could run side by side."""
    levels = depth_levels(graph)
    groups: dict[int, list[int]] = {}
    for n, d in levels.items():
        groups.setdefault(d, []).append(n)
    return [sorted(groups[d]) for d in sorted(groups)]


def critical_path(graph: Graph, weight: Mapping[int, float] | None = None) -> list[int]:
    """The longest dependency chain by `weight` (estimated hours; 1 per session if None)."""
    levels = depth_levels(graph)
    best: dict[int, tuple[float, list[int]]] = {}
    for n in sorted(levels, key=lambda k: (levels[k], k)):
        w = weight.get(n, 1.0) if weight is not None else 1.0
        prev = max((best[d] for d in graph[n] if d in best), key=lambda b: b[0], default=(0.0, []))
        best[n] = (prev[0] + w, [*prev[1], n])
    if not best:
        return []
    return max(best.values(), key=lambda b: (b[0], -b[1][-1]))[1]
