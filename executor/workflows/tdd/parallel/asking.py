"""A lane's question asked at the parallel run's terminal: read from the lane's bridge,
answered through the prompter, written back as a host would write it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from executor.bridge.reading import read_request
from executor.choices import Question, options_of
from executor.errors import BridgeFileInvalid

if TYPE_CHECKING:
    from executor.prompts import Prompter


def ask_in_terminal(
    prompter: Prompter,
    folder: Path,
    number: int,
    *,
    phase: int,
    on_ask: Callable[[Question], None] | None,
) -> bool:
    """Ask the person the question lane `number`'s run folder `folder` waits on, and write
    the answer; False when it waits on no question a person answers here. Raises EOFError
    when the terminal went away (the request then waits for a host)."""
    from executor.bridge.host import write_response

    try:
        req = read_request(folder / ".agent-request.json")
    except (FileNotFoundError, BridgeFileInvalid):
        return False
    options = options_of(req.context)
    if req.agent_name != "human" or not options:
        return False
    detail = str(req.context.get("detail") or "")
    question = str(req.context.get("question") or req.prompt)  # which session asks:
    if on_ask is not None:
        checkpoint = req.context.get("checkpoint")
        on_ask(Question(
            key=req.request_id, text=question, options=options, detail=detail,
            checkpoint=checkpoint if isinstance(checkpoint, str) else None, session=number,
            phase=phase,
            detail_file=Path(str(req.context.get("detail_file") or folder / "detail")),
        ))  # fmt: skip
    decision = prompter.ask(f"[session {number}] {question}", options, detail=detail)
    write_response(folder, status="success", response=decision.action, response_file=None,
                   error_message=None, error_type=None,
                   feedback=decision.feedback or None)  # fmt: skip
    return True
