"""A session driven from a terminal: real questionary prompts over prompt_toolkit pipe input."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output import DummyOutput

from executor.choices import Decision, Option
from executor.prompts import TerminalPrompter
from executor.runoptions import Overrides
from executor.workflows.tdd.runner.opening import RunRequest
from executor.workflows.tdd.runner.run import Runner
from executor.workflows.tdd.runner.scope import SessionScope
from tests.engine.helpers import commits, make_project, replay_cmd, session_state

DOWN, ENTER = "\x1b[B", "\r"


class Keyboard:
    """Types the next answer just before each real prompt appears."""

    def __init__(self, pipe: PipeInput, answers: list[str]) -> None:
        self.pipe, self.answers = pipe, answers
        self.inner = TerminalPrompter(input=pipe, output=DummyOutput())
        self.questions: list[str] = []

    def ask(self, question: str, options: Sequence[Option], *, detail: str = "") -> Decision:
        self.questions.append(question)
        self.pipe.send_text(self.answers.pop(0))
        return self.inner.ask(question, options, detail=detail)


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as p, create_app_session(input=p, output=DummyOutput()):
        yield p


def test_terminal_checkpoints_with_request_changes(git_repo: Path, pipe: PipeInput) -> None:
    plan = make_project(git_repo)
    # before_start: approve; after_red: "request changes" (2nd option) + feedback;
    # after_red again: approve; after_green: approve; after_refactor: approve.
    keys = Keyboard(pipe, [ENTER, DOWN + ENTER + "use pytest.raises\r", ENTER, ENTER, ENTER])
    lines: list[str] = []
    req = RunRequest(
        plan=plan,
        scope=SessionScope(1),
        repo=git_repo,
        overrides=Overrides(agent_command=replay_cmd()),
        prompter=keys,
        backoff=0,
    )
    Runner(req, report=lines.append).execute()
    assert keys.questions[0].startswith("Start session 1")
    assert keys.questions[1] == keys.questions[2] == "Tests fail as expected. Implement (GREEN)?"
    assert keys.answers == []
    brief = next((plan / ".agent-briefs").glob("s1.red.a2*.md")).read_text("utf-8")
    assert "use pytest.raises" in brief
    assert commits(git_repo)[0] == "feat(ledger): Ledger Models"
    assert session_state(plan, 1)["step"] == "done"
