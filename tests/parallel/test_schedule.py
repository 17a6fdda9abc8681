"""What may run side by side (waves from dependencies and listed files), budgets over every
lane, and a state that never ran in parallel written as before."""

from __future__ import annotations

import json
from pathlib import Path

from executor.engine.layout import Layout
from executor.plan.models import Outline
from executor.runoptions import RunOptions
from executor.workflows.tdd.parallel.waves import may_start, waves
from executor.workflows.tdd.record.lanes import Lane, LaneLink
from executor.workflows.tdd.record.state import RunRecord, RunState, Spent, state_store
from executor.workflows.tdd.runner.as_lane import spent_by_all


def _o(number: int, *deps: int) -> Outline:
    return Outline(number=number, phase=1, title=f"s{number}", dependencies=list(deps))


def test_waves_come_from_dependencies_and_listed_files() -> None:
    ordered = [_o(1), _o(2), _o(3, 1), _o(4), _o(5, 3, 4)]
    files = {1: ["a.py"], 2: ["./b.py"], 3: ["c.py"], 4: ["b.py"], 5: ["e.py"]}
    # 4 lists the file 2 lists: not beside it; 3 after 1; 5 after 3 and 4
    assert waves(ordered, files) == [[1, 2], [3, 4], [5]]
    assert waves(ordered, files, done={1, 2}) == [[3, 4], [5]]
    # a dependency outside the run that is not done: never scheduled
    assert waves([_o(3, 1), _o(4)], files) == [[4]]


def test_a_session_waits_for_its_dependencies_and_for_the_same_files() -> None:
    files = {1: ["a.py"], 2: ["a.py", "b.py"], 3: ["c.py"]}
    assert may_start(_o(2), files, complete=set(), running={1}) == ([], [1])
    assert may_start(_o(3, 1), files, complete=set(), running={1}) == ([1], [])
    assert may_start(_o(3, 1), files, complete={1}, running={2}) == ([], [])
    assert may_start(_o(3, 9), files, complete=set(), running=set(), left_out={9}) == ([], [])


def _save(folder: Path, state: RunState) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    store = state_store(Layout(folder))
    with store.locked():
        store.load()
        store.save(state)


def _state(
    repo: Path,
    plan: Path,
    spent: float,
    lanes: dict[int, Lane] | None = None,
    lane: LaneLink | None = None,
) -> RunState:
    record = RunRecord(tool_version="t", definition_hash="d", run_id="r", repo=str(repo),
                       plan=str(plan), spent=Spent(usd=spent, calls=1), lanes=lanes or {},
                       lane=lane)  # fmt: skip
    return RunState(project_name="p", plan_version="v", run=record)


def test_budgets_count_what_every_lane_spent(tmp_path: Path) -> None:
    repo, plan = tmp_path / "repo", tmp_path / "repo" / "plan"
    plan.mkdir(parents=True)

    def lane(n: int) -> Lane:
        where = repo / ".executor-worktrees" / f"session-{n}"
        return Lane(worktree=str(where), branch=f"b{n}", worker=n, base="x", onto="main",
                    started_at="t")  # fmt: skip

    lanes = {n: lane(n) for n in (1, 2, 3)}
    lanes[3].status = "integrated"  # counted in the main run's total already
    _save(plan, _state(repo, plan, 1.0, lanes=lanes))
    for n, usd in ((2, 0.5), (3, 9.0)):
        other = Path(lanes[n].worktree) / "plan"
        _save(other, _state(Path(lanes[n].worktree), other, usd))
    mine = _state(Path(lanes[1].worktree), Path(lanes[1].worktree) / "plan", 0.25,
                  lane=LaneLink(plan=str(plan), session=1, worker=1))  # fmt: skip
    total = spent_by_all(mine)
    assert total.usd == 1.75 and total.calls == 3
    # a lane's own run sees what the others spent; a run of its own sees its own
    assert spent_by_all(_state(repo, plan, 0.25)).usd == 0.25


def test_a_run_that_never_ran_in_parallel_writes_no_lane_keys(tmp_path: Path) -> None:
    state = _state(tmp_path, tmp_path, 0.0)
    data = json.loads(state.model_dump_json())
    assert "lanes" not in data["run"] and "lane" not in data["run"]
    assert "parallel" not in data["run"]["options"]
    assert RunOptions(parallel=2).saved()["parallel"] == 2
