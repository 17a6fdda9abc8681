import pytest

from pantry.stock import OutOfStock, Pantry


def test_a_new_pantry_is_empty():
    assert Pantry().count("rice") == 0


def test_adding_stock_adds_up():
    pantry = Pantry()
    pantry.add("rice", 2)
    pantry.add("rice", 3)
    assert pantry.count("rice") == 5


def test_removing_stock():
    pantry = Pantry()
    pantry.add("beans", 4)
    pantry.remove("beans", 1)
    assert pantry.count("beans") == 3


def test_taking_out_more_than_is_stocked_is_refused():
    pantry = Pantry()
    pantry.add("oil", 1)
    with pytest.raises(OutOfStock, match="only 1 oil"):
        pantry.remove("oil", 2)
    assert pantry.count("oil") == 1


def test_amounts_must_be_positive():
    with pytest.raises(ValueError):
        Pantry().add("salt", 0)
