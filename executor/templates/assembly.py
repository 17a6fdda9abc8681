"""Phase 8: write the template folder, verify it, and move it into place in one step.

Everything is written into a hidden sibling of the destination
(`.<name>.<pid>.partial`), verified there (`verify_template`: a template that does not
reproduce its source is never installed), and renamed onto the destination. Replacing
an existing template (`force`) moves the old one aside first and puts it back if the
rename fails. Where templates go by default: `default_destination`.

What may be replaced (`check_destination`, run by the workflow at startup and again
here): never the codebase itself or a folder that holds it, whatever the options; with
`force`, only a folder that is a template of ours (`loading.is_template`). A new folder
inside the codebase is fine (`--output-location repo` puts it there; the scan skips it).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from executor import fsutil
from executor.datamodel import dump
from executor.errors import DestinationOverlapError, OverwriteRefusedError, TemplateSaveError
from executor.templates.loading import is_template
from executor.templates.models import Manifest, Settings, TemplateSet, Written
from executor.templates.paths import safe_relative
from executor.templates.verify import validation_report, verify_template


def check_destination(dest: Path, *, codebase: Path | None, force: bool) -> None:
    """Refuse a destination the template must not replace (see the module docstring):
    DestinationOverlapError (exit 64) for the codebase or a folder holding it,
    OverwriteRefusedError (exit 6) for a file, a folder that is not a template of ours
    (even with `force`), or a template of ours without `force`."""
    dest = Path(dest).absolute()
    if codebase is not None:
        real, root = dest.resolve(), Path(codebase).resolve()
        if real == root or real in root.parents:
            what = "is the codebase" if real == root else f"holds the codebase {root}"
            raise DestinationOverlapError(
                f"the template destination {dest} {what}; a template is written to a folder "
                "of its own: choose another --output",
                path=dest,
                codebase=root,
            )
    if not os.path.lexists(dest):
        return
    if not dest.is_dir():
        raise OverwriteRefusedError(
            f"{dest} exists and is a file, not a template folder; choose another --output",
            path=dest,
            conflicts=[str(dest)],
        )
    if not is_template(dest):
        raise OverwriteRefusedError(
            f"{dest} exists and is not a template made by template-create (no manifest.json "
            "of ours): it is not replaced, even with --force; choose another --output, or "
            "move it away yourself",
            path=dest,
            conflicts=[str(dest)],
        )
    if not force:
        raise OverwriteRefusedError(
            f"template already exists: {dest} (use --force to replace it)",
            path=dest,
            conflicts=[str(dest)],
        )


def template_files(
    *,
    manifest: Manifest,
    settings: Settings,
    templates: TemplateSet,
    agent_files: Mapping[str, str],
    claude_md: str,
) -> dict[str, str]:
    """Relative path -> content of every file of the template folder."""
    files = {
        "manifest.json": fsutil.dumps_json(dump(manifest)),
        "settings.json": fsutil.dumps_json(dump(settings)),
        "CLAUDE.md": claude_md,
        **{e.file.template_path: e.text for e in templates.entries},
        **agent_files,
    }
    for rel in files:
        if not safe_relative(rel):
            raise TemplateSaveError(
                f"refusing to write outside the template: {rel!r}", path=Path(rel)
            )
    return files


def _write_all(folder: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        fsutil.atomic_write_bytes(path, text.encode("utf-8"), fault="template")


def _swap_into_place(partial: Path, dest: Path) -> None:
    if dest.exists():
        old = dest.parent / f".{dest.name}.{os.getpid()}.old"
        shutil.rmtree(old, ignore_errors=True)
        os.replace(dest, old)
        try:
            os.replace(partial, dest)
        except OSError:
            os.replace(old, dest)
            raise
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(partial, dest)
    fsutil.fsync_dir(dest.parent)


def assemble_template(
    dest: Path,
    files: Mapping[str, str],
    *,
    source: Path | None = None,
    force: bool = False,
    validate: bool = False,
) -> Written:
    """Write `files` (see `template_files`) as the template folder `dest`.

    Raises what `check_destination` raises (`source` is the codebase), then
    TemplateValidationError when the round trip fails (nothing is installed), and
    TemplateSaveError when writing fails. `validate` adds validation-report.md.
    """
    dest = Path(dest).absolute()
    check_destination(dest, codebase=source, force=force)
    partial = dest.parent / f".{dest.name}.{os.getpid()}.partial"
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        _write_all(partial, files)
        report = verify_template(partial, source=source, shown_as=dest)
        written = dict(files)
        if validate:
            written["validation-report.md"] = validation_report(report, name=dest.name)
            _write_all(partial, {"validation-report.md": written["validation-report.md"]})
        _swap_into_place(partial, dest)
    except OSError as e:
        raise TemplateSaveError(f"cannot write the template to {dest}: {e}", path=dest) from e
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    report.template_dir = str(dest)
    return Written(path=str(dest), files=sorted(written), report=report)
