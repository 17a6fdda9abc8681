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
import re
import stat
from collections.abc import Mapping
from pathlib import Path

from executor import fsutil
from executor.errors import (
    OverwriteRefusedError,
    PathNotFoundError,
    TemplateSaveError,
    TemplateValidationError,
    TemplateValueError,
)
from executor.templates.assembly import default_destination
from executor.templates.loading import load_manifest
from executor.templates.models import Manifest, Written
from executor.templates.placeholders import derive
from executor.templates.render import render
from executor.templates.verify import safe_relative

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


def resolve_values(
    manifest: Manifest, values: Mapping[str, str], *, path: Path = Path("manifest.json")
) -> dict[str, str]:
    """Every placeholder's value; TemplateValueError for an unknown name or a bad value,
    TemplateValidationError (naming `path`) for a derivation cycle in the manifest."""
    declared = manifest.placeholders
    for name, value in values.items():
        if name not in declared:
            known = ", ".join(declared) or "none"
            raise TemplateValueError(
                f"unknown placeholder {name!r}: this template declares {known}", name=name
            )
        p = declared[name]
        if not re.fullmatch(p.pattern, value):
            raise TemplateValueError(
                f"{name}={value!r} does not match {p.pattern} (the default is {p.default!r})",
                name=name,
            )
    resolved: dict[str, tuple[str, bool]] = {}

    def value_of(name: str, seen: tuple[str, ...]) -> tuple[str, bool]:
        if name in resolved:
            return resolved[name]
        p = declared.get(name)
        if p is None or name in seen:
            raise TemplateValidationError(
                f"placeholder {seen[-1]} derives from {name}, which is "
                + ("undeclared" if p is None else "part of a cycle"),
                path=path,
            )
        if name in values:
            out = (values[name], True)
        elif p.derived_from and (base := value_of(p.derived_from, (*seen, name)))[1]:
            computed = derive(p, base[0])
            if not re.fullmatch(p.pattern, computed):
                raise TemplateValueError(
                    f"{name} computed from {p.derived_from}={base[0]!r} is {computed!r}, which "
                    f"does not match {p.pattern}; set {name} too",
                    name=name,
                )
            out = (computed, True)
        else:
            out = (p.default, False)
        resolved[name] = out
        return out

    return {name: value_of(name, ())[0] for name in declared}


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
