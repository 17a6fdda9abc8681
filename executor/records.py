"""Typed JSON records: the dataclasses we persist, read back with field-level checks.

Every file the executor writes or reads at a boundary (state, bridge request and
response, the parsed-plan cache, plan models in `plan validate --json`) is a `Record`:
a `Record` subclass whose `from_json` validates what it reads and names each
bad field (`phases.0.sessions.2.status: expected one of ..., got 'x'`), and whose
`to_json` is the one way to write it. `executor.record_schema` exports the same types
as JSON Schema for `docs/schemas/`.

Why not pydantic: the exit-42 resume path is measured in milliseconds of CPU (goal:
100 ms for a whole CLI process) and importing pydantic alone costs more than that on a
small machine (docs/performance.md). These records import nothing beyond the standard
library, and a decoder is built per type once, on first use.

Supported field types: str, int, float, bool, None, Path (as str), `Literal[...]`, str
`Enum`s (by value), `X | Y`, `list[X]`, `dict[str | int, X]`, `Any`, and nested records.
`field(metadata={"doc": ..., "ge": n})` gives a schema description and a lower bound.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from executor.errors import RecordError

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:  # the decorator only informs type checkers (typing has it from 3.11 only)

    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        return lambda cls: cls


__all__ = ["Record", "RecordError", "decoder", "encode", "field"]

R = TypeVar("R", bound="Record")

#: decode(value, location, problems) -> the typed value (None after recording a problem)
Decoder = Callable[[Any, str, list[str]], Any]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FieldInfo:
    """What `field()` puts in a class body: a default, a factory, metadata."""

    __slots__ = ("default", "factory", "metadata")

    def __init__(
        self, default: Any, factory: Callable[[], Any] | None, metadata: dict[str, Any]
    ) -> None:
        self.default = default
        self.factory = factory
        self.metadata = metadata


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | None = None,
    metadata: dict[str, Any] | None = None,
) -> Any:
    """A field with a default, a `default_factory`, and `metadata` ("doc", "ge")."""
    return FieldInfo(default, default_factory, metadata or {})


class Spec:
    """One field of a record class, in declaration order (base classes first)."""

    __slots__ = ("default", "factory", "metadata", "name")

    def __init__(self, name: str, info: FieldInfo) -> None:
        self.name = name
        self.default = info.default
        self.factory = info.factory
        self.metadata = info.metadata

    @property
    def required(self) -> bool:
        return self.default is MISSING and self.factory is None


@dataclass_transform(kw_only_default=True, field_specifiers=(field,))
class Record:
    """Base of the typed data classes: fields declared as annotations (with `field()` for
    a factory or metadata), keyword-only unless the class says `kw_only=False`, mutable
    unless `frozen=True`; `==` compares fields.

    Why not `dataclasses`: it writes and compiles code for every class at import, which
    with the `dataclasses` import itself cost a third of the exit-42 resume's CPU
    (docs/performance.md). Here a class costs a dictionary walk.
    """

    #: "forbid": an unknown key is a problem (files we write); "ignore": dropped
    #: (files another program writes, read tolerantly).
    extra: ClassVar[str] = "forbid"
    _specs: ClassVar[tuple[Spec, ...]] = ()
    _names: ClassVar[frozenset[str]] = frozenset()
    _positional: ClassVar[bool] = False
    _frozen: ClassVar[bool] = False

    def __init_subclass__(
        cls, *, kw_only: bool = True, frozen: bool = False, **kwargs: Any
    ) -> None:
        super().__init_subclass__(**kwargs)
        own: list[Spec] = []
        # the class's own annotations, in order (strings: `from __future__ import annotations`)
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063
            if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                continue
            value = cls.__dict__.get(name, MISSING)
            if isinstance(value, FieldInfo):
                delattr(cls, name)
            else:
                value = FieldInfo(value, None, {})
            own.append(Spec(name, value))
        names = {s.name for s in own}
        cls._specs = (*(s for s in cls._specs if s.name not in names), *own)
        cls._names = frozenset(s.name for s in cls._specs)
        cls._positional = not kw_only
        cls._frozen = frozen or cls._frozen

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        specs = self._specs
        if args:
            if not self._positional or len(args) > len(specs):
                raise TypeError(f"{type(self).__name__}() takes keyword arguments only")
            for spec, value in zip(specs, args, strict=False):
                if spec.name in kwargs:
                    raise TypeError(f"{type(self).__name__}() got {spec.name!r} twice")
                kwargs[spec.name] = value
        values = self.__dict__
        for spec in specs:
            name = spec.name
            if name in kwargs:
                values[name] = kwargs.pop(name)
            elif spec.factory is not None:
                values[name] = spec.factory()
            elif spec.default is not MISSING:
                values[name] = spec.default
            else:
                raise TypeError(f"{type(self).__name__}() is missing {name!r}")
        if kwargs:
            raise TypeError(f"{type(self).__name__}() got unknown field(s) {sorted(kwargs)}")
        post = getattr(self, "__post_init__", None)
        if post is not None:
            post()

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r}")
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(self.__dict__[n] == other.__dict__[n] for n in self._names)

    def __hash__(self) -> int:
        if not self._frozen:
            raise TypeError(f"unhashable type: {type(self).__name__!r} (not frozen)")
        return hash((type(self), *(self.__dict__[s.name] for s in self._specs)))

    def __repr__(self) -> str:
        shown = ", ".join(f"{s.name}={self.__dict__[s.name]!r}" for s in self._specs)
        return f"{type(self).__name__}({shown})"

    @classmethod
    def trusted(cls: type[R], values: dict[str, Any]) -> R:
        """An instance of values already checked, every field given, without `__init__`'s
        bookkeeping: for rows the resume path reads by the thousand (the plan outline)."""
        obj = cls.__new__(cls)
        obj.__dict__.update(values)
        return obj

    def replace(self: R, **changes: Any) -> R:
        """A copy with `changes` (the fields not named keep their values)."""
        values = {s.name: self.__dict__[s.name] for s in self._specs}
        return type(self)(**{**values, **changes})

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
        return {s.name: encode(value.__dict__[s.name]) for s in value._specs}
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
        for f in cls._specs:
            compiled.append((f.name, decoder(hints[f.name]), f.required, f.metadata.get("ge")))
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
