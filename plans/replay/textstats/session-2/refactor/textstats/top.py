"""The most common words of a text."""

from collections.abc import Container

from textstats.words import word_counts


def top_words(text: str, n: int, ignore: Container[str] = ()) -> list[tuple[str, int]]:
    """The `n` most common words as `(word, count)`, ties in alphabetical order."""
    if n < 1:
        raise ValueError("n must be at least 1")
    ranked = sorted(word_counts(text, ignore).items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]
