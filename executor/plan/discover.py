"""`discover_plan(cwd)`: find the one plan a command should run when none is named.

Looked at, in this order: the current folder itself (PHASE files, PROJECT_PLAN.md,
tasks.md or tasks.json in it), `project-plans/*/`, `docs/plans/*.md`,
`docs/superpowers/plans/*.md`, `specs/*/tasks.md`, `.kiro/specs/*/tasks.md`,
`.taskmaster/tasks/tasks.json` and `tasks/tasks.json`. Markdown files in the docs
folders (and tasks.json files) count only when they read as a plan (design notes beside
them do not). Exactly one plan: its path. Several or none: a UserError naming what was
found and what to do.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from executor.errors import UserError
from executor.plan.formats import detect_text, is_plan_file_name

PLACES = (
    "project-plans/*/",
    "docs/plans/*.md",
    "docs/superpowers/plans/*.md",
    "specs/*/tasks.md",
    ".kiro/specs/*/tasks.md",
    ".taskmaster/tasks/tasks.json",
    "tasks/tasks.json",
)


def find_plans(cwd: Path) -> list[Path]:
    """Every plan `discover_plan` would consider (the current folder alone when it is one)."""
    cwd = Path(cwd).absolute()
    if is_plan_folder(cwd):
        return [cwd]
    return [
        *(d for d in sorted(cwd.glob("project-plans/*/")) if is_plan_folder(d)),
        *(f for f in sorted(cwd.glob("docs/plans/*.md")) if _reads_as_plan(f)),
        *(f for f in sorted(cwd.glob("docs/superpowers/plans/*.md")) if _reads_as_plan(f)),
        *(f for f in sorted(cwd.glob("specs/*/tasks.md")) if f.is_file()),
        *(f for f in sorted(cwd.glob(".kiro/specs/*/tasks.md")) if f.is_file()),
        *(f for f in (cwd / ".taskmaster/tasks/tasks.json", cwd / "tasks/tasks.json")
          if f.is_file() and _reads_as_plan(f)),
    ]  # fmt: skip


def discover_plan(cwd: Path) -> Path:
    """The plan folder or file under `cwd`, else under the nearest folder above it (up to
    the repository's top) that has one; UserError when there are none or several."""
    cwd = where = Path(cwd).absolute()
    found = find_plans(cwd)
    top = next((d for d in (cwd, *cwd.parents) if (d / ".git").exists()), None)
    if not found and top is not None and top != cwd:  # only inside one repository
        for parent in cwd.parents:
            found = find_plans(parent)
            if found or parent == top:
                where = parent
                break
    if len(found) == 1:
        return found[0]
    if not found:
        places = ", ".join(PLACES)
        raise UserError(
            f"no plan found in {cwd} or above it: looked for PHASE_<n>_*.md, PROJECT_PLAN.md, "
            f"tasks.md or tasks.json there and in {places}; name the plan to run (e.g. --plan "
            f"path/to/plan)"
        )
    listed = "\n".join(f"  {p.relative_to(where)}" for p in found)
    raise UserError(
        f"{len(found)} plans found in {where}; name the one to run (e.g. --plan PATH):\n{listed}"
    )


def is_plan_text(rel: str, text: str) -> bool:
    """Whether `text`, a file at `rel` in a project, is a plan a command would run: a plan
    file by its name or one of the files `PLACES` names, that reads as a plan."""
    path = PurePosixPath(rel)
    named = is_plan_file_name(path.name) or any(
        path.match(place) for place in PLACES if not place.endswith("/")
    )
    return named and detect_text(text, path.name) is not None


def is_plan_folder(folder: Path) -> bool:
    if not folder.is_dir():
        return False
    return any(is_plan_file_name(p.name) for p in folder.iterdir() if p.is_file())


def _reads_as_plan(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return detect_text(text, path.name) is not None
