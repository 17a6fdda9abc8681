"""How a review counts what nobody stood behind: one of a kind is said in the singular."""

from __future__ import annotations

from executor.workflows.tdd.review.model import counted


def test_one_of_a_kind_is_singular_more_are_plural() -> None:
    assert counted(1, "sessions without RED") == "1 session without RED"
    assert counted(1, "checkpoints approved by --yes") == "1 checkpoint approved by --yes"
    assert counted(19, "checkpoints approved by --yes") == "19 checkpoints approved by --yes"
