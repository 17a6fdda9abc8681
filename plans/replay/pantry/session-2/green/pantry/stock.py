"""What is in the pantry: items and how many of each."""


class OutOfStock(Exception):
    """More was taken out than the pantry holds."""


class Pantry:
    def __init__(self) -> None:
        self._items: dict[str, int] = {}

    def count(self, item: str) -> int:
        return self._items.get(item, 0)

    def add(self, item: str, amount: int) -> None:
        if amount < 1:
            raise ValueError(f"amount must be at least 1, got {amount}")
        self._items[item] = self.count(item) + amount

    def remove(self, item: str, amount: int) -> None:
        if amount < 1:
            raise ValueError(f"amount must be at least 1, got {amount}")
        have = self.count(item)
        if amount > have:
            raise OutOfStock(f"only {have} {item} in stock, cannot take {amount}")
        self._items[item] = have - amount

    def items(self) -> dict[str, int]:
        return dict(self._items)
