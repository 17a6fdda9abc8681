"""The template-create workflow in-process: the real runner, store, bridge files and
template library on the small real codebases; the host is `tests.templates.workflow`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from executor.bridge.template_state import Step
from executor.errors import (
    AnalysisFailedError,
    NeedAgent,
    NothingToResumeError,
    OverwriteRefusedError,
    TemplateGenerationError,
    TemplateValidationError,
)
from executor.workflows.template_create.table import TEMPLATE_CREATE
from tests.templates.helpers import tree_bytes
from tests.templates.projects import CSHARP_MVVM, REACT_APP, write_project
from tests.templates.test_agents import RECOMMENDED
from tests.templates.test_analysis import AGENT_ANSWER
from tests.templates.workflow import (
    Request,
    Run,
    golden,
    host,
    made,
    options,
    read_brief,
    respond,
    run_once,
    step_of,
)

STATE = ".template-create-state.json"


def expert(request: Request) -> tuple[str, str]:
    """An architectural-reviewer that answers each brief with the JSON it asks for."""
    brief = read_brief(request)
    if step_of(request) == "analysis":
        assert "# Codebase analysis for template-create" in brief
        return "success", "My analysis:\n```json\n" + json.dumps(AGENT_ANSWER) + "\n```"
    assert "# Specialist agents for a project template" in brief
    return "success", json.dumps(RECOMMENDED)


def test_the_table_is_linear_with_two_agent_steps_that_may_fall_back() -> None:
    assert {(s.value, edge): t.value for (s, edge), t in TEMPLATE_CREATE.table.items()} == {
        ("qa", "ok"): "analysis",
        ("qa", "abort"): "cancelled",
        ("analysis", "ok"): "generation",
        ("analysis", "skip"): "generation",
        ("generation", "ok"): "agents",
        ("agents", "ok"): "claude_md",
        ("agents", "skip"): "claude_md",
        ("claude_md", "ok"): "assembly",
        ("assembly", "ok"): "done",
    }
    assert set(TEMPLATE_CREATE.final) == {Step.DONE, Step.CANCELLED}


def test_both_requests_answered_through_the_bridge(python_service: Path, tmp_path: Path) -> None:
    before = tree_bytes(python_service)
    dest = tmp_path / "out" / "python-service-agent"

    run = host(options(python_service, dest, validate=True), expert)

    assert [step_of(r) for r in run.requests] == ["analysis", "agents"]
    assert run.checkpoints == ["analysis_pending", "agent_generation_pending"]
    for request in run.requests:
        assert request["agent_name"] == "architectural-reviewer"
        brief = Path(request["prompt_file"])
        assert brief.parent == python_service / ".agent-briefs"
    # the agents' answers are in the template: it is the library's golden agent case
    assert made(dest, python_service) == golden("python-service-agent")
    assert run.result is not None and run.result.written is not None
    assert run.result.written.path == str(dest)
    # success leaves the codebase exactly as it was: no state, lock, briefs or bridge files
    assert tree_bytes(python_service) == before
    assert sorted(p.name for p in python_service.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize(
    ("status", "text", "requests_per_step"),
    [
        ("error", "rate limited", 3),  # retried twice by the policy, then the heuristics
        ("timeout", "ran past 120 s", 3),
        ("success", "Sorry, I cannot analyse this.", 1),  # unusable: PARSE_ERROR, no retry
    ],
)
def test_failed_answers_fall_back_to_the_heuristic_template(
    python_service: Path, tmp_path: Path, status: str, text: str, requests_per_step: int
) -> None:
    dest = tmp_path / "out" / "python-service"

    run = host(options(python_service, dest, validate=True), lambda r: (status, text))

    steps = [step_of(r) for r in run.requests]
    assert steps == ["analysis"] * requests_per_step + ["agents"] * requests_per_step
    assert [r["attempt"] for r in run.requests[:requests_per_step]] == list(
        range(1, requests_per_step + 1)
    )
    assert made(dest, python_service) == golden("python-service")
    assert any("falling back to the heuristics" in line for line in run.lines)


def test_no_agents_asks_nothing_and_gives_the_heuristic_template(
    python_service: Path, tmp_path: Path
) -> None:
    dest = tmp_path / "out" / "python-service"
    result = run_once(options(python_service, dest, no_agents=True, validate=True))
    assert made(dest, python_service) == golden("python-service")
    assert result.written is not None
    assert not (python_service / ".agent-briefs").exists()


@pytest.mark.parametrize(
    ("files", "name"), [(REACT_APP, "react-app"), (CSHARP_MVVM, "csharp-mvvm")]
)
def test_other_codebases_complete_through_the_bridge(
    tmp_path: Path, files: dict[str, str], name: str
) -> None:
    source = write_project(tmp_path / "src", files)
    dest = tmp_path / "out" / name
    run = host(options(source, dest, validate=True), lambda r: ("error", "no agent here"))
    assert made(dest, source) == golden(name)
    assert len(run.requests) == 6


def test_a_host_that_never_answers_gets_the_heuristics_not_a_loop(
    python_service: Path, tmp_path: Path
) -> None:
    opts = options(python_service, tmp_path / "out" / "lib", skip_qa=True)
    ids = []
    for _ in range(5):
        with pytest.raises(NeedAgent) as need:
            run_once(opts)
        ids.append(need.value.request_id)
        opts.resume = True
    assert len(set(ids)) == 1  # the same request, emitted 5 times
    with pytest.raises(NeedAgent) as need:  # the 6th run falls back and asks for agents
        run_once(opts)
    assert (
        json.loads((python_service / ".agent-request.json").read_text())["context"]["step"]
        == "agents"
    )
    assert need.value.request_id not in ids


def test_dry_run_writes_nothing(python_service: Path, tmp_path: Path) -> None:
    before = tree_bytes(tmp_path)
    dest = tmp_path / "out" / "lib"
    result = run_once(options(python_service, dest, dry_run=True))
    assert tree_bytes(tmp_path) == before
    assert not dest.exists()
    assert result.written is None and result.destination == dest
    assert sorted(result.files) == sorted(set(golden("python-service")) - {"validation-report.md"})


def test_an_existing_template_exits_6_before_anything_is_saved_then_force_replaces_it(
    python_service: Path, tmp_path: Path
) -> None:
    dest = tmp_path / "out" / "lib"
    opts = options(python_service, dest, no_agents=True)
    run_once(opts)
    before = tree_bytes(python_service)
    run = Run()
    with pytest.raises(OverwriteRefusedError) as refused:
        run_once(opts, run)
    assert refused.value.exit_code == 6
    assert run.lines == []  # refused before the scan: --output names the destination
    assert tree_bytes(python_service) == before  # no state, no lock
    opts.force = True
    run_once(opts)
    assert (dest / "manifest.json").is_file()
    assert tree_bytes(python_service) == before


def test_a_codebase_changed_while_waiting_fails_validation_with_5(
    python_service: Path, tmp_path: Path
) -> None:
    opts = options(python_service, tmp_path / "out" / "lib")
    with pytest.raises(NeedAgent):
        run_once(opts)  # the analysis request
    respond(python_service, "success", "no idea")  # unusable: the heuristics
    opts.resume = True
    with pytest.raises(NeedAgent):
        run_once(opts)  # templates generated; the agents request
    (python_service / "library_service" / "app.py").write_text("changed\n", "utf-8")
    respond(python_service, "error", "gone")
    opts.no_agents = True
    with pytest.raises(TemplateValidationError) as failed:
        run_once(opts)
    assert failed.value.exit_code == 5
    assert "library_service/app.py" in str(failed.value)
    assert (python_service / STATE).exists()  # kept on failure
    assert not (tmp_path / "out" / "lib").exists()


def test_analysis_and_generation_failures(tmp_path: Path, python_service: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(AnalysisFailedError) as nothing:
        run_once(options(empty, tmp_path / "out" / "x"))
    assert nothing.value.exit_code == 3
    assert list(empty.iterdir()) == []  # no state, no lock left behind
    opts = options(python_service, tmp_path / "out" / "y", no_agents=True)
    opts.answers["example_files"] = "nothing/*"
    with pytest.raises(TemplateGenerationError) as none:
        run_once(opts)
    assert none.value.exit_code == 4
    assert json.loads((python_service / STATE).read_text())["step"] == "generation"


def test_resume_needs_a_saved_run_and_a_new_run_replaces_an_unfinished_one(
    python_service: Path, tmp_path: Path
) -> None:
    opts = options(python_service, tmp_path / "out" / "lib", resume=True)
    with pytest.raises(NothingToResumeError):
        run_once(opts)
    opts.resume = False
    with pytest.raises(NeedAgent) as first:
        run_once(opts)
    with pytest.raises(NeedAgent) as second:
        run_once(opts)  # without --resume: a new run, a new request
    assert first.value.request_id != second.value.request_id
    request = json.loads((python_service / ".agent-request.json").read_text())
    assert request["request_id"] == second.value.request_id


def test_agent_command_answers_both_requests(python_service: Path, tmp_path: Path) -> None:
    script = tmp_path / "reviewer.py"
    script.write_text(
        "import json, os, sys\n"
        "brief = open(os.environ['EXECUTOR_PROMPT_FILE'], encoding='utf-8').read()\n"
        f"analysis, agents = {json.dumps(AGENT_ANSWER)!r}, {json.dumps(RECOMMENDED)!r}\n"
        "print(analysis if 'Codebase analysis' in brief else agents)\n",
        "utf-8",
    )
    dest = tmp_path / "out" / "python-service-agent"
    opts = options(python_service, dest, validate=True, agent_command=f"{sys.executable} {script}")
    run_once(opts)
    assert made(dest, python_service) == golden("python-service-agent")
    assert not (python_service / ".agent-request.json").exists()
