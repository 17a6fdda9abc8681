from rooms.model import Room, fits


def test_a_room_fits_up_to_its_seats() -> None:
    room = Room("blue", 4)
    assert fits(room, 4) and not fits(room, 5)
