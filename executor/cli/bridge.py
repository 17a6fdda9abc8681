"""`executor bridge show|respond|validate`: host helpers, so no host hand-writes JSON.

Thin: parse flags, call the core functions below through `common.run`. The core
functions (`show_pending`, `write_response`, `validate`) take plain values and raise
our errors; every message carries absolute paths.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated, Any

import typer

from executor import console
from executor.cli import common
from executor.errors import NothingToResumeError, PathNotFoundError, UserError
from executor.exitcodes import ExitCode

_RESPOND_STATUSES = ("success", "error", "timeout", "cancelled")


def _request_file(directory: Path) -> Path:
    from executor.bridge.protocol import REQUEST_NAME

    return directory.absolute() / REQUEST_NAME


def _load_pending(directory: Path) -> Any:
    from executor.bridge.reading import read_request

    path = _request_file(directory)
    try:
        return read_request(path)
    except FileNotFoundError:
        raise NothingToResumeError(
            f"No pending request: {path} does not exist (nothing to answer in "
            f"{directory.absolute()})."
        ) from None


def show_pending(directory: Path) -> dict[str, Any]:
    """What the host needs to answer the pending request in `directory`."""
    from executor.bridge.protocol import RESPONSE_NAME

    directory = directory.absolute()
    req = _load_pending(directory)
    prompt_file = req.context.get("prompt_file")
    prompt_chars = len(req.prompt)
    if prompt_file:
        try:
            prompt_chars = len(Path(prompt_file).read_text(encoding="utf-8"))
        except OSError:
            prompt_chars = len(req.prompt)
    kind = "human" if req.agent_name == "human" else "agent"
    answer = "--response VALUE" if kind == "human" else "--response-file ANSWER.md"
    return {
        "request_id": req.request_id,
        "agent_name": req.agent_name,
        "kind": kind,
        "attempt": req.attempt,
        "prompt_chars": prompt_chars,
        "prompt_file": str(Path(prompt_file).absolute()) if prompt_file else None,
        "request_file": str(_request_file(directory)),
        "response_file": str(directory / RESPONSE_NAME),
        "dir": str(directory),
        "context": req.context,
        "respond_example": (
            f"executor bridge respond --dir {shlex.quote(str(directory))} --status success {answer}"
        ),
        "prompt": req.prompt,
    }


def _print_show(info: dict[str, Any]) -> None:
    who = "the person" if info["kind"] == "human" else f"agent {info['agent_name']!r}"
    console.out(f"Pending request {info['request_id']} for {who} (attempt {info['attempt']})")
    console.out(f"  request file:  {info['request_file']}")
    console.out(f"  response file: {info['response_file']}")
    console.out(f"  prompt: {info['prompt_chars']} characters")
    if info["prompt_file"]:
        console.out(f"  brief (full prompt): {info['prompt_file']}")
    ctx = info["context"]
    if info["kind"] == "human":
        if ctx.get("question"):
            console.out(f"  question: {ctx['question']}")
        for opt in ctx.get("options") or []:
            if isinstance(opt, dict):
                console.out(f"    - {opt.get('value')}: {opt.get('label', '')}")
        if ctx.get("detail"):
            console.out(f"  detail: {ctx['detail']}")
    console.out(f"Answer with: {info['respond_example']}")


def write_response(
    directory: Path,
    *,
    status: str,
    response: str | None,
    response_file: Path | None,
    error_message: str | None,
    error_type: str | None,
) -> Path:
    """Write an atomic response bound to the pending request; return its absolute path."""
    from executor import fsutil
    from executor.bridge.models import AgentResponse
    from executor.bridge.protocol import RESPONSE_NAME

    if status not in _RESPOND_STATUSES:
        raise UserError(f"--status must be one of {', '.join(_RESPOND_STATUSES)}, got {status!r}.")
    if response is not None and response_file is not None:
        raise UserError("Give either --response or --response-file, not both.")
    if status == "success" and response is None and response_file is None:
        raise UserError("--status success needs the answer: --response TEXT or --response-file F.")
    if status == "success" and (error_message or error_type):
        raise UserError("--error-message/--error-type go with --status error or timeout.")
    if response_file is not None:
        path = response_file.absolute()
        try:
            response = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise PathNotFoundError(f"Response file not found: {path}", path=path) from None
    directory = directory.absolute()
    req = _load_pending(directory)
    if status != "success" and error_type is None:
        error_type = "TIMEOUT" if status == "timeout" else "UNKNOWN"
    try:
        resp = AgentResponse(
            request_id=req.request_id,
            status=status,
            response=response,
            error_message=error_message,
            error_type=error_type,
            metadata={"agent_name": req.agent_name, "written_by": "executor bridge respond"},
        )
    except ValueError as e:
        from executor.bridge.models import ERROR_TYPES

        raise UserError(
            f"--error-type must be one of {', '.join(ERROR_TYPES)}, got {error_type!r}."
        ) from e
    target = directory / RESPONSE_NAME
    fsutil.atomic_write_json(target, resp.model_dump(), fault="response")
    return target


def validate(path: Path) -> tuple[str, Path]:
    """Validate a request or response file; return (kind, absolute path)."""
    from executor.bridge.reading import validate_file

    path = path.absolute()
    try:
        kind, _ = validate_file(path)
    except FileNotFoundError:
        raise PathNotFoundError(f"File not found: {path}", path=path) from None
    return kind, path


def register(app: typer.Typer) -> None:
    """Add `executor bridge ...` to the root app."""
    sub = typer.Typer(
        name="bridge",
        help="Host helpers for the exit-42 bridge: show the pending request, write the "
        "response, validate a file.",
        no_args_is_help=True,
    )

    @sub.command("show")
    def _show(
        directory: Annotated[
            Path, typer.Option("--dir", help="Folder holding .agent-request.json.")
        ] = Path("."),
        json_out: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
    ) -> None:
        """Show the pending request: agent, request_id, attempt, prompt size, paths."""

        def body() -> int:
            info = show_pending(directory)
            if json_out:
                console.out_json({k: v for k, v in info.items() if k != "prompt"})
            else:
                _print_show(info)
            return int(ExitCode.SUCCESS)

        common.run(body, json_output=json_out)

    @sub.command("respond")
    def _respond(
        status: Annotated[
            str, typer.Option("--status", help="success | error | timeout | cancelled")
        ],
        directory: Annotated[
            Path, typer.Option("--dir", help="Folder holding .agent-request.json.")
        ] = Path("."),
        response: Annotated[str | None, typer.Option("--response", help="The answer text.")] = None,
        response_file: Annotated[
            Path | None, typer.Option("--response-file", help="Read the answer from a file.")
        ] = None,
        error_message: Annotated[str | None, typer.Option("--error-message")] = None,
        error_type: Annotated[
            str | None,
            typer.Option("--error-type", help="AGENT_NOT_FOUND, INVOCATION_FAILED, TIMEOUT, ..."),
        ] = None,
    ) -> None:
        """Write .agent-response.json bound to the pending request (atomically)."""

        def body() -> int:
            target = write_response(
                directory,
                status=status,
                response=response,
                response_file=response_file,
                error_message=error_message,
                error_type=error_type,
            )
            console.out(f"Wrote {target}; now re-run the executor command with --resume.")
            return int(ExitCode.SUCCESS)

        common.run(body)

    @sub.command("validate")
    def _validate(
        file: Annotated[Path, typer.Argument(help="A request or response file.")],
    ) -> None:
        """Check a request or response file; field-level messages when invalid."""

        def body() -> int:
            kind, path = validate(file)
            console.out(f"{path}: valid {kind} file")
            return int(ExitCode.SUCCESS)

        common.run(body)

    app.add_typer(sub, name="bridge")
