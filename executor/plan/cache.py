"""The parsed-plan cache: a resume never re-parses an unchanged plan.

`.agent-plan-cache.json` beside the run's state (hidden like it). Its key is the sha256
of the plan's markdown files, the format asked for, the project test command and the
tool version. The file is one index line (the outline, the phases, and where each
session's JSON starts in the file), then one line per session: a hit reads the index
and decodes only the sessions the run touches, so a resume costs the same for 4
sessions as for 1,000. A miss parses and lints (importing the readers only then), and
rewrites the cache if the plan is valid. The cache is only ever a copy: deleting it is
always safe.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

from executor import __version__, fsutil
from executor.datamodel import DataError, Strict, validate_json
from executor.errors import PlanInvalidError
from executor.plan.models import Outline, Plan, Session
from executor.words import plural

CACHE_NAME = ".agent-plan-cache.json"
_VERSION = 5


class CacheIndex(Strict):
    """The first line of the cache: what the schedule needs, and where each session is."""

    key: str
    name: str
    folder: str
    format: str
    phases: dict[int, str]
    outline: list[Outline]
    #: session number -> (offset, length) of its JSON line after the index
    at: dict[int, tuple[int, int]]


class CachedPlan:
    """A valid plan read from the cache: the outline at once, sessions on demand, from
    the bytes read once (another run may replace the file meanwhile: its offsets are not
    ours)."""

    def __init__(self, data: bytes, index: CacheIndex, offset: int) -> None:
        self._data = data
        self._index = index
        self._offset = offset
        self._sessions: dict[int, Session] = {}
        self.name = index.name
        self.folder = Path(index.folder)
        self.format = index.format

    def outline(self) -> list[Outline]:
        return list(self._index.outline)

    def phase_names(self) -> dict[int, str]:
        return dict(self._index.phases)

    def session(self, number: int) -> Session | None:
        if number not in self._sessions:
            where = self._index.at.get(number)
            if where is None:
                return None
            start = self._offset + where[0]
            self._sessions[number] = validate_json(Session, self._data[start : start + where[1]])
        return self._sessions[number]

    def sessions(self) -> list[Session]:
        found = (self.session(o.number) for o in self._index.outline)
        return [s for s in found if s is not None]


PlanView = Plan | CachedPlan


def plan_files(path: Path) -> list[Path]:
    """The files a plan at `path` can be read from: the file, or the folder's markdown."""
    path = Path(path)
    if path.is_file():
        return [path]
    return sorted(p for p in [*path.glob("*.md"), path / "tasks.json"] if p.is_file())


def cache_key(path: Path, fmt: str | None, test_command: str | None, tag: str | None = None) -> str:
    digest = hashlib.sha256(f"{_VERSION}|{__version__}|{fmt}|{tag}|{test_command}|".encode())
    for f in plan_files(path):
        digest.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()


def load_valid(
    path: Path,
    *,
    cache: Path,
    fmt: str | None = None,
    test_command: str | None = None,
    tag: str | None = None,
) -> PlanView:
    """The plan at `path`, valid (else PlanInvalidError listing file:line errors); `tag`
    picks a Task Master tag."""
    path = Path(path).absolute()
    key = cache_key(path, fmt, test_command, tag)
    hit = _read(cache, key)
    if hit is not None:
        return hit
    from executor.plan import lint, load_plan

    plan = load_plan(path, fmt, tag)
    errors = [d for d in lint(plan, project_test_command=test_command) if d.severity == "error"]
    if errors:
        raise PlanInvalidError(
            f"the plan has {plural(len(errors), 'error')}; fix them (or run "
            f"`executor plan validate {fsutil.quote(path)}`):\n"
            + "\n".join(str(d) for d in errors),
            path=errors[0].path,
            line=errors[0].line,
        )
    _write(cache, key, plan)
    return plan


def _read(cache: Path, key: str) -> CachedPlan | None:
    """The cached plan when its key is `key`; None for anything else (the cache is
    only a copy: a miss parses the plan)."""
    try:
        data = cache.read_bytes()
        first = data[: data.find(b"\n") + 1]
        index = validate_json(CacheIndex, first)
    except (OSError, DataError):
        return None
    return CachedPlan(data, index, len(first)) if index.key == key else None


def _write(cache: Path, key: str, plan: Plan) -> None:
    body = bytearray()  # one growing copy of the sessions' lines (36 MB for 10,000)
    at: dict[int, tuple[int, int]] = {}
    for s in plan.sessions():
        data = s.model_dump_json().encode()
        at[s.number] = (len(body), len(data))
        body += data
        body += b"\n"
    index = CacheIndex(
        key=key, name=plan.name, folder=str(plan.folder), format=plan.format,
        phases=plan.phase_names(), outline=plan.outline(), at=at,
    )  # fmt: skip
    body[:0] = index.model_dump_json().encode() + b"\n"
    with contextlib.suppress(OSError):  # only a copy: the next run parses again
        fsutil.atomic_write_bytes(cache, body, fault="plan_cache")
