"""A meeting room has a name and a number of seats."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Room:
    name: str
    seats: int


def fits(room: Room, people: int) -> bool:
    return 0 < people <= room.seats
