"""What RED measured: the judges build it, the session's record keeps it."""

from __future__ import annotations

from pydantic import Field

from executor.datamodel import Strict


class RedFacts(Strict):
    """What RED measured: the test files it wrote, every test's fingerprint as RED left
    it, the ids that failed."""

    files: list[str] = Field(default_factory=list)
    tests: dict[str, str] = Field(
        default_factory=dict,
        description="test id -> fingerprint after RED (tests only grow stronger after it)",
    )
    failing: list[str] = Field(default_factory=list)
    infra: dict[str, str] = Field(
        default_factory=dict,
        description="test infrastructure as RED left it (GREEN/REFACTOR may not touch it)",
    )
    why: dict[str, str] = Field(
        default_factory=dict, description="test id -> why it failed (one line, bounded)"
    )
    passed: list[str] = Field(default_factory=list, description="tests that already passed in RED")
    session: list[str] | None = Field(
        default=None,
        description="the session's own tests: definitions RED added or changed (`file::test`, "
        "`file::Class::test`); null: a RED verified before this was recorded",
    )
    tree: str | None = Field(default=None, description="the tree RED's tests were verified in")
    deleted: list[str] = Field(
        default_factory=list,
        description="tests RED deleted, run as the session found them against the code after "
        "GREEN: a weakening while they still pass there; when they fail, accepted only if the "
        "change that breaks them is the session's own (its tests need it, it removes what they "
        "tested, or the plan names it)",
    )
    thinned: list[str] = Field(
        default_factory=list,
        description="tests RED took assertions or cases from while they failed: run as the "
        "session found them against the code after GREEN, judged as `deleted` when they fail",
    )
