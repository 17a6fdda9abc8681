"""Reading a template folder's JSON files back into records."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from executor.datamodel import validate
from executor.errors import DataError, TemplateValidationError
from executor.safe_read import read_bounded, said
from executor.templates.models import SCHEMA_VERSION, Manifest

R = TypeVar("R", bound=BaseModel)
#: The largest manifest.json or settings.json read (a template's, or any codebase's).
MAX_RECORD_BYTES = 16 << 20


def read_json_record(path: Path, cls: type[R]) -> R:
    """Raises OSError (absent, or unreadable: not a regular file, over the size cap),
    ValueError (not JSON) or DataError (wrong fields)."""
    try:
        data = read_bounded(Path(path), MAX_RECORD_BYTES)
    except DataError as e:
        raise OSError(said(e)) from None
    return validate(cls, json.loads(data.decode("utf-8")))


def is_template(folder: Path) -> bool:
    """Whether `folder` holds a template made by template-create: a manifest.json that
    our `Manifest` record reads, at our schema version. Any other manifest.json (a web
    app's, a browser extension's) is not one."""
    try:
        manifest = read_json_record(Path(folder) / "manifest.json", Manifest)
    except (OSError, ValueError):  # DataError is a ValueError
        return False
    return manifest.schema_version == SCHEMA_VERSION


def load_manifest(template_dir: Path) -> Manifest:
    """The folder's manifest; TemplateValidationError (naming the file) when it is
    missing or invalid, including a placeholder pattern that is not a regex."""
    path = Path(template_dir) / "manifest.json"
    try:
        manifest = read_json_record(path, Manifest)
        for name, placeholder in manifest.placeholders.items():
            try:
                re.compile(placeholder.pattern)
            except re.error as e:
                raise TemplateValidationError(
                    f"{path}: placeholder {name} has an invalid pattern ({e})", path=path
                ) from None
        return manifest
    except FileNotFoundError:
        raise TemplateValidationError(f"not a template: {path} does not exist", path=path) from None
    except DataError as e:
        raise TemplateValidationError(
            f"{path} is not a valid manifest: {e}", path=path, problems=e.problems
        ) from None
    except (OSError, ValueError) as e:
        raise TemplateValidationError(f"cannot read {path}: {e}", path=path) from None
