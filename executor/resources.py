"""Where the files the wheel carries live at run time (agents, example plans, replays).

A wheel puts them under `executor/_data/` (pyproject force-include); a source checkout or
editable install has them at the repository root. Both are looked up, wheel first.
"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def data_path(*parts: str) -> Path:
    """Absolute path of a shipped data folder/file, e.g. `data_path("plans", "examples")`."""
    for base in (_PKG / "_data", _PKG.parent):
        candidate = base.joinpath(*parts)
        if candidate.exists():
            return candidate
    return (_PKG / "_data").joinpath(*parts)
