"""`executor bridge show|respond|validate` as a real subprocess: exit codes and messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from executor.bridge import BridgeChannel
from executor.errors import NeedAgent
from tests.conftest import run_cli
from tests.engine.helpers import make_project


def _pending(
    folder: Path, agent: str = "architectural-reviewer", prompt: str = "Analyse.", **ctx: object
) -> str:
    channel = BridgeChannel(folder)
    pending = channel.new_pending(key="k", agent_name=agent, prompt=prompt)
    with pytest.raises(NeedAgent):
        channel.emit(
            pending, phase=6, phase_name="agent_generation", prompt=prompt, context=dict(ctx)
        )
    return pending.request_id


def test_show_without_pending_request_exits_21(tmp_path: Path) -> None:
    proc = run_cli("bridge", "show", "--dir", str(tmp_path))
    assert proc.returncode == 21
    assert f"No pending request: {tmp_path / '.agent-request.json'} does not exist" in proc.stderr


def test_show_json_keys(tmp_path: Path) -> None:
    request_id = _pending(tmp_path, prompt="P" * 4000)
    proc = run_cli("bridge", "show", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert set(info) == {
        "request_id",
        "agent_name",
        "kind",
        "attempt",
        "emission",
        "prompt_chars",
        "prompt_file",
        "request_file",
        "response_file",
        "dir",
        "context",
        "respond_example",
    }
    assert info["request_id"] == request_id and info["kind"] == "agent"
    assert info["prompt_chars"] == 4000 and info["attempt"] == 1
    assert info["prompt_file"] == str(tmp_path / ".agent-briefs" / f"{request_id}.md")
    assert info["dir"] == str(tmp_path)
    assert info["request_file"] == str(tmp_path / ".agent-request.json")
    assert info["response_file"] == str(tmp_path / ".agent-response.json")
    assert info["respond_example"].startswith(f"executor bridge respond --dir {tmp_path} ")


def test_show_human_request_text(tmp_path: Path) -> None:
    _pending(
        tmp_path,
        agent="human",
        prompt="RED verified. Proceed?",
        question="Proceed to GREEN?",
        detail="3 tests failing as expected",
        options=[{"value": "yes", "label": "Proceed"}, {"value": "no", "label": "Stop"}],
    )
    proc = run_cli("bridge", "show", "--dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "for the person" in proc.stdout
    assert "question: Proceed to GREEN?" in proc.stdout
    assert "- yes: Proceed" in proc.stdout and "- no: Stop" in proc.stdout
    assert "--response CHOICE" in proc.stdout
    info = json.loads(run_cli("bridge", "show", "--dir", str(tmp_path), "--json").stdout)
    assert info["kind"] == "human" and info["context"]["question"] == "Proceed to GREEN?"


def test_respond_success_writes_bound_atomic_response(tmp_path: Path) -> None:
    request_id = _pending(tmp_path)
    answer = tmp_path / "answer.md"
    answer.write_text("# Agents\n- one\n", encoding="utf-8")
    proc = run_cli(
        "bridge",
        "respond",
        "--dir",
        str(tmp_path),
        "--status",
        "success",
        "--response-file",
        str(answer),
    )
    assert proc.returncode == 0, proc.stderr
    target = tmp_path / ".agent-response.json"
    assert f"Wrote {target}" in proc.stdout
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["request_id"] == request_id
    assert data["status"] == "success" and data["response"] == "# Agents\n- one\n"
    assert run_cli("bridge", "validate", str(target)).returncode == 0


def test_respond_error_defaults_error_type(tmp_path: Path) -> None:
    _pending(tmp_path)
    proc = run_cli(
        "bridge", "respond", "--status", "timeout", "--error-message", "slow", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / ".agent-response.json").read_text(encoding="utf-8"))
    assert (data["status"], data["error_type"], data["error_message"]) == (
        "timeout",
        "TIMEOUT",
        "slow",
    )


def test_respond_without_pending_exits_21(tmp_path: Path) -> None:
    proc = run_cli(
        "bridge", "respond", "--dir", str(tmp_path), "--status", "success", "--response", "x"
    )
    assert proc.returncode == 21
    assert str(tmp_path / ".agent-request.json") in proc.stderr
    assert not (tmp_path / ".agent-response.json").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--status", "success"], "--status success needs the answer"),
        (["--status", "success", "--response", "a", "--response-file", "f"], "not both"),
        (["--status", "ok", "--response", "a"], "'ok' is not one of 'success', 'error'"),
        (["--status", "success", "--response", "a", "--error-message", "m"], "go with --status"),
    ],
)
def test_respond_bad_flags_exit_64(tmp_path: Path, args: list[str], message: str) -> None:
    _pending(tmp_path)
    proc = run_cli("bridge", "respond", "--dir", str(tmp_path), *args)
    assert proc.returncode == 64
    assert message in proc.stderr
    assert not (tmp_path / ".agent-response.json").exists()


def test_respond_missing_response_file_exits_2(tmp_path: Path) -> None:
    _pending(tmp_path)
    proc = run_cli(
        "bridge",
        "respond",
        "--dir",
        str(tmp_path),
        "--status",
        "success",
        "--response-file",
        str(tmp_path / "nope.md"),
    )
    assert proc.returncode == 2
    assert f"Response file not found: {tmp_path / 'nope.md'}" in proc.stderr


def test_unknown_error_type_is_kept_as_given(tmp_path: Path) -> None:
    """Hosts write exception names (GuardKit: `TimeoutError`); they are accepted as given
    (and count as UNKNOWN for the retry policy)."""
    _pending(tmp_path)
    proc = run_cli(
        "bridge", "respond", "--dir", str(tmp_path), "--status", "error",
        "--error-type", "TimeoutError", "--error-message", "slow",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    path = tmp_path / ".agent-response.json"
    assert json.loads(path.read_text("utf-8"))["error_type"] == "TimeoutError"
    valid = run_cli("bridge", "validate", str(path))
    assert valid.returncode == 0 and "valid response file" in valid.stdout


def test_validate_request_ok(tmp_path: Path) -> None:
    _pending(tmp_path)
    proc = run_cli("bridge", "validate", str(tmp_path / ".agent-request.json"))
    assert proc.returncode == 0
    assert f"{tmp_path / '.agent-request.json'}: valid request file" in proc.stdout


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (
            {"request_id": "r", "status": "ok", "response": "x"},
            "status: expected one of success, error, timeout, cancelled, invalid_request, got 'ok'",
        ),
        ({"request_id": "r", "status": "success", "result": "x"}, "`response` field"),
        ({"request_id": "r", "status": "success"}, "response: required when status is success"),
        ([1, 2], "bare payload"),
    ],
)
def test_validate_bad_response_exit_5(tmp_path: Path, body: object, problem: str) -> None:
    path = tmp_path / "resp.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    proc = run_cli("bridge", "validate", str(path))
    assert proc.returncode == 5
    assert problem in proc.stderr and str(path) in proc.stderr
    assert path.exists()  # validate never moves files


def test_validate_bad_request_and_torn_file(tmp_path: Path) -> None:
    path = tmp_path / "req.json"
    path.write_text(
        json.dumps({"request_id": "r", "prompt": "p", "phase": "six"}), encoding="utf-8"
    )
    proc = run_cli("bridge", "validate", str(path))
    assert proc.returncode == 5
    assert "phase: " in proc.stderr and "agent_name: required field is missing" in proc.stderr
    path.write_text('{"request_id": ', encoding="utf-8")
    proc = run_cli("bridge", "validate", str(path))
    assert proc.returncode == 5 and "not valid JSON" in proc.stderr


def test_validate_missing_file_exits_2(tmp_path: Path) -> None:
    proc = run_cli("bridge", "validate", str(tmp_path / "none.json"))
    assert proc.returncode == 2 and str(tmp_path / "none.json") in proc.stderr


def test_round_trip_through_the_cli(tmp_path: Path) -> None:
    """A host loop: exit 42 -> show -> respond -> re-run -> the answer is used."""
    script = (
        "import sys\nfrom pathlib import Path\nfrom executor.bridge import AgentBridgeInvoker\n"
        "d = Path(sys.argv[1])\n"
        "inv = AgentBridgeInvoker(d / '.agent-request.json', d / '.agent-response.json')\n"
        "print(inv.request('architectural-reviewer', 'Analyse.'))\n"
    )
    import subprocess
    import sys

    first = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True
    )
    assert first.returncode == 42
    info = json.loads(run_cli("bridge", "show", "--json", "--dir", str(tmp_path)).stdout)
    assert (
        run_cli(
            "bridge", "respond", "--dir", info["dir"], "--status", "success", "--response", "ANSWER"
        ).returncode
        == 0
    )
    second = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True
    )
    assert second.returncode == 0 and second.stdout.strip() == "ANSWER"
    assert run_cli("bridge", "show", "--dir", str(tmp_path)).returncode == 21


# ------------------------------------------------- answers a human request offers

OFFERED = [
    {"value": "approve", "label": "Approve and continue"},
    {"value": "request_changes", "label": "Request changes"},
    {"value": "pause", "label": "Pause"},
]
ALLOWED = "approve, request_changes, pause"


def _checkpoint(folder: Path) -> str:
    return _pending(
        folder,
        agent="human",
        prompt="RED verified. Answer with one of: approve, request_changes, pause.",
        question="RED verified. Continue?",
        options=OFFERED,
        checkpoint="after_red",
    )


def test_respond_refuses_a_decision_the_checkpoint_does_not_offer(tmp_path: Path) -> None:
    request_id = _checkpoint(tmp_path)
    proc = run_cli(
        "bridge", "respond", "--dir", str(tmp_path), "--status", "success", "--response", "maybe"
    )
    assert proc.returncode == 10, proc.stderr
    assert proc.stderr.startswith(
        f"error: invalid decision for request {request_id} in "
        f"{tmp_path / '.agent-request.json'} (nothing was written): decision: 'maybe' is not "
        f"one of the options ({ALLOWED})."
    )
    assert not (tmp_path / ".agent-response.json").exists()


def test_respond_names_unknown_json_fields(tmp_path: Path) -> None:
    _checkpoint(tmp_path)
    proc = run_cli(
        "bridge", "respond", "--dir", str(tmp_path), "--status", "success",
        "--response-file", "-", input='{"decison":"approve"}\n',
    )  # fmt: skip
    assert proc.returncode == 10, proc.stderr
    assert "decison: unknown field; expected one of decision, feedback; " in proc.stderr
    assert f"decision: required, a string (one of {ALLOWED})" in proc.stderr
    assert not (tmp_path / ".agent-response.json").exists()


def test_respond_accepts_an_offered_answer_by_value_label_or_json(tmp_path: Path) -> None:
    _checkpoint(tmp_path)
    target = tmp_path / ".agent-response.json"
    answers = ["approve", "Pause", '{"decision": "request_changes", "feedback": "use Decimal"}']
    for answer in answers:
        proc = run_cli(
            "bridge", "respond", "--dir", str(tmp_path), "--status", "success",
            "--response", answer,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert json.loads(target.read_text("utf-8"))["response"] == answer
        assert run_cli("bridge", "validate", str(target)).returncode == 0
    errored = run_cli("bridge", "respond", "--dir", str(tmp_path), "--status", "error",
                      "--error-message", "the person is away")  # fmt: skip
    assert errored.returncode == 0, errored.stderr  # no decision to check


def test_an_agent_request_takes_any_answer(tmp_path: Path) -> None:
    _pending(tmp_path, options=OFFERED)  # options in an agent's context are not a choice
    proc = run_cli(
        "bridge", "respond", "--dir", str(tmp_path), "--status", "success", "--response", "maybe"
    )
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("maybe", f"decision: 'maybe' is not one of the options ({ALLOWED})"),
        ('{"decison": "approve"}', "decison: unknown field; expected one of decision, feedback"),
        ("request_changes", "feedback: request_changes needs feedback"),
    ],
)
def test_validate_checks_a_response_against_the_pending_checkpoint(
    tmp_path: Path, answer: str, problem: str
) -> None:
    request_id = _checkpoint(tmp_path)
    target = tmp_path / ".agent-response.json"
    body = {"request_id": request_id, "status": "success", "response": answer}
    target.write_text(json.dumps(body), encoding="utf-8")
    proc = run_cli("bridge", "validate", str(target))
    assert proc.returncode == 5, proc.stderr
    assert f"error: invalid decision in {target}: " in proc.stderr
    assert problem in proc.stderr and "--resume would reject it" in proc.stderr
    assert target.exists()  # validate never moves files
    as_json = json.loads(run_cli("bridge", "validate", str(target), "--json").stdout)
    assert as_json["exit_code"] == 5 and problem in as_json["message"]


def test_validate_refuses_a_response_bound_to_another_request(tmp_path: Path) -> None:
    request_id = _checkpoint(tmp_path)
    target = tmp_path / ".agent-response.json"
    body = {"request_id": "someone-else", "status": "success", "response": "approve"}
    target.write_text(json.dumps(body), encoding="utf-8")
    proc = run_cli("bridge", "validate", str(target))
    assert proc.returncode == 5
    assert f"request_id: 'someone-else' is not the pending request's {request_id!r}" in proc.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "resp.json").write_text(json.dumps(body), encoding="utf-8")
    alone = run_cli("bridge", "validate", str(elsewhere / "resp.json"))
    assert alone.returncode == 0, alone.stderr  # nothing pending beside it: the file alone


def test_resume_names_the_unknown_field_of_a_hand_written_answer(git_repo: Path) -> None:
    plan = make_project(git_repo)
    args = ["execute-session", "1", "--plan", str(plan)]
    assert run_cli(*args, cwd=git_repo).returncode == 42  # before_start: ask the person
    request_id = json.loads((plan / ".agent-request.json").read_text("utf-8"))["request_id"]
    body = {"request_id": request_id, "status": "success", "response": '{"decison": "approve"}'}
    (plan / ".agent-response.json").write_text(json.dumps(body), encoding="utf-8")
    proc = run_cli(*args, "--resume", cwd=git_repo)
    assert proc.returncode == 10, proc.stderr
    assert "decison: unknown field; expected one of decision, feedback" in proc.stderr
    assert "decision: required, a string (one of approve, " in proc.stderr


# ------------------------------------------------- which folder, without --dir


def test_from_the_repository_root_the_plan_folder_is_used(git_repo: Path) -> None:
    plan = make_project(git_repo)  # project-plans/ledger
    args = ["execute-session", "1", "--plan", str(plan)]
    assert run_cli(*args, cwd=git_repo).returncode == 42
    show = run_cli("bridge", "show", "--json", cwd=git_repo)
    assert show.returncode == 0, show.stderr
    assert json.loads(show.stdout)["dir"] == str(plan)
    proc = run_cli("bridge", "respond", "--status", "success", "--response", "approve",
                   cwd=git_repo)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"Wrote {plan / '.agent-response.json'}" in proc.stdout
    valid = run_cli("bridge", "validate", cwd=git_repo)
    assert valid.returncode == 0, valid.stderr
    assert valid.stdout == f"{plan / '.agent-response.json'}: valid response file\n"
    resumed = run_cli(*args, "--resume", cwd=git_repo)
    assert resumed.returncode == 42, resumed.stderr  # applied: now the RED agent's turn
    assert json.loads(run_cli("bridge", "show", "--json", cwd=git_repo).stdout)["kind"] == "agent"


def test_without_dir_several_plans_are_listed(git_repo: Path) -> None:
    plan = make_project(git_repo)
    other = git_repo / "project-plans" / "other"
    other.mkdir()
    for md in plan.glob("*.md"):
        (other / md.name).write_text(md.read_text("utf-8"), encoding="utf-8")
    proc = run_cli("bridge", "respond", "--status", "success", "--response", "approve",
                   cwd=git_repo)  # fmt: skip
    assert proc.returncode == 64
    assert f"No .agent-request.json in {git_repo}, and the plan's folder is ambiguous: " in (
        proc.stderr
    )
    assert "  project-plans/ledger\n  project-plans/other\n" in proc.stderr
    assert "Give --dir with the folder of the plan" in proc.stderr
    assert run_cli("bridge", "show", "--dir", str(plan), cwd=git_repo).returncode == 21


def test_without_dir_and_without_a_plan_nothing_is_pending(tmp_path: Path) -> None:
    for command in (["show"], ["validate"], ["respond", "--status", "error"]):
        proc = run_cli("bridge", *command, cwd=tmp_path)
        assert proc.returncode == 21, proc.stderr
        assert (
            f"No pending request: {tmp_path / '.agent-request.json'} does not exist, and no "
            f"plan was found from {tmp_path} to look in; give --dir" in proc.stderr
        )
    both = run_cli("bridge", "validate", "x.json", "--dir", str(tmp_path))
    assert both.returncode == 64 and "not both" in both.stderr
