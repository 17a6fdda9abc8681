"""Drive `executor template-create` in-process: the real runner, store and bridge files;
a host loop that answers each exit-42 request as `executor bridge respond` would."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from executor.bridge.host import show_pending, write_response
from executor.errors import NeedAgent
from executor.workflows.template_create.context import TemplateResult
from executor.workflows.template_create.run import TemplateOptions, create_template
from tests.templates.helpers import CREATED_AT, tree_bytes

GOLDEN = Path(__file__).parent / "golden"
Request = dict[str, Any]
#: (status, response text or error message) for one request
Answer = Callable[[Request], tuple[str, str]]


def step_of(request: Request) -> str:
    """`analysis` or `agents`: which of the workflow's two requests this is."""
    return str(request["context"]["step"])


def read_brief(request: Request) -> str:
    return Path(str(request["prompt_file"])).read_text("utf-8")


@dataclass
class Run:
    """One template-create run (with its resumes) and what it said."""

    result: TemplateResult | None = None
    requests: list[Request] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    #: the state file's checkpoint at each exit 42
    checkpoints: list[str] = field(default_factory=list)


def options(codebase: Path, dest: Path, **kw: Any) -> TemplateOptions:
    """Options for a run that writes the template to `dest` (no backoff sleeps)."""
    kw.setdefault("cwd", dest.parent)
    return TemplateOptions(path=codebase, output=dest, backoff=0.0, **kw)


def run_once(opts: TemplateOptions, run: Run | None = None) -> TemplateResult:
    run = run or Run()
    return create_template(opts, report=run.lines.append)


def host(opts: TemplateOptions, answer: Answer, *, rounds: int = 12) -> Run:
    """Run, answer every request with `answer`, re-run with --resume, until it ends."""
    run = Run()
    for _ in range(rounds):
        try:
            run.result = create_template(opts, report=run.lines.append)
            return run
        except NeedAgent as need:
            state = json.loads((opts.path / ".template-create-state.json").read_text("utf-8"))
            assert state["agent_request_pending"]["request_id"] == need.request_id
            run.checkpoints.append(state["checkpoint"])
        request = show_pending(opts.path)
        run.requests.append(request)
        respond(opts.path, *answer(request))
        opts.resume = True
    raise AssertionError("the host loop did not end")


def respond(folder: Path, status: str, text: str) -> None:
    """Answer the pending request in `folder` as `executor bridge respond` does."""
    ok = status == "success"
    write_response(
        folder,
        status=status,
        response=text if ok else None,
        response_file=None,
        error_message=None if ok else text,
        error_type=None,
    )


def made(dest: Path, source: Path) -> dict[str, bytes]:
    """The template folder as the golden files store it (source path and date fixed)."""
    marker = str(source.resolve()).encode()
    out = {}
    for rel, data in tree_bytes(dest).items():
        data = data.replace(marker, b"<SOURCE>")
        if rel == "manifest.json":
            data = re.sub(rb'"created_at": "[^"]*"', f'"created_at": "{CREATED_AT}"'.encode(), data)
        out[rel] = data
    return out


def golden(case: str) -> dict[str, bytes]:
    return tree_bytes(GOLDEN / case)
