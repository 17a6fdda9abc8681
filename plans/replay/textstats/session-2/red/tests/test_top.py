import pytest

from textstats.top import top_words


def test_top_words_ranks_by_count_then_alphabetically():
    text = "b a b c a b"
    assert top_words(text, 2) == [("b", 3), ("a", 2)]


def test_ties_are_broken_alphabetically():
    assert top_words("z y x", 2) == [("x", 1), ("y", 1)]


def test_stop_words_can_be_left_out():
    assert top_words("the cat the hat", 1, ignore={"the"}) == [("cat", 1)]


def test_n_must_be_positive():
    with pytest.raises(ValueError, match="n must be at least 1"):
        top_words("a", 0)
