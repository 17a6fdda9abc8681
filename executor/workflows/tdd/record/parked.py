"""What a run's state keeps about a parked session (`run.parked` of `.agent-state.json`,
with the session's whole record beside it: `state.ParkedSession`)."""

from __future__ import annotations

from pydantic import Field

from executor.datamodel import Strict

#: Where a parked session's work is kept, by run and session.
PARKED_REF_PREFIX = "refs/executor/parked/"


def parked_ref(run_id: str, number: int) -> str:
    return f"{PARKED_REF_PREFIX}{run_id}/session-{number}"


class Choice(Strict):
    """One answer the question offers: its value (what `bridge respond` takes) and label."""

    value: str
    label: str


class Parked(Strict):
    """A session set aside while its question waits for a person."""

    ref: str = Field(description="where its work is kept: refs/executor/parked/<run>/session-<n>")
    commit: str = Field(description="the commit that ref holds: its work as a tree, on `base`")
    base: str = Field(description="the commit its work was made on")
    at: str = Field(description="when it was parked")
    question: str = Field(description="what it asks, as its gate put it")
    options: list[Choice] = Field(default_factory=list, description="the answers it offers")
    detail: str = Field(
        default="", description="what its gate showed with the question (survivors, the diff)"
    )
    definition: str = Field(description="the workflow definition it was parked under (P5)")
    cleared: bool = Field(
        default=False, description="its files have left the checkout (back at `base`)"
    )
    facts_on: str = Field(
        description="the commit its record's facts (its tests at start, RED's tests) describe"
    )
    onto: str | None = Field(
        default=None, description="being taken up: the HEAD its work is merged onto"
    )
    merged: str | None = Field(default=None, description="being taken up: its work on `onto`")
    written: bool = Field(default=False, description="being taken up: `merged` is in the checkout")
    conflicts: list[str] = Field(
        default_factory=list, description="files its work conflicts in on `onto` (a person edits)"
    )
    notes: list[str] = Field(default_factory=list, description="git's word on each conflict")
