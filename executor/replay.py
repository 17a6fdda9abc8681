"""The replay agent: a deterministic stand-in for an AI agent, for demos and tests.

It is NOT an AI: for a (session, TDD step, attempt) it copies prepared files from a
solutions folder into the repository, so the whole engine can be exercised with no model
and no network (layout: docs/replay-agent.md). Only the standard library and our own
light modules are imported: it runs once per step, so its start-up is paid every step.
"""

from __future__ import annotations

import json
import os
import select
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from executor.errors import PathNotFoundError, ReplayError
from executor.fsutil import atomic_write_bytes

STEPS = ("red", "green", "refactor", "other")
DELETE_SUFFIX = ".__delete__"
#: Folders that may appear in a solutions tree but are never replayed.
_IGNORED_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
#: How long to wait for more prompt text on stdin before giving up on it (seconds).
_STDIN_IDLE = 0.5


@dataclass(frozen=True)
class ReplayTarget:
    """What to replay: the session number, the TDD step and the attempt (1-based)."""

    session: int
    step: str
    attempt: int = 1

    def __post_init__(self) -> None:
        if self.session < 1:
            raise ReplayError(f"session must be a positive number, got {self.session}")
        if self.step not in STEPS:
            raise ReplayError(f"tdd step must be one of {', '.join(STEPS)}; got {self.step!r}")
        if self.attempt < 1:
            raise ReplayError(f"attempt must be a positive number, got {self.attempt}")


@dataclass
class ReplayResult:
    """What one replay did; `source` is None when nothing was prepared."""

    target: ReplayTarget
    source: Path | None = None
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    already_absent: list[str] = field(default_factory=list)

    def report(self) -> str:
        """The one-paragraph report printed on stdout (the agent's response text)."""
        where = f"session {self.target.session} {self.target.step}"
        if self.source is None:
            return f"replay-agent (not an AI): nothing prepared for {where}; no changes"
        if self.source.name.endswith(f"@{self.target.attempt}"):
            where += f" (attempt {self.target.attempt} override)"
        parts: list[str] = []
        if self.written:
            parts.append("wrote " + ", ".join(self.written))
        if self.deleted:
            parts.append("deleted " + ", ".join(self.deleted))
        if self.already_absent:
            parts.append("already absent " + ", ".join(self.already_absent))
        return f"replay-agent (not an AI): {where}: " + ("; ".join(parts) or "no files; no changes")


# -- where the target comes from -------------------------------------------------------


