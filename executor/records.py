"""Typed JSON records: the dataclasses we persist, read back with field-level checks.

Every file the executor writes or reads at a boundary (state, bridge request and
response, the parsed-plan cache, plan models in `plan validate --json`) is a `Record`:
a `@dataclass(kw_only=True)` whose `from_json` validates what it reads and names each
bad field (`phases.0.sessions.2.status: expected one of ..., got 'x'`), and whose
`to_json` is the one way to write it. `json_schema` exports the same types as JSON
Schema for `docs/schemas/`.

Why not pydantic: the exit-42 resume path is measured in milliseconds of CPU (goal:
100 ms for a whole CLI process) and importing pydantic alone costs more than that on a
small machine (docs/performance.md). These records import nothing beyond the standard
library, and a decoder is built per type once, on first use.

Supported field types: str, int, float, bool, None, Path (as str), `Literal[...]`, str
`Enum`s (by value), `X | Y`, `list[X]`, `dict[str | int, X]`, `Any`, and nested records.
`field(metadata={"doc": ..., "ge": n})` gives a schema description and a lower bound.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from executor.errors import RecordError

__all__ = ["Record", "RecordError", "decoder", "encode", "json_schema"]

R = TypeVar("R", bound="Record")

#: decode(value, location, problems) -> the typed value (None after recording a problem)
Decoder = Callable[[Any, str, list[str]], Any]


class Record:
    """Base of the persisted dataclasses (subclasses are `@dataclass(kw_only=True)`)."""

    #: "forbid": an unknown key is a problem (files we write); "ignore": dropped
    #: (files another program writes, read tolerantly).
    extra: ClassVar[str] = "forbid"

    @classmethod
    def from_json(cls: type[R], data: Any) -> R:
        """Validate `data` (parsed JSON) into this record; RecordError lists every fault."""
        problems: list[str] = []
        value = decoder(cls)(data, "", problems)
        if problems:
            raise RecordError(problems)
        return typing.cast(R, value)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (dicts, lists, str, numbers, bool, None)."""
        out: dict[str, Any] = encode(self)
        return out


def encode(value: Any) -> Any:
    """A record (or anything it holds) as plain JSON data."""
    if isinstance(value, Record):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}  # type: ignore[arg-type]
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    return value


# -- decoding -------------------------------------------------------------------------

_DECODERS: dict[Any, Decoder] = {}


def _at(loc: str, key: object) -> str:
    return f"{loc}.{key}" if loc else str(key)


def _where(loc: str) -> str:
    return loc or "(top level)"


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def decoder(tp: Any) -> Decoder:
    """The (cached) decoder for a type annotation."""
    found = _DECODERS.get(tp)
    if found is None:
        found = _build(tp)
        _DECODERS[tp] = found
    return found


def _scalar(check: Callable[[Any], bool], name: str, convert: Callable[[Any], Any]) -> Decoder:
    def dec(value: Any, loc: str, problems: list[str]) -> Any:
        if check(value):
            return convert(value)
        problems.append(f"{_where(loc)}: expected {name}, got {_kind(value)}")
        return None

    return dec


def _same(value: Any) -> Any:
    return value


def _build(tp: Any) -> Decoder:
    if tp is Any or tp is object:
        return lambda value, loc, problems: value
    if tp is str:
        return _scalar(lambda v: isinstance(v, str), "a string", _same)
    if tp is bool:
        return _scalar(lambda v: isinstance(v, bool), "true or false", _same)
    if tp is int:
        return _scalar(
            lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer", _same
        )
    if tp is float:
        return _scalar(
            lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "a number", float
        )
    if tp is type(None) or tp is None:
        return _scalar(lambda v: v is None, "null", _same)
    if tp is Path:
        return _scalar(lambda v: isinstance(v, str), "a path (string)", Path)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum(tp)
    if isinstance(tp, type) and issubclass(tp, Record):
        return _record(tp)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Literal:
        return _literal(args)
    if origin is typing.Union or origin is types.UnionType:
        return _union(args)
    if origin is list:
        return _list(decoder(args[0]))
    if origin is dict:
        return _dict(args[0], decoder(args[1]))
    raise TypeError(f"records: unsupported field type {tp!r}")


def _enum(tp: type[enum.Enum]) -> Decoder:
    values = {m.value: m for m in tp}
    allowed = ", ".join(repr(v) for v in values)

    def dec(value: Any, loc: str, problems: list[str]) -> Any:
        if isinstance(value, str) and value in values:
            return values[value]
        problems.append(f"{_where(loc)}: expected one of {allowed}, got {value!r}")
        return None

    return dec


def _literal(args: tuple[Any, ...]) -> Decoder:
    allowed = ", ".join(str(a) for a in args)

    def dec(value: Any, loc: str, problems: list[str]) -> Any:
        if any(value == a and type(value) is type(a) for a in args):
            return value
        problems.append(f"{_where(loc)}: expected one of {allowed}, got {value!r}")
        return None

    return dec


