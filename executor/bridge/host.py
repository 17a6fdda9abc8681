"""Host helpers for the exit-42 loop: what `executor bridge show|respond|validate` do.

They take plain values and raise our errors; every message carries absolute paths, so
a host (Claude Code, a CI script) never hand-writes JSON or guesses a path.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from executor import fsutil
from executor.bridge.models import AgentRequest, AgentResponse
from executor.bridge.reading import (
    MAX_OWN_BYTES,
    MAX_RESPONSE_BYTES,
    read_request,
    validate_file,
)
from executor.datamodel import dump
from executor.errors import (
    BridgeFileInvalid,
    DataError,
    InvalidResponseError,
    NothingToResumeError,
    PathNotFoundError,
    UserError,
)
from executor.runfiles import REQUEST_NAME, RESPONSE_NAME
from executor.safe_read import read_bounded

RESPOND_STATUSES = ("success", "error", "timeout", "cancelled")
#: The commands a request's `context.resume` may name (what `bridge respond --resume` runs).
RESUMABLE = frozenset(
    {"execute-phase", "execute-session", "execute-plan", "resume-session", "template-create"}
)


def resolve_dir(directory: Path | None, cwd: Path | None = None) -> Path:
    """The folder to answer in: `--dir`; else the current folder when it holds a request
    file; else the folder of the one plan found from it (`executor.plan.discover_plan`,
    as execute-* find it). Several plans: the error lists them; none: nothing to answer."""
    if directory is not None:
        return directory.absolute()
    cwd = (cwd or Path.cwd()).absolute()
    if (cwd / REQUEST_NAME).exists():
        return cwd
    from executor.plan.discover import discover_plan, find_plans

    if not find_plans(cwd):
        raise NothingToResumeError(
            f"No pending request: {cwd / REQUEST_NAME} does not exist, and no plan was found "
            f"from {cwd} to look in; give --dir with the folder that holds the request."
        )
    try:
        plan = discover_plan(cwd)
    except UserError as e:
        raise UserError(
            f"No {REQUEST_NAME} in {cwd}, and the plan's folder is ambiguous: {e}\n"
            f"Give --dir with the folder of the plan whose request to answer."
        ) from None
    return plan if plan.is_dir() else plan.parent


def load_pending(directory: Path) -> AgentRequest:
    """The request waiting in `directory`; NothingToResumeError when there is none."""
    path = directory.absolute() / REQUEST_NAME
    try:
        return read_request(path)
    except FileNotFoundError:
        raise NothingToResumeError(
            f"No pending request: {path} does not exist (nothing to answer in "
            f"{directory.absolute()})."
        ) from None


def show_pending(directory: Path) -> dict[str, Any]:
    """What the host needs to answer the pending request in `directory`."""
    directory = directory.absolute()
    req = load_pending(directory)
    prompt_file = req.context.get("prompt_file")
    prompt_chars = len(req.prompt)
    if prompt_file:
        try:
            brief = read_bounded(Path(prompt_file), MAX_OWN_BYTES)
            prompt_chars = len(brief.decode("utf-8", errors="replace"))
        except (OSError, DataError):
            prompt_chars = len(req.prompt)
    kind = "human" if req.agent_name == "human" else "agent"
    answer = "--response CHOICE" if kind == "human" else "--response-file ANSWER.md"
    return {
        "request_id": req.request_id,
        "agent_name": req.agent_name,
        "kind": kind,
        "attempt": req.attempt,
        "emission": req.emission,
        "prompt_chars": prompt_chars,
        "prompt_file": str(Path(prompt_file).absolute()) if prompt_file else None,
        "request_file": str(directory / REQUEST_NAME),
        "response_file": str(directory / RESPONSE_NAME),
        "dir": str(directory),
        "context": req.context,
        "respond_example": (
            f"executor bridge respond --dir {fsutil.quote(directory)} --status success {answer}"
        ),
        "prompt": req.prompt,
    }


def _answer_text(response: str | None, response_file: Path | None) -> str | None:
    if response is not None and response_file is not None:
        raise UserError("Give either --response or --response-file, not both.")
    if response_file is None:
        return response
    if str(response_file) == "-":
        text = sys.stdin.read(MAX_RESPONSE_BYTES + 1)
    else:
        text = _read_answer(response_file.absolute())
    if len(text.encode("utf-8")) > MAX_RESPONSE_BYTES:
        raise UserError(
            f"The answer is over {MAX_RESPONSE_BYTES} bytes; the executor would reject it. "
            f"Write the long part to a file in the repository and answer with a summary."
        )
    return text


def _read_answer(path: Path) -> str:
    """The person's answer file, read no further than the limit (a pipe such as `<(cmd)`
    is theirs to give)."""
    try:
        with path.open("rb") as answer:
            data = answer.read(MAX_RESPONSE_BYTES + 1)
    except FileNotFoundError:
        raise PathNotFoundError(f"Response file not found: {path}", path=path) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        if len(data) > MAX_RESPONSE_BYTES:  # cut inside a character: over the limit anyway
            return data.decode("utf-8", errors="replace")
        raise UserError(f"The answer in {path} is not UTF-8 text ({e}).") from None


def write_response(
    directory: Path,
    *,
    status: str,
    response: str | None,
    response_file: Path | None,
    error_message: str | None,
    error_type: str | None,
    feedback: str | None = None,
) -> tuple[Path, AgentRequest]:
    """Write an atomic response bound to the pending request; return its absolute path
    and the request it answers.

    `response_file` may be `-`: the answer is read from stdin (so a host never has to
    write a file outside the project). `feedback`: a person's words for the agent, with
    their choice (`request_changes` when no other is given).
    """
    if status not in RESPOND_STATUSES:
        raise UserError(f"--status must be one of {', '.join(RESPOND_STATUSES)}, got {status!r}.")
    text = _answer_text(response, response_file)
    if feedback is not None:
        if status != "success":
            raise UserError("--feedback goes with --status success (a person's answer).")
        text = json.dumps({"decision": (text or "request_changes").strip(), "feedback": feedback})
    if status == "success" and text is None:
        raise UserError("--status success needs the answer: --response TEXT or --response-file F.")
    if status == "success" and (error_message or error_type):
        raise UserError("--error-message/--error-type go with --status error or timeout.")
    directory = directory.absolute()
    req = load_pending(directory)
    target = directory / RESPONSE_NAME
    if status == "success":
        check_answer(
            req,
            text,
            path=target,
            where=f"for request {req.request_id} in {directory / REQUEST_NAME} (nothing was "
            f"written)",
        )
    if status != "success" and error_type is None:
        error_type = "TIMEOUT" if status == "timeout" else "UNKNOWN"
    resp = AgentResponse(
        request_id=req.request_id,
        status=status,
        response=text,
        error_message=error_message,
        error_type=error_type,
        metadata={"agent_name": req.agent_name, "written_by": "executor bridge respond"},
    )
    fsutil.atomic_write_json(target, dump(resp), fault="response")
    return target, req


def resume_argv(directory: Path, req: AgentRequest) -> list[str]:
    """The command line (without `executor`) that continues the run waiting on `req` in
    `directory`, as the run saved it with the pending request (`executor.bridge.saved`):
    never the request file's copy, which anything that writes the folder can rewrite."""
    from executor.bridge.saved import saved_resume

    argv = saved_resume(directory, req.request_id)
    if argv is None:
        raise UserError(
            f"the run's saved state in {directory.absolute()} does not record which command "
            f"continues request {req.request_id} (a run of an older executor, or another "
            f"program's request): the answer is written; re-run the command that stopped "
            f"with --resume."
        )
    if argv[0] not in RESUMABLE or "--resume" not in argv:
        raise UserError(
            f"the run in {directory.absolute()} saved {argv[0]!r} to continue request "
            f"{req.request_id}, which is not a run command; the answer is written: re-run "
            f"the command that stopped with --resume."
        )
    return argv


