"""Prompter seam: real questionary prompts on a prompt_toolkit pipe, and the bridge form."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from executor import errors
from executor.choices import Decision, Option, parse_decision
from executor.prompts import ScriptedPrompter, TerminalPrompter

DOWN, ENTER, CTRL_C = "\x1b[B", "\r", "\x03"

OPTIONS = [
    Option("approve", "Approve and continue"),
    Option("request_changes", "Request changes"),
    Option("show_diff", "Show diff"),
    Option("pause", "Pause"),
    Option("abort", "Abort session"),
]
RESPONSE = Path("/plans/app/.agent-response.json")


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        yield pipe


# ---------------------------------------------------------------- terminal


def test_enter_picks_the_first_option(pipe: PipeInput) -> None:
    pipe.send_text(ENTER)
    assert TerminalPrompter().ask("Start session 1?", OPTIONS) == Decision("approve")


def test_arrow_keys_then_feedback_text(pipe: PipeInput, capsys: pytest.CaptureFixture[str]) -> None:
    pipe.send_text(DOWN + ENTER + "cover the empty ledger too" + ENTER)
    decision = TerminalPrompter().ask("RED done. Next?", OPTIONS, detail="2 failed, 0 passed")
    assert decision == Decision("request_changes", "cover the empty ledger too")
    assert "2 failed, 0 passed" in capsys.readouterr().out


def test_empty_feedback_is_asked_again(pipe: PipeInput) -> None:
    pipe.send_text(DOWN + ENTER + "   " + ENTER + "\x7f\x7f\x7fadd docs" + ENTER)
    assert TerminalPrompter().ask("Next?", OPTIONS) == Decision("request_changes", "add docs")


def test_explicit_input_and_output() -> None:
    with create_pipe_input() as pipe:
        pipe.send_text(DOWN + DOWN + DOWN + ENTER)
        prompter = TerminalPrompter(input=pipe, output=DummyOutput())
        assert prompter.ask("Next?", OPTIONS) == Decision("pause")


def test_ctrl_c_raises_keyboard_interrupt(pipe: PipeInput) -> None:
    pipe.send_text(CTRL_C)
    with pytest.raises(KeyboardInterrupt):
        TerminalPrompter().ask("Next?", OPTIONS)


def test_closed_input_raises_eof(pipe: PipeInput) -> None:
    pipe.close()
    with pytest.raises(EOFError):
        TerminalPrompter().ask("Next?", OPTIONS)


def test_no_options_is_a_bug() -> None:
    with pytest.raises(ValueError, match="at least one option"):
        TerminalPrompter().ask("Next?", [])


# ---------------------------------------------------------------- scripted


def test_scripted_prompter_answers_in_order_and_records() -> None:
    prompter = ScriptedPrompter(["approve", Decision("request_changes", "more")])
    assert prompter.ask("one?", OPTIONS, detail="d") == Decision("approve")
    assert prompter.ask("two?", OPTIONS) == Decision("request_changes", "more")
    assert [q for q, _, _ in prompter.asked] == ["one?", "two?"]
    assert prompter.asked[0][2] == "d" and prompter.remaining == 0
    with pytest.raises(RuntimeError, match="no answer left for 'three\\?'"):
        prompter.ask("three?", OPTIONS)


def test_scripted_prompter_rejects_an_answer_not_offered() -> None:
    with pytest.raises(RuntimeError, match="not an option"):
        ScriptedPrompter(["retry"]).ask("Next?", OPTIONS)


# ---------------------------------------------------------------- bridge form


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("approve", Decision("approve")),
        ("  PAUSE\n", Decision("pause")),
        ("Abort", Decision("abort")),
        ("show_diff", Decision("show_diff")),
        ("Approve and continue", Decision("approve")),  # the label works too
        ('"approve"', Decision("approve")),  # a JSON string
        ('{"decision": "approve"}', Decision("approve")),
        (
            '{"decision": "Pause", "feedback": "back after lunch"}',
            Decision("pause", "back after lunch"),
        ),
        (
            '{"decision": "request_changes", "feedback": " use Decimal ", "by": "host"}',
            Decision("request_changes", "use Decimal"),
        ),
    ],
)
def test_parse_decision_forms(text: str, expected: Decision) -> None:
    assert parse_decision(text, OPTIONS, path=RESPONSE) == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "the answer is empty"),
        ("yes please", "'yes please' is not one of the options"),
        ("request_changes", "request_changes needs feedback"),
        ('{"decision": "request_changes"}', "request_changes needs feedback"),
        ('{"decision": "request_changes", "feedback": "  "}', "request_changes needs feedback"),
        ('{"feedback": "x"}', "decision: required, a string"),
        ('{"decision": 3}', "decision: required, a string"),
        ('{"decision": "approve"', "not valid JSON"),
        ('{"decision": "merge"}', "'merge' is not one of the options"),
        ('{"decison": "approve"}', "decison: unknown field; expected one of decision, feedback"),
        ('{"decision": "merge", "by": "host"}', "by: unknown field; expected one of decision"),
        ('"approve', "not valid JSON"),
    ],
)
def test_parse_decision_errors_name_the_file_and_the_options(text: str, why: str) -> None:
    with pytest.raises(errors.InvalidResponseError) as info:
        parse_decision(text, OPTIONS, path=RESPONSE)
    message = str(info.value)
    assert message.startswith(f"invalid decision in {RESPONSE}: ")
    assert why in message
    assert "approve, request_changes, show_diff, pause, abort" in message
    assert info.value.path == RESPONSE and info.value.problems
    assert info.value.exit_code == 10


def test_an_error_line_stops_a_live_progress_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """After Ctrl+C the spinner is not drawn again below the "Interrupted" line."""
    import io

    from rich.console import Console

    from executor import console

    monkeypatch.setattr(console, "_console", Console(file=io.StringIO(), force_terminal=True))
    live = console.Activity("[session 1] GREEN: asking backend-builder", live=True)
    assert console._live == [live]
    console.err("Interrupted: the run so far is saved")
    assert console._live == [] and live._status is None
