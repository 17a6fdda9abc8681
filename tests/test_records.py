"""executor.records: validated decoding, encoding and JSON Schema of persisted dataclasses."""

from __future__ import annotations

import enum
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

import pytest

from executor.record_schema import json_schema
from executor.records import Record, RecordError, field


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Inner(Record):
    """An inner record."""

    n: int = field(default=1, metadata={"ge": 1, "doc": "a count"})
    tags: list[str] = field(default_factory=list)


class Outer(Record):
    name: str
    mode: Literal["a", "b"] = "a"
    color: Color = Color.RED
    ratio: float | None = None
    where: Path | None = None
    inner: Inner = field(default_factory=Inner)
    by_number: dict[int, Inner] = field(default_factory=dict)
    anything: Any = None


class Tolerant(Record):
    extra = "ignore"
    name: str


def test_round_trip_keeps_every_type() -> None:
    value = Outer(
        name="x",
        mode="b",
        color=Color.GREEN,
        ratio=0.5,
        where=Path("/tmp/a b"),
        inner=Inner(n=3, tags=["t"]),
        by_number={2: Inner()},
        anything={"free": [1]},
    )
    data = json.loads(json.dumps(value.to_json()))
    assert data["color"] == "green"
    assert data["where"] == "/tmp/a b"
    assert data["by_number"] == {"2": {"n": 1, "tags": []}}
    assert Outer.from_json(data) == value


def test_every_problem_is_named_with_its_location() -> None:
    with pytest.raises(RecordError) as caught:
        Outer.from_json(
            {
                "mode": "c",
                "color": "blue",
                "ratio": True,
                "inner": {"n": 0, "tags": [1]},
                "by_number": {"two": {}},
                "surprise": 1,
            }
        )
    assert caught.value.problems == [
        "name: required field is missing",
        "mode: expected one of a, b, got 'c'",
        "color: expected one of 'red', 'green', got 'blue'",
        "ratio: expected a number, got bool",
        "inner.n: must be at least 1, got 0",
        "inner.tags.0: expected a string, got int",
        "by_number.two: expected an integer key",
        "surprise: unknown field",
    ]


def test_top_level_must_be_an_object() -> None:
    with pytest.raises(RecordError, match=r"\(top level\): expected an object, got list"):
        Outer.from_json([])


def test_ignore_drops_unknown_keys() -> None:
    assert Tolerant.from_json({"name": "n", "other": 1}) == Tolerant(name="n")


def test_schema_describes_fields_defaults_and_nesting() -> None:
    schema = json_schema(Outer, title="outer file")
    assert schema["title"] == "outer file"
    assert schema["required"] == ["name"]
    assert schema["additionalProperties"] is False
    props = schema["properties"]
    assert props["mode"] == {"enum": ["a", "b"], "default": "a"}
    assert props["ratio"] == {"anyOf": [{"type": "number"}, {"type": "null"}], "default": None}
    assert props["inner"] == {"$ref": "#/$defs/Inner"}
    inner = schema["$defs"]["Inner"]
    assert inner["description"] == "An inner record."
    assert inner["properties"]["n"] == {
        "type": "integer",
        "description": "a count",
        "minimum": 1,
        "default": 1,
    }


def test_records_import_no_third_party_module() -> None:
    code = (
        "import sys, executor.records;"
        "print(sorted(m for m in ('pydantic', 'typer', 'rich', 'git', 'mistune') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_trusted_record_equals_the_checked_one() -> None:
    from executor.plan.models import Outline

    values: dict[str, Any] = {
        "number": 2, "phase": 1, "title": "T", "dependencies": [1], "red_command": None
    }  # fmt: skip
    assert Outline.trusted(values) == Outline(**values)
    assert repr(Outline.trusted(values)) == repr(Outline(**values))