def forged_resume(req: AgentRequest, argv: list[str]) -> list[str] | None:
    """The request file's own copy of the command (`context.resume`) when it is not the
    saved one: someone rewrote the file. It is reported, never run."""
    copy = req.context.get("resume")
    if copy is None or copy == argv:
        return None
    return [str(a) for a in copy] if isinstance(copy, list) else [str(copy)]


def check_answer(req: AgentRequest, text: str | None, *, path: Path, where: str) -> None:
    """Refuse (InvalidResponseError) an answer that a human request does not offer.

    The check is the engine's own (`executor.choices.parse_decision`), so an
    answer that passes here is one `--resume` accepts. Agent requests take any text.
    """
    if req.agent_name != "human" or text is None:
        return
    from executor.choices import options_of, parse_decision

    options = options_of(req.context)
    if options is not None:
        parse_decision(text, options, path=path, where=where)


def validate(path: Path | None, directory: Path | None = None) -> tuple[str, Path]:
    """Validate a request or response file; return (kind, absolute path).

    No `path`: the response file in the folder `resolve_dir(directory)` picks, else (no
    response yet) its request file. A response with a request pending beside it is
    checked against that request too: bound to it, and (a human request) an answer it
    offers.
    """
    if path is None:
        folder = resolve_dir(directory)
        path = folder / RESPONSE_NAME
        if not path.exists():
            path = folder / REQUEST_NAME
    elif directory is not None:
        raise UserError("Give the FILE to check or --dir, not both.")
    path = path.absolute()
    try:
        kind, record = validate_file(path)
    except FileNotFoundError:
        raise PathNotFoundError(f"File not found: {path}", path=path) from None
    if isinstance(record, AgentResponse):
        _check_against_pending(record, path)
    return kind, path


def _check_against_pending(resp: AgentResponse, path: Path) -> None:
    request_file = path.parent / REQUEST_NAME
    try:
        req = read_request(request_file)
    except FileNotFoundError:
        return
    if resp.request_id != req.request_id:
        problem = (
            f"request_id: {resp.request_id!r} is not the pending request's "
            f"{req.request_id!r} (in {request_file})"
        )
        raise BridgeFileInvalid(
            f"Invalid response file {path}: {problem}; --resume would reject it. Answer the "
            f"pending request (executor bridge respond writes the right id).",
            path=path,
            problems=[problem],
        )
    if resp.status != "success":
        return
    try:
        check_answer(req, resp.response, path=path, where=f"in {path}")
    except InvalidResponseError as e:
        raise BridgeFileInvalid(
            f"{e} (the request pending in {request_file}); --resume would reject it.",
            path=path,
            problems=e.problems,
        ) from e
