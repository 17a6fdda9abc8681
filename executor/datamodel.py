"""pydantic at the file boundaries: the bases of every file we write or read.

`Strict` is for what the executor writes: an unknown key is an error. `Tolerant` is for
what other programs write: unknown keys are dropped. Neither takes `inf` or `nan`, which
JSON cannot hold. Validators are built on first use (`defer_build`), so a process pays
only for the models it touches. `validate` / `validate_json` are the one way a boundary
reads data into a model: a `ValidationError` becomes `DataError`, one `location: problem`
line per fault, which the boundary turns into the error of its file.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from executor import interrupts
from executor.errors import DataError

__all__ = ["DataError", "Strict", "Tolerant", "dump", "problems", "validate", "validate_json"]

M = TypeVar("M", bound=BaseModel)


class _Model(BaseModel):
    """What both bases share: a validator is built whole, then a Ctrl+C is raised."""

    @classmethod
    def model_rebuild(
        cls,
        *,
        force: bool = False,
        raise_errors: bool = True,
        _parent_namespace_depth: int = 2,
        _types_namespace: Any = None,
    ) -> bool | None:
        # pydantic calls this on a model's first use (defer_build); one frame deeper here
        with interrupts.held():
            return super().model_rebuild(
                force=force,
                raise_errors=raise_errors,
                _parent_namespace_depth=_parent_namespace_depth + 1,
                _types_namespace=_types_namespace,
            )


class Strict(_Model):
    """A file the executor writes: unknown keys are errors."""

    model_config = ConfigDict(
        extra="forbid", defer_build=True, validate_default=False, allow_inf_nan=False
    )


class Tolerant(_Model):
    """A file another program writes: unknown keys are dropped."""

    model_config = ConfigDict(
        extra="ignore", defer_build=True, validate_default=False, allow_inf_nan=False
    )


#: pydantic error type -> what was expected, for errors about the kind of a value
_EXPECTED = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "none_required": "null",
    "path_type": "a path (string)",
}


def problems(error: ValidationError) -> list[str]:
    """pydantic's errors as `location: problem` lines (the location from its `loc`)."""
    lines: list[str] = []
    for e in error.errors(include_url=False):
        where = ".".join(str(part) for part in e["loc"]) or "(top level)"
        lines.append(f"{where}: {_problem(e['type'], e.get('ctx') or {}, e.get('input'), e)}")
    return list(dict.fromkeys(lines))  # a union reports each member's fault: once is enough


def _problem(kind: str, ctx: dict[str, Any], got: Any, e: Any) -> str:
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {_kind(got)}"
    if kind in ("literal_error", "enum"):
        allowed = str(ctx.get("expected", "")).replace("'", "").replace(" or ", ", ")
        return f"expected one of {allowed}, got {got!r}"
    if kind in ("greater_than_equal", "greater_than"):
        bound = ctx.get("ge", ctx.get("gt"))
        return f"must be at least {bound}, got {got!r}"
    if kind == "json_invalid":
        return f"not valid JSON ({ctx.get('error', '')})"
    message = str(e["msg"])
    return f"{message[:1].lower()}{message[1:]}, got {_kind(got)}"


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def validate(model: type[M], data: Any) -> M:
    """`data` (parsed JSON or TOML) as `model`; DataError lists every fault."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise DataError(problems(e)) from None


def validate_json(model: type[M], raw: bytes | str) -> M:
    """JSON text as `model`, parsed and checked in one pass; DataError on any fault
    (including text that is not JSON: `(top level): invalid JSON ...`)."""
    try:
        return model.model_validate_json(raw)
    except ValidationError as e:
        raise DataError(problems(e)) from None


def dump(value: BaseModel) -> dict[str, Any]:
    """Plain JSON data (dicts, lists, str, numbers, bool, None), fields in declared order."""
    out: dict[str, Any] = value.model_dump(mode="json", by_alias=True)
    return out
