"""template-apply: render a template folder into a new project.

Everything is rendered (`render_template`) before the first file is written
(`write_rendered`), so the person can be shown what will be written. A template is
other people's files, applied with the person's rights: so every value must match its
placeholder's pattern, every `template_path` is read only inside the template folder,
and nothing is written through a `.git` folder (docs/template-create.md, "template-apply").
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from executor import fsutil
from executor.errors import (
    DataError,
    OverwriteRefusedError,
    PathNotFoundError,
    TemplateSaveError,
    TemplateValidationError,
)
from executor.plan.discover import is_plan_text
from executor.plan.ticks import cleared
from executor.safe_read import read_bounded, said
from executor.templates.loading import load_manifest
from executor.templates.models import TemplateFile, Written
from executor.templates.paths import (
    default_destination,
    git_folder_in,
    output_problem,
    safe_relative,
)
from executor.templates.render import render
from executor.templates.values import resolve_values

SHOWN_CONFLICTS = 5
#: The most templates one manifest may list (template-create writes at most 5,000).
MAX_TEMPLATES = 10_000
#: The largest template file read (template-create writes them from sources <= 512 KiB).
MAX_TEMPLATE_BYTES = 4 << 20
#: The largest file rendered, and all of them together (values make text grow).
MAX_OUTPUT_BYTES = 16 << 20
MAX_TOTAL_BYTES = 256 << 20


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


@dataclass(frozen=True)
class Rendered:
    """What template-apply will write, checked and rendered, before anything is written."""

    template: Path
    dest: Path
    #: output path (relative to `dest`) -> (content, executable)
    files: dict[str, tuple[bytes, bool]]

    @property
    def executable(self) -> list[str]:
        return [rel for rel, (_, executable) in self.files.items() if executable]


def apply_template(
    template_dir: Path, dest: Path, values: Mapping[str, str], force: bool = False
) -> Written:
    """Render `template_dir` into `dest` (`render_template`, then `write_rendered`)."""
    return write_rendered(render_template(template_dir, dest, values, force=force))


def render_template(
    template_dir: Path, dest: Path, values: Mapping[str, str], force: bool = False
) -> Rendered:
    """Everything `template_dir` renders to in `dest`, checked; nothing is written.

    Raises TemplateValidationError (a bad template: unreadable, a path leaving it or
    going through `.git`, over a cap), TemplateValueError (a bad value),
    OverwriteRefusedError (files exist, no `force`) and TemplateSaveError (`dest` is a
    file)."""
    root, dest = Path(template_dir).absolute(), Path(dest).absolute()
    manifest = load_manifest(root)
    if len(manifest.templates) > MAX_TEMPLATES:
        raise TemplateValidationError(
            f"{root / 'manifest.json'} lists {len(manifest.templates)} templates, over the "
            f"{MAX_TEMPLATES} template-apply renders",
            path=root / "manifest.json",
        )
    vals = resolve_values(manifest, values, path=root / "manifest.json")
    rendered: dict[str, tuple[bytes, bool]] = {}
    total = 0
    for t in manifest.templates:
        where, text = _template_text(root, t)
        try:
            out = render(t.output_path, vals)
            content = render(text, vals).encode("utf-8")
        except KeyError as e:
            raise TemplateValidationError(
                f"{where} uses {{{{{e.args[0]}}}}}, which manifest.json does not declare",
                path=where,
            ) from None
        problem = output_problem(out) or ("" if out not in rendered else "rendered twice")
        if not problem:
            problem = _destination_problem(dest, out)
        if problem:
            raise TemplateValidationError(f"{where} renders to {out!r}: {problem}", path=where)
        total += len(content)
        if len(content) > MAX_OUTPUT_BYTES or total > MAX_TOTAL_BYTES:
            raise TemplateValidationError(
                f"{where} renders to {out!r}: over the {MAX_OUTPUT_BYTES}-byte limit of a "
                f"file or the {MAX_TOTAL_BYTES}-byte limit of all of them",
                path=where,
            )
        plan = content.decode("utf-8", errors="replace")
        if is_plan_text(out, plan):  # a new project starts its plan afresh, not "adopted"
            content = cleared(plan, out).encode("utf-8")
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
    return Rendered(template=root, dest=dest, files=rendered)


def _template_text(root: Path, t: TemplateFile) -> tuple[Path, str]:
    """The template file `t` names, read inside `root` only; (its path, its text)."""
    name = root / "manifest.json"
    if not safe_relative(t.template_path):
        raise TemplateValidationError(
            f"{name}: template_path {t.template_path!r} is outside the template (an "
            f"absolute path, or one through ..); template-apply reads only the template's "
            f"own files",
            path=name,
        )
    where = root / t.template_path
    real, inside = _resolved(where), root.resolve()
    if real is None or not real.is_relative_to(inside):
        to = "a loop of links" if real is None else real
        raise TemplateValidationError(
            f"{name}: template_path {t.template_path!r} leads outside the template through "
            f"a link (to {to}); template-apply reads only the template's own files",
            path=name,
        )
    try:
        data = read_bounded(real, MAX_TEMPLATE_BYTES)
        return where, data.decode("utf-8")
    except FileNotFoundError:
        raise TemplateValidationError(
            f"cannot read template {where}: it does not exist", path=where
        ) from None
    except DataError as e:
        raise TemplateValidationError(f"cannot read template {where}: {said(e)}", path=where) from e
    except UnicodeDecodeError as e:
        raise TemplateValidationError(f"cannot read template {where}: {e}", path=where) from e


def _destination_problem(dest: Path, rel: str) -> str:
    """Why `rel` may not be written in `dest` as it is now: a link on the way leads into
    a `.git` folder or out of `dest` (or `dest` itself is in a `.git` folder)."""
    real = _resolved(dest / rel)
    if real is None:
        return "its links cannot be followed (a loop)"
    if git_folder_in(real.parts):
        return f"a path through .git (it resolves to {real})"
    if not real.is_relative_to(dest.resolve()):
        return f"it leads out of {dest} through a link (to {real})"
    return ""


def _resolved(path: Path) -> Path | None:
    """`path` with its links followed; None for a loop of links."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def write_rendered(rendered: Rendered) -> Written:
    """Write what `render_template` checked; TemplateSaveError when writing fails."""
    dest = rendered.dest
    for rel, (content, executable) in rendered.files.items():
        path = dest / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fsutil.atomic_write_bytes(path, content, fault="apply")
            if executable:
                os.chmod(path, path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        except OSError as e:
            raise TemplateSaveError(f"cannot write {path}: {e}", path=path) from e
    return Written(path=str(dest), files=sorted(rendered.files))
