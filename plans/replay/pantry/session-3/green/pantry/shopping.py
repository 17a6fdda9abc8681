"""What to buy to get back to the wanted amounts."""

from pantry.stock import Pantry


def shopping_list(pantry: Pantry, wanted: dict[str, int]) -> list[tuple[str, int]]:
    """`(item, amount to buy)` for every item below its wanted amount, sorted by item."""
    return sorted(
        (item, amount - pantry.count(item))
        for item, amount in wanted.items()
        if amount > pantry.count(item)
    )
