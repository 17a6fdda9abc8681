"""`executor template-apply`: render a template into a new project.

Thin: parse flags, call `executor.templates.apply` through `common.run`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from executor import console
from executor.cli import common
from executor.errors import UserError
from executor.words import plural


def parse_sets(pairs: list[str]) -> dict[str, str]:
    """`["Name=Value", ...]` -> {"Name": "Value"}; UserError for anything else."""
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UserError(f"--set expects NAME=VALUE, got {pair!r}")
        values[name.strip()] = value
    return values


def template_apply(template: str, dest: Path, *, sets: list[str], force: bool) -> int:
    from executor.templates.apply import apply_template, locate_template

    folder = locate_template(template)
    written = apply_template(folder, dest, parse_sets(sets), force=force)
    console.out(f"Rendered {folder} into {written.path}: {plural(len(written.files), 'file')}")
    return 0


def register(app: typer.Typer) -> None:
    """Add this concern's commands to the root app."""

    @app.command("template-apply")
    def _template_apply(
        template: Annotated[
            str,
            typer.Argument(
                help="Template folder, or a template name (./templates/, "
                "then the per-user templates folder)."
            ),
        ],
        dest: Annotated[Path, typer.Argument(help="Folder to create the project in.")],
        sets: Annotated[
            list[str] | None,
            typer.Option(
                "--set", help="Placeholder value, NAME=VALUE (repeatable).", metavar="NAME=VALUE"
            ),
        ] = None,
        force: Annotated[
            bool, typer.Option("--force", help="Overwrite files that already exist.")
        ] = False,
    ) -> None:
        """Render a template into a new project (placeholders: --set, else defaults)."""
        common.run(lambda: template_apply(template, dest, sets=sets or [], force=force))
