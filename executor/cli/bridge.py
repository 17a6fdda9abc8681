"""`executor bridge show|respond|validate`: host helpers, so no host hand-writes JSON.

Thin: read flags, call `executor.bridge.host` through `common.run`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from executor.cli.spec import Commands
from executor.params import Param

if TYPE_CHECKING:
    from pathlib import Path

_DIR_HELP = (
    "Folder holding .agent-request.json. Default: the current folder when it holds one, "
    "else the folder of the one plan found from here (as execute-* find it)."
)


def _print_show(info: dict[str, Any]) -> None:
    from executor import console

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


def _show_all(folder: Path, json_out: bool) -> int:
    """Every request the run kept in `folder` waits on (the run's own, each lane's)."""
    from executor import console
    from executor.bridge.host import show_pending
    from executor.runfiles import REQUEST_NAME
    from executor.workflows.tdd.parallel.view import request_folders

    found = [
        show_pending(where) for where in request_folders(folder) if (where / REQUEST_NAME).exists()
    ]
    if json_out:
        console.out_json(
            {"pending": [{k: v for k, v in i.items() if k != "prompt"} for i in found]}
        )
        return 0
    if not found:
        console.out(f"No request is pending for the run in {folder}.")
    for i, info in enumerate(found):
        if i:
            console.out("")
        _print_show(info)
    return 0


commands = Commands()
bridge = commands.group(
    "bridge",
    "Host helpers for the exit-42 bridge: show the pending request, write the response, "
    "validate a file.",
)
DIR = Param("directory", "--dir", kind="path", metavar="PATH", help=_DIR_HELP)
JSON = Param("json_out", "--json", kind="flag", help="One JSON object.")


@bridge(
    "show",
    DIR,
    Param("every", "--all", kind="flag",
          help="Every request the run waits on: a parallel run's sessions each wait on their "
          'own (`executor docs parallel`). With --json: {"pending": [...]}.'),
    JSON,
)  # fmt: skip
def show(directory: Path | None, every: bool, json_out: bool) -> None:
    """Show the pending request: agent, request_id, attempt, prompt size, paths."""
    from executor import console
    from executor.cli import common

    def body() -> int:
        from executor.bridge.host import resolve_dir, show_pending

        if every:
            return _show_all(resolve_dir(directory), json_out)
        info = show_pending(resolve_dir(directory))
        if json_out:
            console.out_json({k: v for k, v in info.items() if k != "prompt"})
        else:
            _print_show(info)
        return 0

    common.run(body, json_output=json_out)


@bridge(
    "respond",
    Param("status", "--status", default="success",
          choices=("success", "error", "timeout", "cancelled"),
          metavar="[success|error|timeout|cancelled]", help="How the agent (or person) did."),
    DIR,
    Param("response", "--response", help="The answer text."),
    Param("response_file", "--response-file", kind="path",
          help="Read the answer from a file; - reads stdin."),
    Param("error_message", "--error-message", help="What went wrong (with --status error)."),
    Param("error_type", "--error-type",
          help="AGENT_NOT_FOUND, INVOCATION_FAILED, TIMEOUT, PARSE_ERROR, VALIDATION_ERROR or "
          "UNKNOWN (default for errors)"),
    Param("feedback", "--feedback",
          help="A person's words for the agent, with their choice (request_changes when "
          "--response names none)."),
    Param("resume", "--resume", kind="flag",
          help="Then continue the run in this process, as the command that stopped would "
          "with --resume (its exit code, 42 again when it waits once more)."),
    JSON,
)  # fmt: skip
def respond(
    status: str,
    directory: Path | None,
    response: str | None,
    response_file: Path | None,
    error_message: str | None,
    error_type: str | None,
    feedback: str | None,
    resume: bool,
    json_out: bool,
) -> None:
    """Write .agent-response.json bound to the pending request (atomically), and with
    --resume continue the run: the whole host step in one process."""
    from executor import console
    from executor.cli import common

    def body() -> int:
        from executor.bridge.host import forged_resume, resolve_dir, resume_argv, write_response
        from executor.runfiles import REQUEST_NAME

        folder = resolve_dir(directory)
        target, req = write_response(
            folder,
            status=status,
            response=response,
            response_file=response_file,
            error_message=error_message,
            error_type=error_type,
            feedback=feedback,
        )
        if resume:
            import shlex

            from executor.cli.app import run_app

            argv = resume_argv(folder, req)
            forged = forged_resume(req, argv)
            if forged is not None:
                console.err(
                    f"warning: {folder / REQUEST_NAME} names another command to continue "
                    f"the run (executor {shlex.join(forged)}); it is not run: the saved "
                    f"run's command continues it (executor {shlex.join(argv)})."
                )
            return run_app([*argv, "--json"] if json_out and "--json" not in argv else argv)
        if json_out:
            console.out_json({"response_file": str(target), "status": status})
        else:
            console.out(f"Wrote {target}; now re-run the executor command with --resume.")
        return 0

    common.run(body, json_output=json_out)


@bridge(
    "validate",
    Param("file", kind="path",
          help="A request or response file (default: the response file, else the request "
          "file, in the folder --dir picks)."),
    DIR,
    JSON,
)  # fmt: skip
def validate(file: Path | None, directory: Path | None, json_out: bool) -> None:
    """Check a request or response file; field-level messages when invalid."""
    from executor import console
    from executor.cli import common

    def body() -> int:
        from executor.bridge.host import validate

        kind, path = validate(file, directory)
        if json_out:
            console.out_json({"file": str(path), "kind": kind, "valid": True})
        else:
            console.out(f"{path}: valid {kind} file")
        return 0

    common.run(body, json_output=json_out)
