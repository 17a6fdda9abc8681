"""A template's placeholder values: what the person gave, and what derives from it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from executor.errors import TemplateValidationError, TemplateValueError
from executor.templates.models import Manifest
from executor.templates.placeholders import derive


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
