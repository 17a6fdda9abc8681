"""Splitting a text into words and counting them."""

import re
from collections import Counter
from collections.abc import Container

_WORD = re.compile(r"[a-z0-9']+")


def split_words(text: str) -> list[str]:
    """The lower-cased words of `text` (letters, digits and apostrophes)."""
    return _WORD.findall(text.lower())


def word_counts(text: str, ignore: Container[str] = ()) -> Counter[str]:
    """How often each word of `text` occurs, leaving out the words in `ignore`."""
    return Counter(word for word in split_words(text) if word not in ignore)


def count_words(text: str) -> int:
    return sum(word_counts(text).values())
