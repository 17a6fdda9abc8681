"""template-apply: render a template folder into a new project.

Values: what the user sets (`--set Name=Value`), else computed from the placeholder it
derives from when that one was set (`ProjectName=InventoryHub` gives
`ProjectNameSnake=inventory_hub`), else the manifest default. Every value must match its
placeholder's pattern, so a value cannot smuggle `/` or `..` into a path. Everything is
rendered before the first file is written; existing files are never overwritten unless
`force` is given.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from executor import fsutil
from executor.errors import (
    OverwriteRefusedError,
    PathNotFoundError,
    TemplateSaveError,
    TemplateValidationError,
)
from executor.templates.loading import load_manifest
from executor.templates.models import Written
from executor.templates.paths import default_destination, safe_relative
from executor.templates.render import render
from executor.templates.values import resolve_values

SHOWN_CONFLICTS = 5


def locate_template(
    ref: str, *, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """A template folder from a path, else a name under ./templates/ or the per-user
    templates folder. PathNotFoundError lists where it looked."""
    cwd = Path(cwd) if cwd is not None else Path.cwd()
    candidates = [cwd / Path(ref).expanduser()]
    if safe_relative(ref) and "/" not in ref:
        candidates += [
            default_destination(ref, location="repo", cwd=cwd),
            default_destination(ref, location="global", env=env),
        ]
    for folder in candidates:
        if (folder / "manifest.json").is_file():
            return folder
    looked = ", ".join(str(c) for c in dict.fromkeys(candidates))
    raise PathNotFoundError(f"template not found: {ref} (looked in {looked})", path=candidates[0])


def apply_template(
    template_dir: Path, dest: Path, values: Mapping[str, str], force: bool = False
) -> Written:
    """Render `template_dir` into `dest`. Raises TemplateValidationError (bad template),
    TemplateValueError (bad value), OverwriteRefusedError (files exist, no `force`) and
    TemplateSaveError (writing failed)."""
    root, dest = Path(template_dir), Path(dest).absolute()
    manifest = load_manifest(root)
    vals = resolve_values(manifest, values, path=root / "manifest.json")
    rendered: dict[str, tuple[bytes, bool]] = {}
    for t in manifest.templates:
        where = root / t.template_path
        try:
            text = where.read_bytes().decode("utf-8")
            out = render(t.output_path, vals)
            content = render(text, vals).encode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise TemplateValidationError(f"cannot read template {where}: {e}", path=where) from e
        except KeyError as e:
            raise TemplateValidationError(
                f"{where} uses {{{{{e.args[0]}}}}}, which manifest.json does not declare",
                path=where,
            ) from None
        if not safe_relative(out) or out in rendered:
            raise TemplateValidationError(
                f"{where} renders to {out!r}: not a new relative path", path=where
            )
        rendered[out] = (content, t.executable)
    if dest.exists() and not dest.is_dir():
        raise TemplateSaveError(f"destination is a file, not a folder: {dest}", path=dest)
    conflicts = [rel for rel in rendered if (dest / rel).exists()]
    if conflicts and not force:
        shown = ", ".join(conflicts[:SHOWN_CONFLICTS])
        more = (
            f" and {len(conflicts) - SHOWN_CONFLICTS} more"
            if len(conflicts) > SHOWN_CONFLICTS
            else ""
        )
        raise OverwriteRefusedError(
            f"{dest}: {len(conflicts)} file(s) exist already ({shown}{more}); "
            "use --force to overwrite them",
            path=dest,
            conflicts=conflicts,
        )
    for rel, (content, executable) in rendered.items():
        path = dest / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fsutil.atomic_write_bytes(path, content, fault="apply")
            if executable:
                os.chmod(path, path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        except OSError as e:
            raise TemplateSaveError(f"cannot write {path}: {e}", path=path) from e
    return Written(path=str(dest), files=sorted(rendered))
