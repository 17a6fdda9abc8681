"""`executor agents`: the agent presets, the exact command each runs, and whether its CLI
is on PATH here; then replay and bridge, the two built-in choices of --agent."""

from __future__ import annotations

from executor.cli.spec import Commands
from executor.params import Param

commands = Commands()

REPLAY: dict[str, object] = {
    "name": "replay",
    "summary": "the deterministic replay agent (not an AI; demos and tests), with --solutions",
    "template": "python -m executor replay-agent --solutions DIR  (reads EXECUTOR_* variables)",
    "on_path": "built in",
    "sources": ["executor docs replay-agent"],
}

BRIDGE: dict[str, object] = {
    "name": "bridge",
    "summary": "no agent process: each request is written for a host to answer, and the "
    "executor exits 42 (the default; --agent bridge drops a saved agent)",
    "template": "executor bridge show / executor bridge respond, then re-run with --resume",
    "on_path": "built in",
    "sources": ["executor docs bridge"],
}


def agents_data() -> list[dict[str, object]]:
    from executor.agent_presets import PRESETS, on_path

    rows: list[dict[str, object]] = [
        {
            "name": p.name,
            "summary": p.summary,
            "template": p.template,
            "on_path": on_path(p.name),
            "sources": list(p.sources),
        }
        for p in PRESETS.values()
    ]
    return [*rows, REPLAY, BRIDGE]


@commands(
    "agents",
    Param("json_output", "--json", kind="flag", help="Machine-readable output on stdout."),
)
def agents(json_output: bool) -> None:
    """The agent presets for --agent: what each runs, and whether it is installed."""
    from executor import console
    from executor.cli import common

    def body() -> int:
        data = agents_data()
        if json_output:
            console.out_json(data)
            return 0
        for row in data:
            where = row["on_path"] or "not on PATH"
            console.out(f"{row['name']}: {row['summary']}")
            console.out(f"  runs:   {row['template']}")
            console.out(f"  found:  {where}")
            for url in row["sources"]:  # type: ignore[attr-defined]
                console.out(f"  source: {url}")
            console.out("")
        return 0

    common.run(body, json_output=json_output)
