"""Which runs of a repository are waiting, read from their files (for the Claude Code hooks).

A run keeps its files in its run folder, never in the current directory, so a hook finds
the folders from Claude Code's `cwd`: those the repository's `info/exclude` names (every
run adds its line before its first request), the same in each worktree of a parallel run,
the places plans are found in, and the request a `NEED_AGENT` line names
(docs/claude-code.md, "Which run is "this repository's run""). A request waits when no
live process holds its run's lock. Only the standard library is imported until a request
file is there to read.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from executor.fsutil import lock_held

if TYPE_CHECKING:
    from executor.bridge.models import AgentRequest

#: The run files looked for (`executor.bridge.protocol`, `executor.engine.layout`,
#: `executor.bridge.template_state` name them; a test keeps these equal).
REQUEST_NAME = ".agent-request.json"
RESPONSE_NAME = ".agent-response.json"
STATE_NAME = ".agent-state.json"
#: The most of a state file read (`executor.store.STATE_LIMIT`).
STATE_LIMIT = 256 << 20
LOCK_NAMES = (".agent-state.lock", ".template-create-state.lock")
#: Where a parallel run's sessions have their worktrees (`executor.workflows.tdd.parallel`).
WORKTREES = ".executor-worktrees"
#: Where plans live, relative to the repository's top (`executor.plan.discover.PLACES`,
#: as folders: a file plan's run folder is the file's folder).
PLAN_PLACES = (
    "project-plans/*/",
    "docs/plans/",
    "docs/superpowers/plans/",
    "specs/*/",
    ".kiro/specs/*/",
    ".taskmaster/tasks/",
    "tasks/",
)
#: The exclude line a run writes for its folder: `/<folder>/.agent-*`, `/.agent-*` at the top.
_EXCLUDE_RE = re.compile(r"^/(?P<rel>(?:.*/)?)\.agent-\*$")
#: A request file named on a NEED_AGENT line of the executor's output.
_NAMED_RE = re.compile(r"NEED_AGENT: .*? in (?P<path>/.+?/\.agent-request\.json)")


class Pending(NamedTuple):
    """A request a run waits for: `answered` when a response for it is already written
    (only the `--resume` that consumes it is missing). (Records of this module are not
    dataclasses: the Stop hook runs at every turn and imports this.)"""

    folder: Path
    request: AgentRequest
    answered: bool = False
    #: answered: the command that continues the run, as the run saved it (never the
    #: request file's copy: `executor.bridge.saved`); None when none is saved
    resume: list[str] | None = None

    @property
    def human(self) -> bool:
        return self.request.agent_name == "human"


class PausedRun(NamedTuple):
    """A plan run its person paused: the session and the state's own note."""

    folder: Path
    session: int | None
    notes: str
    #: the subcommand that continues the run as its last command ran it (none: older)
    scope: Sequence[str] = ()


class Scan:
    """What waits in the folders looked at, and the files that could not be read."""

    def __init__(self, folders: list[Path]) -> None:
        self.folders = folders
        self.pending: list[Pending] = []
        self.paused: list[PausedRun] = []
        self.problems: list[str] = []


def repository_top(start: Path) -> Path | None:
    """The top of the git working tree containing `start` (a `.git` folder or file)."""
    start = Path(start).absolute()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def exclude_file(top: Path) -> Path:
    """The repository's `info/exclude` (in the common git folder of a linked worktree)."""
    dot_git = top / ".git"
    git_dir = dot_git
    if dot_git.is_file():  # a linked worktree or a submodule: `gitdir: <path>`
        text = _small_text(dot_git)
        git_dir = (top / text.removeprefix("gitdir:").strip()).resolve()
        common = git_dir / "commondir"
        if common.is_file():
            git_dir = (git_dir / _small_text(common)).resolve()
    return git_dir / "info" / "exclude"


def _small_text(path: Path, limit: int = 1 << 20) -> str:
    """A small file git keeps, read through the bounded reader ("" when it cannot be)."""
    from executor.errors import DataError
    from executor.safe_read import read_bounded

    try:
        return read_bounded(path, limit).decode("utf-8", "replace").strip()
    except (OSError, DataError):
        return ""


def recorded_folders(top: Path) -> list[Path]:
    """The run folders the repository's `info/exclude` names (existing ones)."""
    lines = _small_text(exclude_file(top)).splitlines()
    found = []
    for line in lines:
        m = _EXCLUDE_RE.match(line.strip())
        if m:
            rel = m.group("rel").rstrip("/")
            for folder in [top / rel, *sorted((top / WORKTREES).glob(f"*/{rel}".rstrip("/")))]:
                if folder.is_dir():
                    found.append(folder)
    return found


