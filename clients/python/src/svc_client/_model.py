"""The base of the models generated from the OpenAPI document (``_generated.py``).

A generated model is a frozen dataclass whose fields are the snake case names of its
schema's properties and whose types are the schema's (enums as ``Literal``). This base
reads one from the wire (camel case) JSON and writes one back, the same way for every
model, so the generated file holds declarations only.

Reading is tolerant, as a client of a service newer or older than itself must be: a field
missing or of the wrong type takes its default, or else the empty value of its type (``""``,
``0``, ``False``, ``[]``, ``{}``, ``None`` when it may be null); an enum value this version
does not know is kept as the server sent it; unknown properties are ignored (a model with a
``raw`` field keeps the whole object there).
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from functools import cache
from typing import Any, Literal, TypeVar, Union, cast, get_args, get_origin, get_type_hints

Json = dict[str, Any]
M = TypeVar("M", bound="Model")

_MISSING = object()


def to_camel(name: str) -> str:
    """``max_cpu`` -> ``maxCpu`` (a trailing ``_``, as in ``continue_``, is dropped)."""
    head, *rest = name.rstrip("_").split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def to_snake(name: str) -> str:
    """``maxCpu`` -> ``max_cpu``."""
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


class Model:
    """Reads and writes a generated dataclass in its wire form."""

    @classmethod
    def from_dict(cls: type[M], data: Mapping[str, Any]) -> M:
        """The model of a decoded JSON object (camel case keys)."""
        hints = _hints(cast(type, cls))
        kwargs: dict[str, Any] = {}
        for f in _fields(cls):
            if f.name == "raw":
                kwargs["raw"] = dict(data)
            else:
                kwargs[f.name] = _field(f, hints[f.name], data.get(to_camel(f.name), _MISSING))
        model: M = cast(Any, cls)(**kwargs)
        return model

    def to_dict(self) -> Json:
        """The wire (camel case) form, without the fields that are ``None``."""
        out: Json = {}
        for f in _fields(type(self)):
            value = getattr(self, f.name)
            if f.name != "raw" and value is not None:
                out[to_camel(f.name)] = _write(value)
        return out


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    return tuple(f for f in dataclasses.fields(cast(Any, cls)) if f.init)


def _field(f: dataclasses.Field[Any], tp: Any, value: Any) -> Any:
    ok, out = _read(tp, value)
    if ok:
        return out
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return _empty(tp, value)


def _read(tp: Any, value: Any) -> tuple[bool, Any]:
    """``(True, the value as tp)``, or ``(False, None)`` when ``value`` is not a ``tp``."""
    origin, args = get_origin(tp), get_args(tp)
    if value is _MISSING:
        return False, None
    if tp is Any:
        return True, value
    if tp is type(None):
        return value is None, None
    if origin in (Union, types.UnionType):
        for arg in args:
            ok, out = _read(arg, value)
            if ok:
                return True, out
        return False, None
    if origin is Literal:
        return value in args, value
    if origin is list:
        if not isinstance(value, list):
            return False, None
        items = (_read(args[0], v) for v in value)
        return True, [v for ok, v in items if ok]
    if origin is dict:
        if not isinstance(value, dict):
            return False, None
        entries = ((k, _read(args[1], v)) for k, v in value.items())
        return True, {k: v for k, (ok, v) in entries if ok}
    if isinstance(tp, type) and issubclass(tp, Model):
        return (True, tp.from_dict(value)) if isinstance(value, dict) else (False, None)
    if tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return ok, value if ok else None
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return ok, value if ok else None
    return isinstance(value, tp), value


def _empty(tp: Any, value: Any) -> Any:
    """The value of a field the server did not send (or sent as something else)."""
    origin, args = get_origin(tp), get_args(tp)
    if origin in (Union, types.UnionType):
        if type(None) in args:
            return None
        return _empty(args[0], value)
    if origin is Literal:
        # A value newer than this client stays readable; nothing at all reads as "".
        return value if isinstance(value, str) else ""
    if origin is list:
        return []
    if origin is dict:
        return {}
    if isinstance(tp, type) and issubclass(tp, Model):
        return tp.from_dict({})
    if tp in (str, int, float, bool):
        return tp()
    return None


def _write(value: Any) -> Any:
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, list):
        return [_write(v) for v in value]
    if isinstance(value, dict):
        return {k: _write(v) for k, v in value.items()}
    return value