def _int_field(value: object, name: str, origin: str) -> int:
    if isinstance(value, bool):
        raise ReplayError(f"{origin}: {name} must be a whole number, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise ReplayError(f"{origin}: {name} must be a whole number, got {value!r}")


def target_from_env(env: Mapping[str, str]) -> ReplayTarget:
    """Read EXECUTOR_SESSION, EXECUTOR_TDD_STEP, EXECUTOR_ATTEMPT (the --agent-command contract)."""
    missing = [v for v in ("EXECUTOR_SESSION", "EXECUTOR_TDD_STEP") if not env.get(v)]
    if missing:
        raise ReplayError(
            f"{' and '.join(missing)} not set: the replay agent runs as the executor's "
            "--agent-command (which sets them) or with --request FILE"
        )
    return ReplayTarget(
        session=_int_field(env["EXECUTOR_SESSION"], "EXECUTOR_SESSION", "environment"),
        step=env["EXECUTOR_TDD_STEP"].strip().lower(),
        attempt=_int_field(env.get("EXECUTOR_ATTEMPT") or "1", "EXECUTOR_ATTEMPT", "environment"),
    )


def target_from_request(path: Path) -> ReplayTarget:
    """Read session / tdd_step / attempt from a bridge request's `context`.

    The request is written by the executor but read here as foreign input: only the
    fields we need are looked at, each problem names the file and the field.
    The attempt comes from `context.attempt`, else the top-level `attempt`, else 1.
    """
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PathNotFoundError(f"request file not found: {path}", path=path) from None
    try:
        data: Any = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ReplayError(f"{path}: not valid JSON (line {e.lineno}: {e.msg})") from None
    if not isinstance(data, dict):
        raise ReplayError(f"{path}: a request must be a JSON object")
    context = data.get("context")
    if not isinstance(context, dict):
        raise ReplayError(f"{path}: field 'context' must be an object with session and tdd_step")
    for key in ("session", "tdd_step"):
        if context.get(key) in (None, ""):
            raise ReplayError(f"{path}: field 'context.{key}' is missing")
    step = context["tdd_step"]
    if not isinstance(step, str):
        raise ReplayError(f"{path}: field 'context.tdd_step' must be a string, got {step!r}")
    attempt: object = context.get("attempt", data.get("attempt", 1))
    return ReplayTarget(
        session=_int_field(context["session"], "context.session", str(path)),
        step=step.strip().lower(),
        attempt=_int_field(1 if attempt is None else attempt, "attempt", str(path)),
    )


# -- what to copy ----------------------------------------------------------------------


def find_prepared(solutions: Path, target: ReplayTarget) -> Path | None:
    """The step folder for `target` (the attempt override first), or None."""
    session_dir = solutions / f"session-{target.session}"
    for name in (f"{target.step}@{target.attempt}", target.step):
        candidate = session_dir / name
        if candidate.is_dir():
            return candidate
    return None


def _prepared_files(folder: Path) -> list[Path]:
    """Files under `folder`, repository-relative, sorted; caches are skipped."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _IGNORED_DIRS)
        for name in files:
            if not name.endswith((".pyc", ".pyo")):
                found.append((Path(root) / name).relative_to(folder))
    return sorted(found)


def _inside(repo: Path, rel: Path) -> Path:
    """Absolute destination of `rel` in `repo`; refuses anything that leaves the repo."""
    if rel.is_absolute() or ".." in rel.parts:
        raise ReplayError(f"prepared path {rel.as_posix()!r} escapes the repository; refused")
    dest = repo / rel
    # Resolve the parent (it may be a symlinked folder). The leaf is never followed:
    # os.replace swaps a symlink at the leaf for the new file instead of writing through.
    resolved_parent = dest.parent.resolve()
    if resolved_parent != repo and repo not in resolved_parent.parents:
        raise ReplayError(
            f"prepared path {rel.as_posix()!r} would be written outside the repository "
            f"(to {resolved_parent / dest.name}); refused, nothing changed"
        )
    if dest.is_dir() and not dest.is_symlink():
        raise ReplayError(f"prepared path {rel.as_posix()!r} is a folder in the repository")
    return dest


def replay(solutions: Path, repo: Path, target: ReplayTarget) -> ReplayResult:
    """Copy the prepared files for `target` from `solutions` into `repo`.

    All destinations are validated before the first write, so a refused step leaves
    the repository untouched. Files are written atomically (a killed agent never
    leaves a torn file).
    """
    if not solutions.is_dir():
        raise PathNotFoundError(f"solutions folder not found: {solutions}", path=solutions)
    if not repo.is_dir():
        raise PathNotFoundError(f"repository folder not found: {repo}", path=repo)
    repo = repo.resolve()
    result = ReplayResult(target=target, source=find_prepared(solutions, target))
    if result.source is None:
        return result
    writes: list[tuple[Path, Path, str]] = []
    deletes: list[tuple[Path, str]] = []
    for rel in _prepared_files(result.source):
        if rel.name.endswith(DELETE_SUFFIX):
            victim = rel.with_name(rel.name[: -len(DELETE_SUFFIX)])
            deletes.append((_inside(repo, victim), victim.as_posix()))
        else:
            writes.append((result.source / rel, _inside(repo, rel), rel.as_posix()))
    for src, dest, shown in writes:
        dest.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(dest, src.read_bytes(), fault="replay")
        result.written.append(shown)
    for dest, shown in deletes:
        if dest.is_symlink() or dest.exists():
            dest.unlink()
            result.deleted.append(shown)
        else:
            result.already_absent.append(shown)
    return result


# -- the agent's stdin -----------------------------------------------------------------


def drain_stdin(stream: IO[bytes] | None, *, idle: float = _STDIN_IDLE) -> int:
    """Read and discard the prompt on stdin; return how many bytes were read.

    Never blocks for long: a terminal is not read at all, a closed or missing stdin is
    skipped, and a pipe is read until end of file or until it stays silent for `idle`
    seconds (a host that keeps stdin open without writing must not hang us).
    """
    if stream is None:
        return 0
    try:
        fd = stream.fileno()
        if os.isatty(fd):
            return 0
    except (OSError, ValueError):
        return 0
    total = 0
    while True:
        try:
            ready, _, _ = select.select([fd], [], [], idle)
        except (OSError, ValueError):  # not selectable (a regular file on some platforms)
            ready = [fd]
        if not ready:
            return total
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return total
        if not chunk:
            return total
        total += len(chunk)


def run_agent(
    *,
    solutions: Path,
    repo: Path,
    request: Path | None,
    env: Mapping[str, str],
    stdin: IO[bytes] | None = None,
) -> ReplayResult:
    """The `executor replay-agent` core: work out the target, drain stdin, replay."""
    if not solutions.is_dir():
        raise PathNotFoundError(
            f"solutions folder not found: {solutions} (expected session-<N>/<step>/ folders)",
            path=solutions,
        )
    target = target_from_request(request) if request is not None else target_from_env(env)
    drain_stdin(stdin if stdin is not None else getattr(sys.stdin, "buffer", None))
    return replay(solutions, repo, target)
