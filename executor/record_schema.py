"""JSON Schema (draft 2020-12) of `executor.records` types, for `docs/schemas/`.

Apart from the records themselves: only the schema generator and the tests need it,
never a run.
"""

from __future__ import annotations

import enum
import types
import typing
from pathlib import Path
from typing import Any

from executor.records import MISSING, Record, encode


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
    for f in cls._specs:
        prop = _schema(hints[f.name], defs)
        if f.metadata.get("doc"):
            prop["description"] = f.metadata["doc"]
        if f.metadata.get("ge") is not None:
            prop["minimum"] = f.metadata["ge"]
        if f.default is not MISSING:
            prop["default"] = encode(f.default)
        elif f.factory is None:
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
