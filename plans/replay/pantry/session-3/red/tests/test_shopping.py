from pantry.shopping import shopping_list
from pantry.stock import Pantry


def test_nothing_to_buy_when_stock_meets_the_wanted_amounts():
    pantry = Pantry()
    pantry.add("rice", 2)
    assert shopping_list(pantry, {"rice": 2}) == []


def test_buy_the_difference_sorted_by_item():
    pantry = Pantry()
    pantry.add("rice", 1)
    assert shopping_list(pantry, {"rice": 3, "beans": 2}) == [("beans", 2), ("rice", 2)]


def test_extra_stock_is_not_a_negative_purchase():
    pantry = Pantry()
    pantry.add("oil", 5)
    assert shopping_list(pantry, {"oil": 1}) == []
