"""`executor` commands for the replay concern (registered by executor.cli)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this concern's commands to the root app."""
