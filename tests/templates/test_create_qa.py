"""template-create's Q&A on a real questionary terminal (a prompt_toolkit pipe), the
no-terminal defaults, and the exit codes of cancelling and Ctrl+C at a prompt."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from executor.cli import main
from executor.errors import NeedAgent, UserCancelled
from executor.prompts import TerminalPrompter
from executor.workflows.template_create import run as template_run
from tests.templates.workflow import Run, options, respond, run_once

DOWN, ENTER, CLEAR_LINE, CTRL_C = "\x1b[B", "\r", "\x15", "\x03"


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe:
        yield pipe


def terminal(pipe: PipeInput) -> TerminalPrompter:
    return TerminalPrompter(input=pipe, output=DummyOutput())


def test_a_person_answers_every_question(
    python_service: Path, tmp_path: Path, pipe: PipeInput
) -> None:
    pipe.send_text(
        CLEAR_LINE + "Books API" + ENTER  # refused: not a valid folder name
        + CLEAR_LINE + "books-api" + ENTER  # template name
        + ENTER  # language: Python (detected)
        + CLEAR_LINE + "A WSGI books service" + ENTER  # purpose
        + DOWN + ENTER  # architecture: the one after the detected Layered (MVVM)
        + ENTER  # example files: all
        + DOWN + DOWN + ENTER  # agents: none
        + "y"  # create it
    )  # fmt: skip
    dest = tmp_path / "out" / "books-api"

    run_once(options(python_service, dest, no_agents=True, prompter=terminal(pipe)))

    manifest = json.loads((dest / "manifest.json").read_text("utf-8"))
    assert (manifest["name"], manifest["description"]) == ("books-api", "A WSGI books service")
    assert (manifest["architecture"], manifest["sources"]["architecture"]) == ("MVVM", "user")
    assert not (dest / "agents").exists()


def test_defaults_a_person_accepts_yield_to_the_agent(
    python_service: Path, tmp_path: Path, pipe: PipeInput
) -> None:
    """Enter on every proposed default is no choice: the agent's architecture is used,
    recorded as the agent's."""
    pipe.send_text(ENTER * 5 + DOWN + DOWN + ENTER + "y")  # agents: none; create it
    dest = tmp_path / "out" / "library-service"
    opts = options(python_service, dest, prompter=terminal(pipe))
    with pytest.raises(NeedAgent):
        run_once(opts)
    respond(python_service, "success", '{"architecture": "Hexagonal"}')
    opts.resume = True
    run_once(opts)
    manifest = json.loads((dest / "manifest.json").read_text("utf-8"))
    assert (manifest["architecture"], manifest["sources"]["architecture"]) == (
        "Hexagonal", "agent",
    )  # fmt: skip


def test_options_answer_their_questions_and_the_rest_are_asked(
    python_service: Path, tmp_path: Path, pipe: PipeInput
) -> None:
    pipe.send_text(ENTER * 3 + "y")  # language, purpose, architecture; then confirm
    answers = {"template_name": "lib", "example_files": "library_service/**", "agents": "none"}
    dest = tmp_path / "out" / "lib"
    opts = options(python_service, dest, no_agents=True, prompter=terminal(pipe), answers=answers)

    run_once(opts)

    manifest = json.loads((dest / "manifest.json").read_text("utf-8"))
    assert manifest["name"] == "lib"
    assert {t["source_path"].split("/")[0] for t in manifest["templates"]} == {"library_service"}


def test_a_closed_terminal_takes_the_defaults_and_says_so(
    python_service: Path, tmp_path: Path, pipe: PipeInput
) -> None:
    pipe.close()
    run = Run()
    run_once(
        options(python_service, tmp_path / "o" / "lib", no_agents=True, prompter=terminal(pipe)),
        run,
    )
    assert any(
        "Q&A: the terminal closed: taking the detected defaults (--name 'library-service'" in line
        for line in run.lines
    )


def test_answering_no_cancels_with_nothing_left_behind(
    python_service: Path, tmp_path: Path, pipe: PipeInput
) -> None:
    pipe.send_text(ENTER * 6 + "n")
    opts = options(python_service, tmp_path / "out" / "lib", prompter=terminal(pipe))
    with pytest.raises(UserCancelled) as cancelled:
        run_once(opts)
    assert cancelled.value.exit_code == 1
    assert sorted(p.name for p in python_service.iterdir() if p.name.startswith(".")) == []
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("keys", "code"), [(ENTER * 6 + "n", 1), (CTRL_C, 130)])
def test_cancel_and_ctrl_c_exit_codes_through_the_cli(
    python_service: Path,
    tmp_path: Path,
    pipe: PipeInput,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    keys: str,
    code: int,
) -> None:
    pipe.send_text(keys)
    monkeypatch.setattr(template_run, "_terminal_prompter", lambda: terminal(pipe))
    out = str(tmp_path / "out")
    assert main(["template-create", "--path", str(python_service), "--output", out]) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert not (python_service / ".template-create-state.json").exists()
    if code == 130:  # at a question: before the first save
        assert err == (
            "Interrupted before this run saved anything: there is nothing of it to resume; "
            "run the command again to start it.\n"
        )
