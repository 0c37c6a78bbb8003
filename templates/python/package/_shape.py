"""Answers in the one flat shape, read from JSON (GraphQL, REST) into the typed answer classes, and
the check of inputs the gRPC encoding would otherwise coerce or drop without a word."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import NoReturn

from ._facts import Field
from ._model import Model
from ._schema import ANSWER_TYPE_TEXTS, ENUMS, MESSAGES, WIRE_TEXTS
from .types import MODELS

Decoder = Callable[[object], object]

_MAX_SAFE_INTEGER = 2**53 - 1
_ENUM_NAMES: dict[str, dict[int, str]] = {}


def enum_name(enum: str, number: int) -> str | None:
    """The wire name of an enum's proto number; None for 0 (unset); UNKNOWN_<number> for a number
    this SDK does not know (a value a newer service added), so that it is kept, not lost."""
    names = _ENUM_NAMES.get(enum)
    if names is None:
        names = _ENUM_NAMES[enum] = {n: name for name, n in ENUMS[enum].items()}
    name = names.get(number)
    return name if name is not None or number == 0 else f"UNKNOWN_{number}"


def _number(value: object) -> object:
    # A number sent as a string (as JSON encoders do with int64) reads as the number.
    if type(value) is not str:
        return value
    if value.strip():
        try:
            parsed = float(value)
        except ValueError:
            return math.nan
        return int(parsed) if parsed.is_integer() else parsed
    return value


def _enum_decoder(enum: str) -> Decoder:
    def decode(value: object) -> object:
        return enum_name(enum, value) if isinstance(value, int) and not isinstance(value, bool) else value

    return decode


def _message_decoder(message: str) -> Decoder:
    return lambda value: from_json(message, value)


def _decoder(field: Field) -> Decoder | None:
    if field.kind in ("int32", "int64", "float64"):
        return _number
    if field.kind == "enum":
        return _enum_decoder(field.ref or "")
    if field.kind == "message":
        return _message_decoder(field.ref or "")
    return None


# Per message: its answer class, per field in declaration order (wire name, decoder, is_list, is_map),
# and the wire names it declares.
_Plan = tuple[type[Model], tuple[tuple[str, Decoder | None, bool, bool], ...], frozenset[str]]
_PLANS: dict[str, _Plan] = {}


def _plan(message: str) -> _Plan:
    plan = _PLANS.get(message)
    if plan is None:
        steps = tuple((f.name, _decoder(f), f.is_list, f.kind == "map") for f in MESSAGES[message])
        plan = _PLANS[message] = (MODELS[message], steps, frozenset(f.name for f in MESSAGES[message]))
    return plan


def from_json(message: str, value: object) -> Model:
    """`value` (decoded JSON) as the answer class of `message`: every declared field present, unset
    ones None, lists and maps empty; the fields the message does not declare (a newer service's) in
    its `extra`, as they came."""
    cls, steps, known = _plan(message)
    source: Mapping[str, object] = value if isinstance(value, dict) else {}
    # Positional: the answer classes declare their fields in the message's order.
    fields: list[object] = []
    for wire, decode, is_list, is_map in steps:
        raw = source.get(wire)
        if is_list:
            fields.append([] if not isinstance(raw, list) else raw if decode is None else [decode(item) for item in raw])
        elif is_map:
            fields.append(dict(raw) if isinstance(raw, dict) else {})
        else:
            fields.append(raw if raw is None or decode is None else decode(raw))
    if source.keys() <= known:
        return cls(*fields)
    return cls(*fields, extra={key: item for key, item in source.items() if key not in known})  # type: ignore[call-arg]


def _answer_value_mismatch(field: Field, value: object, path: str) -> str | None:
    kind = field.kind
    if kind in ("string", "enum"):
        return None if isinstance(value, str) else f"{path}: {ANSWER_TYPE_TEXTS['string']}"
    if kind == "bool":
        return None if isinstance(value, bool) else f"{path}: {ANSWER_TYPE_TEXTS['bool']}"
    if kind in ("int32", "int64", "float64"):
        # A 64-bit integer may come as a decimal string (the proto3 JSON form).
        if _is_number(value) or (isinstance(value, str) and _is_numeric_text(value)):
            return None
        return f"{path}: {ANSWER_TYPE_TEXTS['number']}"
    if kind == "map":
        fits = isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
        return None if fits else f"{path}: {ANSWER_TYPE_TEXTS['map']}"
    if kind == "message":
        if not isinstance(value, dict):
            return f"{path}: {ANSWER_TYPE_TEXTS['object']}"
        assert field.ref is not None
        return answer_mismatch(field.ref, value, path)
    return None


def _is_numeric_text(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return value.strip() != ""


def answer_mismatch(message: str, value: Mapping[str, object], prefix: str = "") -> str | None:
    """The first value of a JSON answer whose type does not fit `message` ("version: not a string"),
    or None. Fields the message does not declare and enum names it does not know pass: a newer
    server may add them."""
    for field in MESSAGES[message]:
        raw = value.get(field.name)
        if raw is None:
            continue
        path = f"{prefix}.{field.name}" if prefix else field.name
        if field.is_list:
            if not isinstance(raw, list):
                return f"{path}: {ANSWER_TYPE_TEXTS['list']}"
            for index, item in enumerate(raw):
                mismatch = _answer_value_mismatch(field, item, f"{path}[{index}]")
                if mismatch is not None:
                    return mismatch
        else:
            mismatch = _answer_value_mismatch(field, raw, path)
            if mismatch is not None:
                return mismatch
    return None


# ---------------------------------------------------------------- the wire check of gRPC inputs


class WireTypeError(Exception):
    """An input value the protobuf encoding could not carry faithfully; the message names the field."""


def _fail(path: str, text: str) -> NoReturn:
    raise WireTypeError(f"{path}: {text}")


def _is_missing(field: Field, value: object) -> bool:
    # Absent, None, "" and (for lists and maps) empty all mean "not given", on every protocol alike.
    if value is None or (isinstance(value, str) and value == ""):
        return True
    if field.is_list:
        return isinstance(value, (list, tuple)) and len(value) == 0
    return field.kind == "map" and isinstance(value, Mapping) and len(value) == 0


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_value(field: Field, value: object, path: str) -> None:
    kind = field.kind
    if kind == "string":
        if not isinstance(value, str):
            _fail(path, WIRE_TEXTS["string"])
    elif kind == "bool":
        if not isinstance(value, bool):
            _fail(path, WIRE_TEXTS["bool"])
    elif kind in ("int32", "int64"):
        if not _is_number(value) or (isinstance(value, float) and not value.is_integer()):
            _fail(path, WIRE_TEXTS["integer"])
        number = int(value)  # type: ignore[call-overload]  # an int or an integral float, checked above
        if abs(number) > _MAX_SAFE_INTEGER:
            _fail(path, WIRE_TEXTS["int64Range"])
        if kind == "int32" and not -(2**31) <= number < 2**31:
            _fail(path, WIRE_TEXTS["int32Range"])
    elif kind == "float64":
        if not _is_number(value) or (isinstance(value, float) and not math.isfinite(value)):
            _fail(path, WIRE_TEXTS["float64"])
    elif kind == "map":
        if not isinstance(value, Mapping) or not all(isinstance(item, str) for item in value.values()):
            _fail(path, WIRE_TEXTS["map"])
    elif kind == "json":
        if not isinstance(value, Mapping):
            _fail(path, WIRE_TEXTS["json"])
    elif kind == "enum":
        values = ENUMS[field.ref or ""]
        if not isinstance(value, str) or value not in values:
            _fail(path, WIRE_TEXTS["enum"].format(values=WIRE_TEXTS["enumSeparator"].join(values)))
    elif kind == "message":
        _check_message(field.ref or "", value, path)


def _check_message(message: str, value: object, prefix: str) -> None:
    if not isinstance(value, Mapping):
        _fail(prefix or WIRE_TEXTS["root"], WIRE_TEXTS["object"])
    fields = MESSAGES[message]
    known = {field.name for field in fields}
    for key in value:
        if key not in known:
            _fail(f"{prefix}.{key}" if prefix else str(key), WIRE_TEXTS["unknownField"])
    for field in fields:
        path = f"{prefix}.{field.name}" if prefix else field.name
        raw = value.get(field.name)
        if _is_missing(field, raw):
            continue
        if field.is_list:
            if not isinstance(raw, (list, tuple)):
                _fail(path, WIRE_TEXTS["list"])
            for index, item in enumerate(raw):
                _check_value(field, item, f"{path}[{index}]")
        else:
            _check_value(field, raw, path)


def check_wire_types(message: str, value: Mapping[str, object]) -> None:
    """Raises WireTypeError for a value the protobuf encoding would coerce or drop without a word."""
    _check_message(message, value, "")
