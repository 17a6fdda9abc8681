from reminders.model import Reminder, due_on


def test_a_reminder_keeps_its_text() -> None:
    assert Reminder("call mum", 3).text == "call mum"


def test_due_on_returns_that_days_reminders_only() -> None:
    a, b = Reminder("a", 1), Reminder("b", 2)
    assert due_on([a, b], 2) == [b]
