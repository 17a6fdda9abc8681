"""`executor config`: each run option's value for the next run, and where it comes from
(a flag given then > the run's saved options > `[tool.executor]` / `.executor.toml` >
the default)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from executor.cli.spec import Commands
from executor.params import Param

if TYPE_CHECKING:
    from pathlib import Path

commands = Commands()


@commands(
    "config",
    Param("plan", "--plan", kind="path", metavar="PLAN",
          help="Plan folder or file (its saved run counts; default: found)."),
    Param("json_output", "--json", kind="flag", help="One JSON object."),
)  # fmt: skip
def config(plan: Path | None, json_output: bool) -> None:
    """Each run option's value for the next run here, and where it comes from."""
    from pathlib import Path

    from executor import console
    from executor.cli import common

    def body() -> int:
        from executor.engine.layout import Layout
        from executor.errors import UserError
        from executor.project_config import find_root, load_project_config
        from executor.runoptions import Overrides, explain
        from executor.workflows.tdd.record.state import state_store

        named: Path | None = plan.absolute() if plan else None
        if named is None:
            from executor.plan import discover_plan

            try:
                named = discover_plan(Path.cwd())
            except UserError:
                named = None  # no plan here: the config and the defaults only
        root = find_root(named or Path.cwd())
        settings = load_project_config(root)
        state = None
        if named is not None:
            state = state_store(Layout(named if named.is_dir() else named.parent)).load()
        shown = _applied(explain(Overrides(), state.run.options if state else None, settings))
        from executor.sandbox import bubblewrap

        bwrap = bubblewrap()
        python = _python(root)
        python["runner"] = _runner(shown.get("test_command", (None, ""))[0])
        if json_output:
            console.out_json({
                "config_file": str(settings.source) if settings.source else None,
                "plan": str(named) if named else None,
                "options": {k: {"value": v, "from": src} for k, (v, src) in shown.items()},
                "bubblewrap": bwrap,
                "python": python,
            })  # fmt: skip
            return 0
        where = settings.source or "none (pyproject.toml [tool.executor] or .executor.toml)"
        console.out(f"config file: {where}")
        console.out(f"saved run: {named if state else 'none'}")
        width = max(len(k) for k in shown)
        for key, (value, source) in shown.items():
            text = f"{value} s" if key.endswith("_timeout") else str(value)
            console.out(f"{key.ljust(width)}  {text:<30}  ({source})")
        works = f"works here ({bwrap})" if bwrap else "not installed or not allowed here"
        console.out(f"bubblewrap: {works}; tests run in it when sandbox is auto")
        if "error" in python:
            console.out(f"tests run with: nothing usable: {python['error']}")
        else:
            has = "with pytest" if python["pytest"] else "WITHOUT pytest"
            console.out(
                f"tests run with: {python['path']} (Python {python['version']}, {has}), "
                f"{python['source']}"
            )
        console.out(f"test counts: {python['runner']}")
        return 0

    common.run(body, json_output=json_output)


def _runner(command: object) -> str:
    """How the project's test command's results are counted (`executor.testreports`)."""
    import shlex
    from pathlib import Path

    from executor.testreports import prepare

    if not isinstance(command, str) or not command.strip():
        return "each session's own command (none configured for the project)"
    try:
        runner = prepare(shlex.split(command), Path("report"))
    except ValueError:
        return f"`{command}` cannot be read as a command"
    if runner is None:
        return f"`{command}`: its exit code only (not measured: no runner report read)"
    return f"`{command}`: measured from {runner.name}'s own report"


def _python(root: Path) -> dict[str, object]:
    """The project's environment the next session's tests run in, and why that one
    (`executor.projectenv`); what is wrong with it instead, when something is."""
    from executor import projectenv
    from executor.errors import ProjectEnvError

    try:
        found = projectenv.find(root)
        probe = projectenv.probe(found)
    except ProjectEnvError as e:
        return {"error": str(e)}
    return {
        "path": found.python, "source": found.source, "prefix": found.prefix,
        "version": probe.version, "pytest": probe.has_pytest,
        "pytest_cov": probe.has_pytest_cov,
    }  # fmt: skip


def _applied(shown: dict[str, tuple[Any, str]]) -> dict[str, tuple[Any, str]]:
    """The options with the limits a run applies when none is set (the timeouts: left
    unset, a run still stops an agent call or a test run after these seconds)."""
    from executor.engine.agents import DEFAULT_AGENT_TIMEOUT
    from executor.testrun import DEFAULT_TEST_TIMEOUT

    defaults = {"agent_timeout": DEFAULT_AGENT_TIMEOUT, "test_timeout": DEFAULT_TEST_TIMEOUT}
    out = dict(shown)
    for key, seconds in defaults.items():
        value, source = out.get(key, (None, "default"))
        if value is None:
            out[key] = (seconds, source)
    return out
