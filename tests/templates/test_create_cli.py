"""`executor template-create` through the CLI: every exit code of seed 000 as really
returned, with its message and no traceback. User mistakes run through the same
`main()` in-process (faster); exit 42, an interruption and a lock held by another
process run as real subprocesses."""

from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from executor.cli import main
from executor.templates import heuristic_analysis, questions, scan_codebase
from tests.agents.conftest import STANDINS
from tests.conftest import git, run_cli, terminate_when
from tests.templates.helpers import create_template, tree_bytes
from tests.templates.test_agents import RECOMMENDED
from tests.templates.test_analysis import AGENT_ANSWER
from tests.templates.workflow import golden, made, respond

STATE = ".template-create-state.json"


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["template-create", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_every_question_is_an_option(python_service: Path) -> None:
    helptext = run_cli("template-create", "--help", env={"COLUMNS": "200"}).stdout
    flags = [q.flag for q in questions(heuristic_analysis(scan_codebase(python_service)))]
    assert flags == ["--name", "--language", "--purpose", "--architecture",
                     "--example-files", "--agents", "--yes"]  # fmt: skip
    for flag in [*flags, "--path", "--output-location", "--output", "--skip-qa", "--dry-run",
                 "--validate", "--no-agents", "--max-templates", "--resume", "--agent-command",
                 "--verbose", "--force"]:  # fmt: skip
        assert flag in helptext, flag


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--path", "nope"], 2, "error: codebase not found (not a folder): {tmp}/nope\n"),
        (["--path", "empty"], 3, "error: no files to analyse in {tmp}/empty\n"),
        (["--path", "lib", "--no-agents", "--example-files", "nothing/*"], 4,
         "error: no text file matching nothing/* to make a template from in {tmp}/lib\n"),
        (["--path", "lib", "--no-agents", "--output", "taken", "--force"], 6,
         "error: {tmp}/taken exists and is not a template made by template-create (no "
         "manifest.json of ours): it is not replaced, even with --force; choose another "
         "--output, or move it away yourself\n"),
        (["--path", "lib", "--output", "lib", "--force"], 64,
         "error: the template destination {tmp}/lib is the codebase; a template is written "
         "to a folder of its own: choose another --output\n"),
        (["--path", "lib", "--name", "Bad Name"], 64,
         "error: template name 'Bad Name' is not valid (--name): use lowercase letters, "
         "digits, '.', '_' or '-', at most 64 characters\n"),
        (["--path", "lib", "--resume"], 21,
         "error: --resume: no template-create run to continue in {tmp}/lib/" + STATE
         + " (nothing is saved); run the command without --resume to start one.\n"),
        (["--path", "lib", "--agent-command", ""], 64,
         "error: --agent-command is empty; give a command, or --agent bridge to answer "
         "agent requests through the exit-42 bridge\n"),
    ],
)  # fmt: skip
def test_exit_codes_and_messages(
    python_service: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    code: int,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "taken").mkdir()
    python_service.rename(tmp_path / "lib")
    got, _, err = cli(capsys, *args)
    assert (got, err) == (code, message.format(tmp=tmp_path))
    assert list((tmp_path / "empty").iterdir()) == []  # nothing left behind on exit 3


