"""Write the starter plan and the config, after checking that neither overwrites anything
(`InitRefused`: nothing is written then)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from executor import fsutil
from executor.errors import InitRefused, UserError
from executor.plan.discover import is_plan_folder
from executor.starter.config import ConfigFile, config_file, existing_config
from executor.starter.detect import Project
from executor.starter.plans import InitFormat, StarterPlan, starter_plan


@dataclass(frozen=True)
class Choices:
    """What `init` writes: the format, the plan's name, the test command."""

    root: Path
    fmt: InitFormat
    #: The plan's folder name (`project-plans/<name>/`, `specs/<name>/`).
    name: str
    test_command: str
    project: Project


@dataclass(frozen=True)
class Written:
    """What `init` wrote (paths relative to the project)."""

    plan: str
    files: list[str]
    config: ConfigFile


def plan_name(text: str) -> str:
    """`text` as a plan folder name: lower case words joined by `-`. UserError when
    nothing of it is left."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    if not words:
        raise UserError(f"plan name {text!r}: use letters or digits (e.g. --name my-app)")
    return "-".join(words)


def prepare(choices: Choices) -> tuple[StarterPlan, ConfigFile]:
    """The plan and config to write; InitRefused naming what is in the way."""
    root = choices.root
    if not choices.test_command.strip():
        raise UserError("the test command is empty; give one with --test-command CMD")
    plan = starter_plan(
        choices.fmt,
        kind=choices.project.kind,
        name=choices.project.name,
        folder=choices.name,
        test_command=choices.test_command,
        package=choices.project.package,
        root=root,
    )
    there = [root / p for p in plan.files if os.path.lexists(root / p)]
    if not there and choices.fmt == "phase" and is_plan_folder(root / plan.plan):
        there.append(root / plan.plan)  # PHASE files of another plan: they would merge
    config = existing_config(root)
    if config is not None:
        there.append(config)
    if there:
        shown = ", ".join(_shown(p, root) for p in there)
        raise InitRefused(
            f"init writes a new plan and a new config and overwrites neither; already "
            f"there: {shown}. Nothing was written. Choose another plan name (--name), or "
            f"edit what is there (`executor config` shows the settings)",
            paths=there,
        )
    return plan, config_file(root, choices.test_command)


def write(choices: Choices) -> Written:
    """Write the starter plan, then the config (each file atomically)."""
    plan, config = prepare(choices)
    for rel, text in plan.files.items():
        path = choices.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        fsutil.atomic_write_text(path, text, fault="init")
    mode = config.path.stat().st_mode & 0o7777 if config.path.exists() else None
    fsutil.atomic_write_bytes(config.path, config.data, fault="init")
    if mode is not None:  # the person's pyproject.toml keeps its permissions
        os.chmod(config.path, mode)
    return Written(plan=plan.plan, files=sorted(plan.files), config=config)


def _shown(path: Path, root: Path) -> str:
    rel = path.relative_to(root) if path.is_relative_to(root) else path
    return f"{rel}" + (" ([tool.executor])" if path.name == "pyproject.toml" else "")
