import re

_WORD = re.compile(r"[a-z0-9']+")


def split_words(text):
    return _WORD.findall(text.lower())


def count_words(text):
    return len(split_words(text))