def test_a_failure_keeps_the_state_and_says_how_to_continue(
    python_service: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A template that appeared at the destination while the run waited for the agent:
    the resumed run stops at once, says how to continue, and `--resume --force` ends it."""
    dest = tmp_path / "taken"
    path = ["--path", str(python_service)]
    assert cli(capsys, *path, "--skip-qa", "--output", str(dest))[0] == 42
    create_template(python_service, dest)
    code, out, _ = cli(capsys, *path, "--resume")
    assert code == 6
    assert out.splitlines()[-1] == (
        f"[template-create] the run is saved in {python_service / STATE}; continue it with: "
        f"executor template-create --path {python_service} --resume"
    )
    code, out, _ = cli(capsys, *path, "--resume", "--force", "--validate", "--no-agents")
    assert code == 0
    assert out.splitlines()[-3:] == [
        f"Template 'library-service' written to {dest}: 23 files (16 templates, 3 agent(s))",
        "Validation: 10.0/10, 0 warning(s)",
        f"Use it: executor template-apply {dest} NEW_PROJECT",
    ]
    assert not (python_service / STATE).exists()


def test_a_codebase_changed_while_waiting_exits_5(
    python_service: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = ["--path", str(python_service)]
    assert cli(capsys, *path, "--output", str(tmp_path / "t"))[0] == 42  # analysis
    respond(python_service, "success", "not JSON")  # unusable: the heuristics are used
    assert cli(capsys, *path, "--resume")[0] == 42  # templates made; the agents request
    (python_service / "README.md").write_text("changed meanwhile\n", "utf-8")
    respond(python_service, "error", "no agent")
    code, _, err = cli(capsys, *path, "--resume", "--no-agents")
    assert code == 5
    assert err == (
        f"error: template {tmp_path / 't'} (not installed) failed validation (1 problem(s)):\n"
        f"  templates/project/README.md.template: differs from {python_service / 'README.md'} "
        "(line 1: rendered '# Library Service\\n', source has 'changed meanwhile\\n')\n"
    )
    assert (python_service / STATE).exists()


def test_corrupt_state_exits_11_and_is_left_as_it_is(
    python_service: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = python_service / STATE
    state.write_text('{"schema_version": 2, "checkpoint": "tor', "utf-8")
    code, _, err = cli(capsys, "--path", str(python_service), "--resume")
    assert code == 11
    assert err.startswith(f"error: state file {state} is corrupt: not valid JSON")
    assert state.read_text("utf-8") == '{"schema_version": 2, "checkpoint": "tor'
    assert list(python_service.glob(STATE + ".corrupt-*"))


def test_a_second_process_is_refused_while_the_lock_is_held(
    python_service: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lock = python_service / ".template-create-state.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(fd, b"4242@elsewhere")
        code, _, err = cli(capsys, "--path", str(python_service), "--no-agents")
    finally:
        os.close(fd)
    assert code == 12
    assert err == (
        f"error: another executor process holds {lock} (pid 4242 on elsewhere); wait for it "
        "to finish, or stop it\n"
    )


def test_dry_run_writes_nothing(python_service: Path, tmp_path: Path) -> None:
    before = tree_bytes(tmp_path)
    proc = run_cli("template-create", "--path", str(python_service), "--dry-run",
                   "--output", str(tmp_path / "t"), cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (
        f"Dry run, nothing was written: template 'library-service' would be 22 files (16 "
        f"templates, 3 agent(s)) in {tmp_path / 't'}:\n" in proc.stdout
    )
    assert tree_bytes(tmp_path) == before


def test_exit_42_names_the_request_and_the_resume_command(python_service: Path) -> None:
    git(python_service, "init", "-q")
    git(python_service, "add", "-A")
    git(python_service, "commit", "-qm", "the codebase")
    proc = run_cli("template-create", "--path", ".", "--skip-qa", cwd=python_service)
    assert proc.returncode == 42, proc.stderr
    # the waiting run's files (state, .bak, lock, request, brief) are hidden from git
    assert (python_service / f"{STATE}.bak").exists()
    assert git(python_service, "status", "--porcelain", "-uall") == ""
    request = json.loads((python_service / ".agent-request.json").read_text("utf-8"))
    assert (request["agent_name"], request["phase"], request["phase_name"]) == (
        "architectural-reviewer", 2, "ai_analysis",
    )  # fmt: skip
    brief = python_service / ".agent-briefs" / "tc.analysis.a1.md"
    assert proc.stderr.splitlines()[-1] == (
        f"NEED_AGENT: run agent 'architectural-reviewer' for request {request['request_id']} "
        f"in {python_service / '.agent-request.json'} (brief: {brief}); answer and "
        f"continue with `executor bridge respond --dir {python_service} --status success "
        "--response-file ANSWER --resume` (or --status error --error-message M); without "
        f"--resume, re-run: executor template-create --path {python_service} --resume"
    )


def test_an_interrupted_agent_command_exits_130_and_keeps_the_state(
    python_service: Path,
) -> None:
    state = python_service / STATE
    proc = terminate_when(state, "template-create", "--path", str(python_service),
                          "--skip-qa", "--agent-command", "sleep 30", wait=0.3)  # fmt: skip
    err = proc.stderr
    assert proc.returncode == 130, err
    assert json.loads(state.read_text("utf-8"))["step"] == "analysis"
    assert err.splitlines()[-1] == (
        f"Interrupted: the run so far is saved in {state}; continue it with: "
        f"executor template-create --path {python_service} --resume"
    )
    assert "saved" not in proc.stdout  # said once, on stderr


def test_an_agent_preset_answers_both_requests(python_service: Path, tmp_path: Path) -> None:
    """`--agent claude` runs the claude stand-in (tests/agents/standins: shaped like
    `claude -p --output-format json`) once per agent step; its JSON result's text is the
    answer, wrapped in prose and a fence as a model writes it."""
    answers = tmp_path / "answers"
    answers.mkdir()
    fenced = "Here is my analysis:\n```json\n" + json.dumps(AGENT_ANSWER, indent=2) + "\n```\n"
    (answers / "analysis.txt").write_text(fenced, "utf-8")
    (answers / "agents.txt").write_text(json.dumps(RECOMMENDED), "utf-8")
    log = tmp_path / "standin.log"
    path = os.pathsep.join([str(STANDINS), str(Path(sys.executable).parent), os.environ["PATH"]])
    env = {"PATH": path, "STANDIN_ANSWERS": str(answers), "STANDIN_LOG": str(log)}
    before = tree_bytes(python_service)
    dest = tmp_path / "out" / "python-service-agent"
    proc = run_cli("template-create", "--path", str(python_service), "--skip-qa", "--validate",
                   "--agent", "claude", "--output", str(dest), cwd=tmp_path, env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert made(dest, python_service) == golden("python-service-agent")
    calls = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    assert [c["argv"][0] for c in calls] == ["-p", "-p"]
    assert tree_bytes(python_service) == before  # briefs, transcripts and state cleaned up


def _manifest(dest: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((dest / "manifest.json").read_text("utf-8"))
    return data


def test_defaults_taken_with_skip_qa_yield_to_the_agents_answer(
    python_service: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--skip-qa accepts the detected architecture; the agent's, a label with
    punctuation, is what the template records (and the default purpose follows it)."""
    dest = tmp_path / "lib"
    path = ["--path", str(python_service)]
    assert cli(capsys, *path, "--skip-qa", "--agents", "none", "--output", str(dest))[0] == 42
    respond(python_service, "success", '{"architecture": "Library (core + public facade)"}')
    code, out, _ = cli(capsys, *path, "--resume")
    assert code == 0
    assert "analysis (agent, heuristic): Python, Library (core + public facade), " in out
    manifest = _manifest(dest)
    assert (manifest["architecture"], manifest["sources"]["architecture"]) == (
        "Library (core + public facade)", "agent",
    )  # fmt: skip
    assert manifest["description"] == (
        "Library (core + public facade) Python project like library-service"
    )


def test_an_architecture_given_as_an_option_wins_even_when_it_is_the_detected_one(
    python_service: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "lib"
    path = ["--path", str(python_service)]
    args = ["--skip-qa", "--agents", "none", "--architecture", "Layered", "--purpose", "Mine"]
    assert cli(capsys, *path, *args, "--output", str(dest))[0] == 42
    respond(python_service, "success", json.dumps(AGENT_ANSWER))  # says Hexagonal
    assert cli(capsys, *path, "--resume")[0] == 0
    manifest = _manifest(dest)
    assert (manifest["architecture"], manifest["sources"]["architecture"]) == ("Layered", "user")
    assert manifest["frameworks"] == ["WSGI"]  # the rest of the answer is used
    assert manifest["description"] == "Mine"
