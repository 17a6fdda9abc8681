"""Parsers of agent-CLI output, on the samples in tests/agents/samples/ (see its README)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from executor.agent_output import AgentReport, parse_agent_output
from executor.datamodel import dump, validate

SAMPLES = Path(__file__).parent / "samples"


def sample(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


def test_claude_success_reads_result_cost_tokens_turns_and_denials() -> None:
    report = parse_agent_output("claude", sample("claude_success.json"), "", 0, 48.5)
    assert report.ok and report.error_message is None
    assert report.final_message.startswith("Implemented ledger/models.py")
    assert report.cost_usd == pytest.approx(0.08731)
    assert report.input_tokens == 41 + 9875 + 61210  # uncached + cache writes + cache reads
    assert report.output_tokens == 2203
    assert report.turns == 7
    assert report.denied == ["Bash(git commit -am 'add models')"]
    assert report.duration_s == 48.5 and report.agent == "claude"


def test_claude_error_subtype_is_an_error_with_its_errors_listed() -> None:
    report = parse_agent_output("claude", sample("claude_error_max_turns.json"), "", 1, 120.0)
    assert not report.ok and report.final_message == ""
    assert report.error_message == (
        "claude error_max_turns (exit 1): Reached maximum number of turns (30)"
    )
    assert report.cost_usd == pytest.approx(0.4127) and report.turns == 30


def test_claude_failed_api_call_is_an_error_although_its_subtype_says_success() -> None:
    report = parse_agent_output("claude", sample("claude_api_error.json"), "", 1, 0.9)
    assert not report.ok
    assert report.error_message == "claude success (exit 1): Invalid API key · Please run /login"


def test_claude_result_after_stray_lines_and_in_stream_json_is_found() -> None:
    stream = "\n".join(
        [
            "npm WARN deprecated something",
            '{"type":"system","subtype":"init","session_id":"s"}',
            '{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}',
            '{"type":"result","subtype":"success","is_error":false,"result":"done","num_turns":2,'
            '"total_cost_usd":0.01,"usage":{"input_tokens":5,"output_tokens":6},"extra":1}',
        ]
    )
    report = parse_agent_output("claude", stream, "", 0, 1.0)
    assert (report.ok, report.final_message, report.input_tokens, report.turns) == (
        True,
        "done",
        5,
        2,
    )


def test_claude_nonzero_exit_with_a_success_result_is_still_an_error() -> None:
    report = parse_agent_output("claude", sample("claude_success.json"), "killed", 137, 3.0)
    assert not report.ok
    assert report.error_message == "claude exited 137 after a successful result: killed"


def test_codex_events_give_last_message_usage_and_turns() -> None:
    report = parse_agent_output("codex", sample("codex_success.jsonl"), "progress\n", 0, 30.0)
    assert report.ok
    assert report.final_message == (
        "Added ledger/models.py; the 12 tests in tests/test_models.py pass."
    )
    assert (report.input_tokens, report.output_tokens, report.turns) == (24763, 122, 1)
    assert report.cost_usd is None  # codex exec reports tokens only


def test_codex_turn_failed_is_an_error_with_its_message() -> None:
    report = parse_agent_output("codex", sample("codex_turn_failed.jsonl"), "", 1, 2.0)
    assert not report.ok
    assert report.error_message == "codex (exit 1): model response stream ended unexpectedly"


def test_codex_error_event_followed_by_a_completed_turn_was_transient() -> None:
    report = parse_agent_output("codex", sample("codex_transient_error.jsonl"), "", 0, 2.0)
    assert report.ok and report.final_message.startswith("Done.")


def test_codex_error_event_with_no_completed_turn_is_fatal() -> None:
    out = '{"type":"thread.started","thread_id":"t"}\n{"type":"error","message":"quota exceeded"}\n'
    report = parse_agent_output("codex", out, "", 1, 1.0)
    assert not report.ok and report.error_message == "codex (exit 1): quota exceeded"


def test_codex_declined_commands_are_listed() -> None:
    out = (
        '{"type":"item.completed","item":{"id":"i","type":"command_execution",'
        '"command":"git commit -m x","aggregated_output":"","exit_code":null,'
        '"status":"declined"}}\n'
        '{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}'
    )
    assert parse_agent_output("codex", out, "", 0, 1.0).denied == ["git commit -m x"]


def test_gemini_documented_example_sums_tokens_over_models() -> None:
    report = parse_agent_output("gemini", sample("gemini_success.json"), "", 0, 7.0)
    assert report.ok and report.final_message == "The capital of France is Paris."
    assert (report.input_tokens, report.output_tokens) == (24939 + 8965, 20 + 10)


def test_gemini_error_object_is_an_error_even_on_stderr() -> None:
    report = parse_agent_output("gemini", "", sample("gemini_error.json"), 55, 0.4)
    assert not report.ok
    assert report.error_message == (
        "gemini: FatalUntrustedWorkspaceError 55: "
        "The current workspace is not trusted (illustrative text)."
    )


def test_gemini_json_after_a_warning_line_is_found() -> None:
    out = "Loaded cached credentials.\n" + sample("gemini_success.json")
    assert parse_agent_output("gemini", out, "", 0, 1.0).ok


def test_aider_usage_lines_give_tokens_cost_and_turns() -> None:
    report = parse_agent_output("aider", sample("aider_success.txt"), "", 0, 20.0)
    assert report.ok
    assert report.input_tokens == (8400 + 2500) + (12000 + 2500 + 8400)
    assert report.output_tokens == 1200 + 312
    assert report.cost_usd == pytest.approx(0.06)  # the session total of the last report
    assert report.turns == 2
    assert report.final_message.startswith("I'll add the ledger package")
    assert "Tokens:" not in report.final_message and "Aider v" not in report.final_message


def test_aider_failed_model_call_is_an_error_although_aider_exits_0() -> None:
    report = parse_agent_output("aider", sample("aider_api_error.txt"), "", 0, 2.0)
    assert not report.ok
    assert (report.error_message or "").startswith("aider: litellm.AuthenticationError:")


def test_aider_output_without_its_banner_is_not_aider_output() -> None:
    report = parse_agent_output("aider", "Segmentation fault\n", "", 0, 0.1)
    assert report.error_message == "aider: no aider banner in the output: Segmentation fault"


def test_aider_nonzero_exit_is_an_error() -> None:
    report = parse_agent_output("aider", "", "aider: error: unrecognized arguments: --x", 2, 0.5)
    assert report.error_message == "aider: exit 2: aider: error: unrecognized arguments: --x"


def test_plain_command_is_stdout_and_exit_code() -> None:
    ok = parse_agent_output(None, "  wrote a.py\n", "noise", 0, 1.0)
    assert (ok.agent, ok.ok, ok.final_message) == ("command", True, "wrote a.py")
    bad = parse_agent_output("replay", "partial\n", "boom\n", 64, 1.0)
    assert (bad.ok, bad.error_message) == (False, "exit 64: boom")


@pytest.mark.parametrize("name", ["claude", "codex", "gemini", "aider"])
def test_garbage_is_an_error_quoting_its_first_lines(name: str) -> None:
    garbage = "\n".join(f"line {i}" for i in range(9))
    report = parse_agent_output(name, garbage, "", 0, 1.0)
    assert not report.ok
    assert (report.error_message or "").endswith(
        "line 0\nline 1\nline 2\nline 3\nline 4\n... (4 more lines)"
    )


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(["claude", "codex", "gemini", "aider", "command"]),
    stdout=st.one_of(
        st.text(),
        st.lists(
            st.sampled_from(['{"type":"result"', '{"type":"result","usage":[1]}', "{}", "[]",
                             '{"type":"turn.completed","usage":5}', '{"error":7}',
                             '{"type":"item.completed","item":"x"}', "Tokens: 1k sent",
                             '{"stats":{"models":{"m":{"tokens":"x"}}}}', "\x1b[31mred",
                             '{"type":"result","total_cost_usd":1e400,"num_turns":-3}',
                             '{"type":"turn.completed","usage":{"input_tokens":NaN}}',
                             '{"stats":{"models":{"m":{"tokens":{"prompt":1e999}}}}}',
                             "{" + '"a":[' * 3000, "Tokens: " + "9" * 400 + "k sent, 1 received.",
                             "Cost: $" + "9" * 400 + " message, $" + "9" * 400 + " session."]),
        ).map("\n".join),
    ),
    exit_code=st.integers(-9, 255),
)  # fmt: skip
def test_parsers_never_raise(name: str, stdout: str, exit_code: int) -> None:
    report = parse_agent_output(name, stdout, "", exit_code, 0.0)
    assert isinstance(report, AgentReport)
    assert report.ok == (report.error_message is None)


def test_report_round_trips_through_json_and_has_a_schema() -> None:
    report = parse_agent_output("claude", sample("claude_success.json"), "", 0, 1.0)
    assert validate(AgentReport, dump(report)) == report
    assert AgentReport.model_json_schema()["required"] == ["agent", "ok", "duration_s"]


@pytest.mark.parametrize("cost", ["1e400", "1" + "0" * 400, "-1", "NaN"])
def test_a_cost_or_count_no_float_can_hold_is_unknown(cost: str) -> None:
    text = (
        '{"type": "result", "subtype": "success", "is_error": false, "result": "done", '
        f'"usage": {{"input_tokens": 5, "output_tokens": {cost}}}, "total_cost_usd": {cost}}}'
    )
    report = parse_agent_output("claude", text, "", 0, 1.0)
    assert report.ok and report.cost_usd is None and report.output_tokens is None
    assert report.input_tokens == 5
    assert validate(AgentReport, dump(report)) == report  # and it can be kept
