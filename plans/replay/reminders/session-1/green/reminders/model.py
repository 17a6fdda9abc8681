"""A reminder has a text and a due day (a day number)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reminder:
    text: str
    due: int


def due_on(reminders: list[Reminder], day: int) -> list[Reminder]:
    """The reminders due on `day`, in their order."""
    return [r for r in reminders if r.due == day]