def _union(args: tuple[Any, ...]) -> Decoder:
    optional = type(None) in args
    members = [decoder(a) for a in args if a is not type(None)]

    def dec(value: Any, loc: str, problems: list[str]) -> Any:
        if value is None and optional:
            return None
        first: list[str] = []
        for member in members:
            tried: list[str] = []
            out = member(value, loc, tried)
            if not tried:
                return out
            first = first or tried
        problems.extend(first)
        return None

    return dec


def _list(item: Decoder) -> Decoder:
    def dec(value: Any, loc: str, problems: list[str]) -> Any:
        if not isinstance(value, list):
            problems.append(f"{_where(loc)}: expected a list, got {_kind(value)}")
            return None
        return [item(v, _at(loc, i), problems) for i, v in enumerate(value)]

    return dec


def _dict(key_type: Any, item: Decoder) -> Decoder:
    int_keys = key_type is int

    def dec(value: Any, loc: str, problems: list[str]) -> Any:
        if not isinstance(value, dict):
            problems.append(f"{_where(loc)}: expected an object, got {_kind(value)}")
            return None
        out: dict[Any, Any] = {}
        for k, v in value.items():
            key: Any = k
            if int_keys:
                if not (isinstance(k, str) and k.lstrip("-").isdigit()):
                    problems.append(f"{_at(loc, k)}: expected an integer key")
                    continue
                key = int(k)
            out[key] = item(v, _at(loc, k), problems)
        return out

    return dec


def _record(cls: type[Record]) -> Decoder:
    compiled: list[tuple[str, Decoder, bool, Any]] = []
    names: set[str] = set()

    def compile_fields() -> None:
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if not f.init:
                continue
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            compiled.append((f.name, decoder(hints[f.name]), required, f.metadata.get("ge")))
            names.add(f.name)

    def dec(value: Any, loc: str, problems: list[str]) -> Any:
        if not compiled:
            compile_fields()
        if not isinstance(value, dict):
            problems.append(f"{_where(loc)}: expected an object, got {_kind(value)}")
            return None
        before = len(problems)
        kwargs: dict[str, Any] = {}
        for name, dec_field, required, ge in compiled:
            if name in value:
                got = dec_field(value[name], _at(loc, name), problems)
                if ge is not None and isinstance(got, (int, float)) and got < ge:
                    problems.append(f"{_at(loc, name)}: must be at least {ge}, got {got}")
                kwargs[name] = got
            elif required:
                problems.append(f"{_at(loc, name)}: required field is missing")
        if cls.extra == "forbid":
            problems.extend(f"{_at(loc, k)}: unknown field" for k in value if k not in names)
        if len(problems) > before:
            return None
        return cls(**kwargs)

    return dec


# -- JSON Schema ----------------------------------------------------------------------


def json_schema(cls: type[Record], *, title: str | None = None) -> dict[str, Any]:
    """Draft 2020-12 JSON Schema of `cls`; nested records go under `$defs`."""
    defs: dict[str, Any] = {}
    root = _record_schema(cls, defs)
    if title:
        root["title"] = title
    if defs:
        root["$defs"] = dict(sorted(defs.items()))
    return root


def _doc(cls: type) -> str | None:
    text = (cls.__doc__ or "").strip()
    if not text or text.startswith(cls.__name__ + "("):  # dataclass's generated doc
        return None
    return " ".join(text.split("\n\n", 1)[0].split())


def _record_schema(cls: type[Record], defs: dict[str, Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    props: dict[str, Any] = {}
    required: list[str] = []
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not f.init:
            continue
        prop = _schema(hints[f.name], defs)
        if f.metadata.get("doc"):
            prop["description"] = f.metadata["doc"]
        if f.metadata.get("ge") is not None:
            prop["minimum"] = f.metadata["ge"]
        if f.default is not dataclasses.MISSING:
            prop["default"] = encode(f.default)
        elif f.default_factory is dataclasses.MISSING:
            required.append(f.name)
        props[f.name] = prop
    out: dict[str, Any] = {"type": "object", "title": cls.__name__}
    if doc := _doc(cls):
        out["description"] = doc
    out["properties"] = props
    if required:
        out["required"] = required
    out["additionalProperties"] = cls.extra != "forbid"
    return out


def _schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    simple = {str: "string", bool: "boolean", int: "integer", float: "number", Path: "string"}
    if tp in simple:
        return {"type": simple[tp]}
    if tp is Any or tp is object:
        return {}
    if tp is type(None) or tp is None:
        return {"type": "null"}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return {"enum": [m.value for m in tp]}
    if isinstance(tp, type) and issubclass(tp, Record):
        if tp.__name__ not in defs:
            defs[tp.__name__] = {}  # placeholder: breaks recursion
            defs[tp.__name__] = _record_schema(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin is typing.Union or origin is types.UnionType:
        return {"anyOf": [_schema(a, defs) for a in args]}
    if origin is list:
        return {"type": "array", "items": _schema(args[0], defs)}
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema(args[1], defs)}
    raise TypeError(f"records: unsupported field type {tp!r}")
