"""`executor replay-agent` as a real subprocess: env mode, --request mode, overrides,
delete markers, refusals and its help text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from executor.errors import ReplayError
from executor.replay import ReplayTarget, target_from_request
from tests.conftest import run_cli


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def solutions(tmp_path: Path) -> Path:
    root = tmp_path / "solutions"
    _write(root / "session-1/red/tests/test_thing.py", "def test_red(): assert False\n")
    _write(root / "session-1/green/pkg/thing.py", "VALUE = 1\n")
    _write(root / "session-1/green/pkg/deep/er/mod.py", "X = 1\n")
    _write(root / "session-1/green@2/pkg/thing.py", "VALUE = 2  # attempt 2\n")
    _write(root / "session-2/green/tests/test_thing.py.__delete__", "")
    _write(root / "session-2/green/pkg/__pycache__/thing.cpython-311.pyc", "junk")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    return path


def _agent(repo: Path, solutions: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli(
        "replay-agent",
        "--solutions",
        str(solutions),
        *args,
        cwd=repo,
        env=env,
        input="the prompt, ignored\n",
    )


def test_env_mode_copies_the_step_folder_into_the_repository(repo: Path, solutions: Path) -> None:
    proc = _agent(repo, solutions, EXECUTOR_SESSION="1", EXECUTOR_TDD_STEP="green")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "replay-agent (not an AI): session 1 green: wrote pkg/deep/er/mod.py, pkg/thing.py\n"
    )
    assert (repo / "pkg/thing.py").read_text(encoding="utf-8") == "VALUE = 1\n"
    assert (repo / "pkg/deep/er/mod.py").is_file()


def test_attempt_override_folder_wins_only_for_its_attempt(repo: Path, solutions: Path) -> None:
    proc = _agent(
        repo, solutions, EXECUTOR_SESSION="1", EXECUTOR_TDD_STEP="green", EXECUTOR_ATTEMPT="2"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "replay-agent (not an AI): session 1 green (attempt 2 override): wrote pkg/thing.py\n"
    )
    assert (repo / "pkg/thing.py").read_text(encoding="utf-8") == "VALUE = 2  # attempt 2\n"
    assert not (repo / "pkg/deep").exists()

    proc = _agent(
        repo, solutions, EXECUTOR_SESSION="1", EXECUTOR_TDD_STEP="green", EXECUTOR_ATTEMPT="3"
    )
    assert proc.returncode == 0, proc.stderr
    assert (repo / "pkg/thing.py").read_text(encoding="utf-8") == "VALUE = 1\n"


def test_delete_marker_deletes_the_file_and_caches_are_skipped(repo: Path, solutions: Path) -> None:
    _write(repo / "tests/test_thing.py", "def test_red(): assert False\n")
    proc = _agent(repo, solutions, EXECUTOR_SESSION="2", EXECUTOR_TDD_STEP="green")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "replay-agent (not an AI): session 2 green: deleted tests/test_thing.py\n"
    assert not (repo / "tests/test_thing.py").exists()
    assert not (repo / "pkg").exists()

    again = _agent(repo, solutions, EXECUTOR_SESSION="2", EXECUTOR_TDD_STEP="green")
    assert again.returncode == 0
    assert "already absent tests/test_thing.py" in again.stdout


def test_nothing_prepared_is_success_without_changes(repo: Path, solutions: Path) -> None:
    proc = _agent(repo, solutions, EXECUTOR_SESSION="1", EXECUTOR_TDD_STEP="refactor")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "replay-agent (not an AI): nothing prepared for session 1 refactor; no changes\n"
    )
    unknown = _agent(repo, solutions, EXECUTOR_SESSION="99", EXECUTOR_TDD_STEP="other")
    assert unknown.returncode == 0
    assert "nothing prepared for session 99 other" in unknown.stdout
    assert list(repo.iterdir()) == []


def test_request_mode_reads_the_request_context(
    repo: Path, solutions: Path, tmp_path: Path
) -> None:
    request = _write(
        tmp_path / "plan/.agent-request.json",
        json.dumps(
            {
                "request_id": "r-1",
                "agent_name": "backend-builder",
                "attempt": 2,
                "context": {
                    "plan": str(tmp_path / "plan"),
                    "phase": 1,
                    "session": 1,
                    "tdd_step": "green",
                },
            }
        ),
    )
    proc = _agent(
        tmp_path,
        solutions,
        "--request",
        str(request),
        "--repo",
        str(repo),
        EXECUTOR_SESSION="7",
        EXECUTOR_TDD_STEP="red",
    )
    assert proc.returncode == 0, proc.stderr
    assert "session 1 green (attempt 2 override)" in proc.stdout
    assert (repo / "pkg/thing.py").read_text(encoding="utf-8") == "VALUE = 2  # attempt 2\n"


def test_request_attempt_in_context_beats_the_top_level_one(tmp_path: Path) -> None:
    request = _write(
        tmp_path / "req.json",
        json.dumps(
            {"attempt": 2, "context": {"session": "3", "tdd_step": "Refactor", "attempt": 4}}
        ),
    )
    assert target_from_request(request) == ReplayTarget(session=3, step="refactor", attempt=4)
    plain = _write(
        tmp_path / "plain.json", json.dumps({"context": {"session": 2, "tdd_step": "red"}})
    )
    assert target_from_request(plain) == ReplayTarget(session=2, step="red", attempt=1)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "req.json: not valid JSON (line 1"),
        ("[]", "req.json: a request must be a JSON object"),
        ('{"context": {"tdd_step": "red"}}', "req.json: field 'context.session' is missing"),
        ('{"context": {"session": 1, "tdd_step": "../x"}}', "tdd step must be one of"),
        (
            '{"context": {"session": "one", "tdd_step": "red"}}',
            "context.session must be a whole number, got 'one'",
        ),
    ],
)
def test_bad_request_is_a_clear_error(tmp_path: Path, content: str, message: str) -> None:
    request = _write(tmp_path / "req.json", content)
    with pytest.raises(ReplayError) as info:
        target_from_request(request)
    assert message in str(info.value)


def test_bad_request_from_the_cli_exits_non_zero(
    repo: Path, solutions: Path, tmp_path: Path
) -> None:
    request = _write(tmp_path / "req.json", '{"context": {"tdd_step": "red"}}')
    proc = _agent(repo, solutions, "--request", str(request))
    assert proc.returncode == 64
    assert proc.stderr == f"error: {request}: field 'context.session' is missing\n"
    missing = _agent(repo, solutions, "--request", str(tmp_path / "nope.json"))
    assert missing.returncode == 2
    assert "request file not found" in missing.stderr


def test_missing_solutions_folder_exits_2(repo: Path, tmp_path: Path) -> None:
    proc = _agent(repo, tmp_path / "absent", EXECUTOR_SESSION="1", EXECUTOR_TDD_STEP="red")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert f"solutions folder not found: {tmp_path / 'absent'}" in proc.stderr


def test_missing_environment_is_a_usage_error(repo: Path, solutions: Path) -> None:
    proc = _agent(repo, solutions, EXECUTOR_TDD_STEP="red")
    assert proc.returncode == 64
    assert "EXECUTOR_SESSION not set" in proc.stderr
    bad = _agent(repo, solutions, EXECUTOR_SESSION="1", EXECUTOR_TDD_STEP="../../etc")
    assert bad.returncode == 64
    assert "tdd step must be one of red, green, refactor, other" in bad.stderr
    attempt = _agent(
        repo, solutions, EXECUTOR_SESSION="1", EXECUTOR_TDD_STEP="red", EXECUTOR_ATTEMPT="x"
    )
    assert attempt.returncode == 64
    assert "EXECUTOR_ATTEMPT must be a whole number" in attempt.stderr


def test_paths_escaping_the_repository_are_refused_before_any_write(
    repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / "pkg").symlink_to(outside, target_is_directory=True)
    solutions = tmp_path / "escape"
    _write(solutions / "session-1/green/a_first.py", "A = 1\n")
    _write(solutions / "session-1/green/pkg/evil.py", "EVIL = 1\n")
    proc = _agent(repo, solutions, EXECUTOR_SESSION="1", EXECUTOR_TDD_STEP="green")
    assert proc.returncode == 64
    assert "'pkg/evil.py' would be written outside the repository" in proc.stderr
    assert list(outside.iterdir()) == []
    assert not (repo / "a_first.py").exists()


def test_delete_marker_cannot_delete_outside_the_repository(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    victim = _write(outside / "keep.txt", "precious\n")
    (repo / "link").symlink_to(outside, target_is_directory=True)
    solutions = tmp_path / "escape"
    _write(solutions / "session-1/red/link/keep.txt.__delete__", "")
    proc = _agent(repo, solutions, EXECUTOR_SESSION="1", EXECUTOR_TDD_STEP="red")
    assert proc.returncode == 64
    assert victim.read_text(encoding="utf-8") == "precious\n"


def test_default_solutions_are_the_shipped_ledger_replay(repo: Path) -> None:
    proc = run_cli(
        "replay-agent",
        cwd=repo,
        input="",
        env={"EXECUTOR_SESSION": "1", "EXECUTOR_TDD_STEP": "red"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "replay-agent (not an AI): session 1 red: wrote tests/test_models.py\n"
    assert (repo / "tests/test_models.py").is_file()


def test_stdin_is_drained_without_blocking(repo: Path, solutions: Path) -> None:
    big = run_cli(
        "replay-agent",
        "--solutions",
        str(solutions),
        cwd=repo,
        input="x" * 2_000_000,
        env={"EXECUTOR_SESSION": "1", "EXECUTOR_TDD_STEP": "red"},
    )
    assert big.returncode == 0, big.stderr

    with subprocess.Popen(
        [
            sys.executable,
            "-m",
            "executor",
            "replay-agent",
            "--solutions",
            str(solutions),
            "--repo",
            str(repo),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "EXECUTOR_SESSION": "1", "EXECUTOR_TDD_STEP": "red"},
    ) as proc:
        assert proc.stdin is not None
        proc.stdin.write("a prompt, and the pipe stays open\n")
        proc.stdin.flush()
        assert proc.wait(timeout=20) == 0
        proc.stdin.close()


def test_help_says_it_is_not_an_ai() -> None:
    proc = run_cli("replay-agent", "--help", env={"COLUMNS": "200"})
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())  # the help is wrapped to the terminal
    assert "Deterministic replay agent for demos and tests. It is NOT an AI" in text
    assert "copies prepared files for (session, step) into the repository" in text
    listing = run_cli("--help", env={"COLUMNS": "200"})
    assert "Replay prepared files (not an AI)." in listing.stdout
