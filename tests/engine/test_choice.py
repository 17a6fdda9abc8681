"""A guarded exit (`executor.engine.choice`): one outcome, several steps, decided by named
conditions of the handler object, declared and drawn in the table, driven by the driver."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from executor.engine.agents import Durable
from executor.engine.choice import Branch, Choice
from executor.engine.driver import drive
from executor.engine.machine import Node, Outcome, Workflow
from executor.workflows.tdd.step import RECHECK_AT
from executor.workflows.tdd.table import TDD

O = Outcome  # noqa: E741


@dataclass
class Counter:
    """A handler object: its step fails; retries are counted by the taken branch."""

    retries: int = 0
    most: int = 2
    said: list[str] = field(default_factory=list)

    def check(self) -> Outcome:
        return O.FAILED

    def retries_left(self) -> bool:
        return self.retries < self.most

    def retry(self) -> None:
        self.retries += 1
        self.said.append(f"automatic retry {self.retries}/{self.most}")

    def give_up(self) -> None:
        self.said.append("a person decides")


def retried() -> Choice[str, Counter]:
    return Choice(
        Branch("work", "retries left", Counter.retries_left, Counter.retry),
        Branch("person", on=Counter.give_up),
    )


def flow(exits: Choice[str, Counter] | str | None = None) -> Workflow[str, Counter]:
    return Workflow(
        name="flow",
        start="work",
        nodes=(
            Node("work", Counter.check, {O.FAILED: exits or retried(), O.OK: "done"}),
            Node("person", None, final="person"),
            Node("done", None, final="done"),
        ),
    )


def test_the_first_branch_whose_condition_holds_wins_and_runs_its_action() -> None:
    handlers = Counter()
    assert flow().next("work", O.FAILED, handlers) == ("work", "failed [retries left]")
    assert handlers.retries == 1 and handlers.said == ["automatic retry 1/2"]


def test_the_else_branch_is_taken_when_no_condition_holds_and_only_its_action_runs() -> None:
    handlers = Counter(retries=2)
    assert flow().next("work", O.FAILED, handlers) == ("person", "failed [else]")
    assert handlers.retries == 2 and handlers.said == ["a person decides"]


def test_a_plain_exit_is_drawn_as_its_outcome() -> None:
    assert flow().next("work", O.OK, Counter()) == ("done", "ok")


def test_the_driver_follows_the_choice_and_logs_the_branch_it_took() -> None:
    @dataclass
    class Cursor:
        step: str = "work"
        logged: list[tuple[str, str]] = field(default_factory=list)

        def log(self, step: str, edge: str, seconds: float, note: str) -> None:
            self.logged.append((step, edge))

    handlers, cursor, saves = Counter(), Cursor(), list[int]()
    ended = drive(flow(), handlers, cursor, Durable(lambda: saves.append(1)))
    assert ended == "person" and cursor.step == "person"
    assert cursor.logged == [("work", "failed [retries left]")] * 2 + [("work", "failed [else]")]
    assert handlers.said == ["automatic retry 1/2", "automatic retry 2/2", "a person decides"]


def test_an_undeclared_target_of_a_branch_is_refused_at_declaration() -> None:
    lost = Choice(Branch("nowhere", "retries left", Counter.retries_left), Branch("person"))
    with pytest.raises(AssertionError, match=r"work leads to undeclared \['nowhere'\]"):
        flow(lost)


def test_a_choice_ends_with_one_else_branch_and_names_each_branch_once() -> None:
    with pytest.raises(AssertionError, match="ends with an else branch"):
        Choice(Branch("work", "retries left", Counter.retries_left))
    with pytest.raises(AssertionError, match="only the last branch"):
        Choice(Branch("work"), Branch("person"))
    with pytest.raises(AssertionError, match="names a branch twice"):
        Choice(
            Branch("work", "left", Counter.retries_left),
            Branch("person", "left", Counter.retries_left),
            Branch("person"),
        )


def test_the_drawing_the_table_and_the_fingerprint_show_each_branch() -> None:
    f = flow()
    assert f.outcomes("work") == [O.FAILED, O.OK]
    assert f.table == {
        ("work", "failed [retries left]"): "work",
        ("work", "failed [else]"): "person",
        ("work", "ok"): "done",
    }
    assert "work --> work: failed [retries left]" in f.mermaid()
    assert "work --> person: failed [else]" in f.mermaid()
    row = next(line for line in f.markdown().splitlines() if line.startswith("| work"))
    assert "failed [retries left] / Counter.retry → work" in row
    assert "failed [else] / Counter.give_up → person" in row
    assert f.markdown().endswith("stop the run and stay on the step (a resumed run re-enters it).")
    assert "work|failed [retries left]|work" in f.fingerprint()
    assert f.fingerprint() != flow("person").fingerprint()


def test_the_tdd_table_declares_every_recheck_its_gates_return() -> None:
    """`Settling` returns RECHECK at the gates RECHECK_AT names: the table says where."""
    rechecks = {s: t for (s, edge), t in TDD.table.items() if edge == "recheck" and s in RECHECK_AT}
    assert rechecks == RECHECK_AT