def named_folders(output: str) -> list[Path]:
    """The folders of the request files NEED_AGENT lines in `output` name."""
    return [Path(m.group("path")).parent for m in _NAMED_RE.finditer(output)]


def run_folders(
    cwd: Path, *, project_dir: Path | None = None, named: Iterable[Path] = ()
) -> list[Path]:
    """Every folder a run of the repository containing `cwd` (or `project_dir`) may keep
    its files in, each once: named ones first, then recorded ones, then the usual places."""
    folders: list[Path] = [*named]
    for start in dict.fromkeys(p for p in (cwd, project_dir) if p is not None):
        top = repository_top(start)
        base = top or Path(start).absolute()
        if top is not None:
            folders += recorded_folders(top)
        folders.append(base)
        for place in PLAN_PLACES:
            folders += sorted(p for p in base.glob(place) if p.is_dir())
        if top is None:
            folders.append(Path(start).absolute())
    seen: dict[Path, Path] = {}
    for folder in folders:
        with contextlib.suppress(OSError):
            seen.setdefault(folder.resolve(), folder.resolve())
    return list(seen.values())


def busy(folder: Path) -> bool:
    """Whether a live process holds a run lock in `folder` (the holder writes `pid@host`
    into it while it holds it, and empties it when it lets go)."""
    return any(lock_held(folder / name) for name in LOCK_NAMES)


def scan(folders: Sequence[Path], *, paused: bool = False) -> Scan:
    """The requests waiting in `folders` (newest first), and with `paused`, the plan
    runs paused there. A file that cannot be read is a problem line, not an error."""
    result = Scan(folders=list(folders))
    found: list[tuple[float, Pending]] = []
    for folder in folders:
        request_file = folder / REQUEST_NAME
        try:
            mtime = request_file.stat().st_mtime
        except OSError:
            mtime = None
        if mtime is not None and not busy(folder):
            try:
                found.append((mtime, _pending(folder, result.problems)))
            except Exception as e:  # a torn or foreign file: say so, block nothing
                result.problems.append(f"cannot read {request_file}: {_one_line(e)}")
                continue
        if paused and mtime is None and (folder / STATE_NAME).exists() and not busy(folder):
            try:
                run = _paused(folder, result.problems)
            except Exception as e:
                result.problems.append(f"cannot read {folder / STATE_NAME}: {_one_line(e)}")
                continue
            if run is not None:
                result.paused.append(run)
    result.pending = [p for _, p in sorted(found, key=lambda item: -item[0])]
    return result


def _pending(folder: Path, problems: list[str]) -> Pending:
    from executor.bridge.reading import MAX_RESPONSE_BYTES, parse_response, read_request

    request = read_request(folder / REQUEST_NAME)
    answered = False
    response = folder / RESPONSE_NAME
    data = read_run_file(response, MAX_RESPONSE_BYTES, problems)
    with contextlib.suppress(Exception):  # no answer, or one `--resume` will reject
        answered = parse_response(data or b"", path=response).request_id == request.request_id
    resume = None
    if answered:
        from executor.bridge.saved import saved_resume

        resume = saved_resume(folder, request.request_id)
    return Pending(folder=folder, request=request, answered=answered, resume=resume)


def read_run_file(path: Path, limit: int, problems: list[str]) -> bytes | None:
    """The bytes of a file of a run folder, read through the bounded reader (anything
    can be put there: a FIFO would block the hook, a link to /dev/zero fill its memory);
    None when it is absent, or (said in `problems`) cannot be read as a regular file."""
    from executor.errors import DataError
    from executor.safe_read import read_bounded, said

    try:
        return read_bounded(path, limit)
    except FileNotFoundError:
        return None
    except DataError as e:
        problems.append(f"cannot read {path}: {said(e)}")
        return None


def _paused(folder: Path, problems: list[str]) -> PausedRun | None:
    from executor.claude.models import SeedView
    from executor.datamodel import validate_json

    data = read_run_file(folder / STATE_NAME, STATE_LIMIT, problems)
    if data is None:
        return None
    seed = validate_json(SeedView, data)
    if seed.status != "paused":
        return None
    return PausedRun(
        folder=folder, session=seed.current_session, notes=seed.notes, scope=seed.run.scope
    )


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text[:300]
