"""Small wording helpers for messages people read ("1 error", "2 errors")."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """`count` and `word`, plural when `count` is not 1 (`many` when `s` is not enough)."""
    return f"{count} {word if count == 1 else (many or word + 's')}"
