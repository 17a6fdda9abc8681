from textstats.words import count_words, split_words


def test_split_words_lowercases_and_drops_punctuation():
    assert split_words("Hello, world! Hello.") == ["hello", "world", "hello"]


def test_count_words_counts_every_word():
    assert count_words("one two  three") == 3


def test_empty_text_has_no_words():
    assert count_words("") == 0
    assert split_words("  ...  ") == []
