"""`executor report`: the run's review written as an HTML page and as markdown.

With no file named, both go beside the plan's state, in `.agent-reports/` (hidden from
git like every file of the run's: never in a commit, kept by a rollback):
`report.html` and `report.md`, or `phase-N.html` and `phase-N.md` for one phase.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from executor import fsutil
from executor.engine.layout import Layout
from executor.errors import PathNotFoundError
from executor.workflows.tdd.review.build import review
from executor.workflows.tdd.review.markdown import markdown
from executor.workflows.tdd.review.model import RunReview
from executor.workflows.tdd.review.page import page


@dataclass
class Written:
    run: RunReview
    html: Path | None
    md: Path | None

    @property
    def paths(self) -> list[Path]:
        return [p for p in (self.html, self.md) if p is not None]


def default_paths(named: Path, phase: int | None) -> tuple[Path, Path]:
    folder = Layout(named if named.is_dir() else named.parent).reports
    stem = f"phase-{phase}" if phase is not None else "report"
    return folder / f"{stem}.html", folder / f"{stem}.md"


def write_report(
    named: Path,
    *,
    phase: int | None = None,
    html: Path | None = None,
    md: Path | None = None,
    run: RunReview | None = None,
) -> Written:
    """Write the review of the run of `named` (of `phase`) to `html` and `md`; with
    neither given, both, beside the state. `run`: the review, when already built."""
    for given in (html, md):
        if given is not None and not given.parent.is_dir():
            raise PathNotFoundError(
                f"{given.parent} is not a folder: nowhere to write {given.name}", path=given.parent
            )
    run = run if run is not None else review(named, phase=phase)
    if html is None and md is None:
        html, md = default_paths(named, phase)
        layout = Layout(named if named.is_dir() else named.parent)
        fsutil.ensure_private_dir(html.parent, inside=layout.folder)
    for path, body in ((html, page(run) if html else ""), (md, markdown(run) if md else "")):
        if path is not None:
            fsutil.atomic_write_text(path, body, fault="report")
    return Written(run, html, md)
