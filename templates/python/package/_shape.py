"""Answers in the one flat shape, read from JSON (GraphQL, REST) into the typed answer classes; the
values JSON has no type of its own for, in and out of their JSON forms; and the check of inputs the
gRPC encoding would otherwise coerce or drop without a word.

The fields of those kinds take and answer Python values: a timestamp is a timezone-aware datetime
(answers are in UTC; a naive datetime is refused, as the instant it means is unknown), a date a
date, a duration a timedelta, bytes bytes, a uint64, uint32 or int64_string (an int64 of an API
that writes them as proto3 does) an int, a float32 a float. On the wire they travel in the forms of
proto3's JSON mapping (RFC 3339 in UTC, YYYY-MM-DD, "1.500s", base64, a decimal string for a uint64
and an int64_string) over GraphQL and REST, and as google.protobuf.Timestamp,
google.protobuf.Duration, bytes, uint64, uint32 and float over gRPC. Python holds microseconds: the
nanoseconds of an answer's timestamp or duration beyond them are dropped. A float32 answer reads as
the shortest decimal of its 32-bit value (4.3, not 4.300000190734863), whichever protocol carried it.
Inputs of these kinds are checked before anything is sent, on every protocol: each is its Python
type (bytes, bytearray or memoryview for bytes) or its JSON form as a string, within its range.
"""

from __future__ import annotations

import base64
import functools
import math
import re
import struct
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, timedelta, timezone
from typing import NoReturn

from ._facts import Field
from ._model import Model, bytes_text, datetime_text, duration_text, timedelta_text, timestamp_text
from ._schema import ANSWER_TYPE_TEXTS, ENUMS, MESSAGES, UNION_TAGS, UNIONS, WIRE_TEXTS
from .types import MODELS

Decoder = Callable[[object], object]

_MAX_SAFE_INTEGER = 2**53 - 1
_ENUM_NAMES: dict[str, dict[int, str]] = {}


# ---------------------------------------------------------------- values in their JSON forms

# The forms proto3's JSON mapping writes, as the server reads them (ASCII digits only).
_TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_DURATION = re.compile(r"(-)?([0-9]{1,12})(?:\.([0-9]{1,9}))?s")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]*={0,2}")
_UINT64 = re.compile(r"0|[1-9][0-9]{0,19}")
_INT64 = re.compile(r"0|-?[1-9][0-9]{0,18}")

# google.protobuf.Timestamp: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z; Duration: ±10,000 years.
_MIN_SECONDS = -62135596800
_MAX_SECONDS = 253402300799
_MAX_DURATION_SECONDS = 315576000000
_MAX_UINT32 = 2**32 - 1
_MAX_UINT64 = 2**64 - 1
_MIN_INT64 = -(2**63)
_MAX_INT64 = 2**63 - 1
_MAX_FLOAT32 = 3.4028234663852886e38
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_EPOCH_ORDINAL = _EPOCH.date().toordinal()

# The kinds whose Python values are not their JSON forms, or whose range is narrower than Python's.
_VALUE_KINDS = frozenset({"timestamp", "date", "duration", "bytes", "uint64", "int64_string", "uint32", "float32"})


@functools.cache
def map_value_field(field: Field) -> Field:
    """The field each value of a map<V> field is, as the checks of single values read it."""
    return Field(field.name, field.attr, field.value or "string", field.ref, False, True, False)


def _nanos(digits: str | None) -> int:
    return int((digits or "").ljust(9, "0"))


def parse_timestamp(text: str) -> tuple[int, int] | None:
    """Seconds since the epoch and nanoseconds of an RFC 3339 date-time, or None when it is not one."""
    match = _TIMESTAMP.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    try:
        ordinal = date(year, month, day).toordinal()
    except ValueError:
        return None
    if hour > 23 or minute > 59 or second > 59:
        return None
    offset = 0
    if match.group(8) is not None:
        hours, minutes = int(match.group(9)), int(match.group(10))
        if hours > 23 or minutes > 59:
            return None
        offset = (-1 if match.group(8) == "-" else 1) * (hours * 3600 + minutes * 60)
    seconds = (ordinal - _EPOCH_ORDINAL) * 86400 + hour * 3600 + minute * 60 + second - offset
    return (seconds, _nanos(match.group(7))) if _MIN_SECONDS <= seconds <= _MAX_SECONDS else None


def parse_duration(text: str) -> tuple[int, int] | None:
    """Seconds and nanoseconds (of one sign) of a duration such as "1.5s", or None when it is not one."""
    match = _DURATION.fullmatch(text)
    if match is None or int(match.group(2)) > _MAX_DURATION_SECONDS:
        return None
    sign = -1 if match.group(1) else 1
    return sign * int(match.group(2)), sign * _nanos(match.group(3))


def parse_date(text: str) -> date | None:
    """The date of a YYYY-MM-DD text, or None when it is not one."""
    match = _DATE.fullmatch(text)
    if match is None:
        return None
    try:
        return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return None


def parse_bytes(text: str) -> bytes | None:
    """The bytes of base64, standard or URL-safe, padded or not; None when it is not base64."""
    if _BASE64.fullmatch(text) is None or len(text.rstrip("=")) % 4 == 1:
        return None
    standard = text.replace("-", "+").replace("_", "/").rstrip("=")
    try:
        return base64.b64decode(standard + "=" * (-len(standard) % 4), validate=True)
    except ValueError:
        return None


def _parse_integer(value: object, form: re.Pattern[str], low: int, high: int) -> int | None:
    # A decimal string of the form, or a number; either within [low, high].
    if isinstance(value, str):
        return int(value) if form.fullmatch(value) is not None and low <= int(value) <= high else None
    if isinstance(value, int) and not isinstance(value, bool):
        return value if low <= value <= high else None
    return None


def parse_uint64(value: object) -> int | None:
    """A uint64 as JSON carries it (a decimal string, or a number), or None when it is not one."""
    return _parse_integer(value, _UINT64, 0, _MAX_UINT64)


def parse_int64(value: object) -> int | None:
    """An int64 written as proto3 writes it (a decimal string, or a number), or None when it is not one."""
    return _parse_integer(value, _INT64, _MIN_INT64, _MAX_INT64)


# The integer kinds whose JSON form is a decimal string: their parser, and the key of their wire text.
_INTEGER_TEXTS: dict[str, tuple[Callable[[object], int | None], str]] = {
    "uint64": (parse_uint64, "uint64"),
    "int64_string": (parse_int64, "int64String"),
}


def datetime_of(seconds: int, nanos: int) -> datetime:
    """The instant as a datetime in UTC (the nanoseconds beyond its microseconds dropped)."""
    return _EPOCH + timedelta(seconds=seconds, microseconds=nanos // 1000)


def timedelta_of(seconds: int, nanos: int) -> timedelta:
    """The length of time as a timedelta (the nanoseconds beyond its microseconds dropped, toward zero)."""
    return timedelta(seconds=seconds, microseconds=int(nanos / 1000))


def float32_of(number: float) -> float:
    """The 32-bit float nearest `number`, as the shortest decimal that reads back as it (4.3, not
    4.300000190734863); `number` itself when it is not finite or beyond float32's range."""
    try:
        single = struct.pack("<f", number)
    except OverflowError:
        return number
    value: float = struct.unpack("<f", single)[0]
    if not math.isfinite(value):
        return value
    for digits in range(1, 10):
        shortest = float(f"{value:.{digits}g}")
        if struct.pack("<f", shortest) == single:
            return shortest
    return value


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


def _float32(value: object) -> object:
    number = _number(value)
    return float32_of(number) if isinstance(number, (int, float)) and not isinstance(number, bool) else number


def _uint64(value: object) -> object:
    parsed = parse_uint64(value)
    return value if parsed is None else parsed


def _int64_string(value: object) -> object:
    parsed = parse_int64(value)
    return value if parsed is None else parsed


def _instant(value: object) -> object:
    parsed = parse_timestamp(value) if isinstance(value, str) else None
    return value if parsed is None else datetime_of(*parsed)


def _date(value: object) -> object:
    parsed = parse_date(value) if isinstance(value, str) else None
    return value if parsed is None else parsed


def _length_of_time(value: object) -> object:
    parsed = parse_duration(value) if isinstance(value, str) else None
    return value if parsed is None else timedelta_of(*parsed)


def _bytes(value: object) -> object:
    parsed = parse_bytes(value) if isinstance(value, str) else None
    return value if parsed is None else parsed


# The JSON decoders of the kinds whose Python value is not their JSON value; a value not of the
# kind stays as it came (answer_mismatch names it first, and the answer keeps it in extra).
_JSON_DECODERS: dict[str, Decoder] = {
    "int32": _number,
    "int64": _number,
    "uint32": _number,
    "float64": _number,
    "float32": _float32,
    "uint64": _uint64,
    "int64_string": _int64_string,
    "timestamp": _instant,
    "date": _date,
    "duration": _length_of_time,
    "bytes": _bytes,
}


def _decoder(field: Field) -> Decoder | None:
    decoder = _JSON_DECODERS.get(field.kind)
    if decoder is not None:
        return decoder
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
        # A map<V> decodes each value as V (a plain map's strings need nothing).
        steps = tuple((f.name, _decoder(map_value_field(f) if f.value else f), f.is_list, f.kind == "map") for f in MESSAGES[message])
        # A tagged union's tag is known too: its answer class names the variant itself.
        known = frozenset([*(f.name for f in MESSAGES[message]), *([UNION_TAGS[message]] if message in UNION_TAGS else [])])
        plan = _PLANS[message] = (MODELS[message], steps, known)
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
            fields.append({} if not isinstance(raw, dict) else dict(raw) if decode is None else {key: decode(item) for key, item in raw.items()})
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
    if kind in ("int32", "int64", "uint32", "float32", "float64"):
        # A 64-bit integer may come as a decimal string (the proto3 JSON form).
        if _is_number(value) or (isinstance(value, str) and _is_numeric_text(value)):
            return None
        return f"{path}: {ANSWER_TYPE_TEXTS['number']}"
    if kind in _INTEGER_TEXTS:
        if not (isinstance(value, str) or _is_number(value)):
            return f"{path}: {ANSWER_TYPE_TEXTS['string']}"
        parse, text = _INTEGER_TEXTS[kind]
        return None if parse(value) is not None else f"{path}: {WIRE_TEXTS[text]}"
    if kind in ("timestamp", "date", "duration", "bytes"):
        if not isinstance(value, str):
            return f"{path}: {ANSWER_TYPE_TEXTS['string']}"
        # A string that is not of the form the field's kind reads is kept too, with what it should be.
        return None if _JSON_DECODERS[kind](value) is not value else f"{path}: {WIRE_TEXTS[kind]}"
    if kind == "map" and field.value is not None:
        if not isinstance(value, dict):
            return f"{path}: {ANSWER_TYPE_TEXTS['object']}"
        item_field = map_value_field(field)
        for key, item in value.items():
            mismatch = _answer_value_mismatch(item_field, item, f"{path}.{key}")
            if mismatch is not None:
                return mismatch
        return None
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


_NAIVE = "; a datetime without a timezone (naive) is refused, as the instant it means is unknown: give one with tzinfo, such as datetime.now(timezone.utc)"


def _wire_value(kind: str, value: object, path: str) -> object:
    """A value of one of _VALUE_KINDS in its JSON form, from its Python type or its JSON form; raises
    WireTypeError for any other value, and one out of the kind's range."""
    if kind == "timestamp":
        if isinstance(value, datetime):
            if value.utcoffset() is None:
                _fail(path, WIRE_TEXTS["timestamp"] + _NAIVE)
            try:
                return datetime_text(value)
            except (OverflowError, ValueError):
                _fail(path, WIRE_TEXTS["timestamp"])
        instant = parse_timestamp(value) if isinstance(value, str) else None
        if instant is None:
            _fail(path, WIRE_TEXTS["timestamp"])
        return timestamp_text(*instant)
    if kind == "date":
        # A datetime is a date too, in Python: its time of day would be lost without a word.
        if isinstance(value, date) and not isinstance(value, datetime):
            return value.isoformat()
        if not isinstance(value, str) or parse_date(value) is None:
            _fail(path, WIRE_TEXTS["date"])
        return value
    if kind == "duration":
        if isinstance(value, timedelta):
            if abs(value) >= timedelta(seconds=_MAX_DURATION_SECONDS + 1):
                _fail(path, WIRE_TEXTS["duration"])
            return timedelta_text(value)
        length = parse_duration(value) if isinstance(value, str) else None
        if length is None:
            _fail(path, WIRE_TEXTS["duration"])
        return duration_text(*length)
    if kind == "bytes":
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes_text(value)
        data = parse_bytes(value) if isinstance(value, str) else None
        if data is None:
            _fail(path, WIRE_TEXTS["bytes"])
        return bytes_text(data)
    if kind in _INTEGER_TEXTS:
        parse, text = _INTEGER_TEXTS[kind]
        number = parse(value)
        if number is None:
            _fail(path, WIRE_TEXTS[text])
        return str(number)
    if kind == "uint32":
        if not _is_number(value) or (isinstance(value, float) and not value.is_integer()):
            _fail(path, WIRE_TEXTS["integer"])
        integer = int(value)  # type: ignore[call-overload]  # an int or an integral float, checked above
        if not 0 <= integer <= _MAX_UINT32:
            _fail(path, WIRE_TEXTS["uint32Range"])
        return integer
    # float32
    if not _is_number(value) or (isinstance(value, float) and not math.isfinite(value)):
        _fail(path, WIRE_TEXTS["float64"])
    real = float(value)  # type: ignore[arg-type]  # an int or a finite float, checked above
    if abs(real) > _MAX_FLOAT32:
        _fail(path, WIRE_TEXTS["float32Range"])
    return real


class _Reach:
    """Answers, once per message, whether the message or one it holds at any depth (in a field, a
    list or a map's values) is one that `found` says it is."""

    def __init__(self, found: Callable[[str], bool]) -> None:
        self._found = found
        self._answers: dict[str, bool] = {}

    def __call__(self, message: str) -> bool:
        answer = self._answers.get(message)
        if answer is None:
            answer = self._answers[message] = self._walk(message, set())
        return answer

    def _walk(self, message: str, seen: set[str]) -> bool:
        # `seen`: the messages on the way here; a message that holds itself is settled by its other fields.
        if message in seen:
            return False
        seen.add(message)
        return self._found(message) or any(f.ref is not None and f.ref in MESSAGES and self._walk(f.ref, seen) for f in MESSAGES[message])


_carries_values = _Reach(lambda message: any(f.kind in _VALUE_KINDS or f.value is not None for f in MESSAGES[message]))
"""Whether a field of `message`, or of a message it holds, is of one of _VALUE_KINDS or a map<V>."""


def to_wire(message: str, value: Mapping[str, object], prefix: str = "") -> dict[str, object]:
    """The input `value` of `message` with the values of _VALUE_KINDS in their JSON forms, at any
    depth; what every protocol sends. Raises WireTypeError for a value of those kinds that is not
    one (the other fields are left for the protocol's own check)."""
    out = dict(value)
    if not _carries_values(message):
        return out
    for field in MESSAGES[message]:
        raw = out.get(field.name)
        if raw is None or (isinstance(raw, str) and raw == ""):
            continue
        path = f"{prefix}.{field.name}" if prefix else field.name
        if field.kind == "message":
            ref = field.ref or ""
            if not _carries_values(ref):
                continue
            if field.is_list and isinstance(raw, (list, tuple)):
                out[field.name] = [to_wire(ref, item, f"{path}[{index}]") if isinstance(item, Mapping) else item for index, item in enumerate(raw)]
            elif isinstance(raw, Mapping):
                out[field.name] = to_wire(ref, raw, path)
        elif field.kind == "map" and field.value is not None:
            # Each value of a map<V> in its JSON form, checked as a single field of V, on every protocol.
            if not isinstance(raw, Mapping):
                _fail(path, WIRE_TEXTS["object"])
            item_field = map_value_field(field)
            out[field.name] = {key: _item_to_wire(item_field, item, f"{path}.{key}") for key, item in raw.items()}
        elif field.kind in _VALUE_KINDS:
            if field.is_list and isinstance(raw, Sequence) and not isinstance(raw, (str, bytes, bytearray)):
                out[field.name] = [_wire_value(field.kind, item, f"{path}[{index}]") for index, item in enumerate(raw)]
            elif not field.is_list:
                out[field.name] = _wire_value(field.kind, raw, path)
    return out


_reaches_tags = _Reach(lambda message: message in UNION_TAGS)
"""Whether a value of `message` can hold a tagged union, itself or nested."""


def with_union_tags(message: str, value: Mapping[str, object]) -> Mapping[str, object]:
    """The request `value` (to_wire's) with each tagged union's tag beside its variant, as a REST
    body carries it; `value` itself stays as given."""
    if not _reaches_tags(message):
        return value
    out = dict(value)
    fields = MESSAGES[message]
    tag = UNION_TAGS.get(message)
    given = next((f.name for f in fields if out.get(f.name) is not None), None) if tag is not None else None
    if tag is not None and given is not None:
        out[tag] = given
    for field in fields:
        raw = out.get(field.name)
        ref = field.ref if field.kind == "message" or field.value == "message" else None
        if ref is None or raw is None or not _reaches_tags(ref):
            continue
        if field.is_list and isinstance(raw, (list, tuple)):
            out[field.name] = [with_union_tags(ref, item) if isinstance(item, Mapping) else item for item in raw]
        elif field.kind == "map" and isinstance(raw, Mapping):
            out[field.name] = {key: with_union_tags(ref, item) if isinstance(item, Mapping) else item for key, item in raw.items()}
        elif isinstance(raw, Mapping):
            out[field.name] = with_union_tags(ref, raw)
    return out


def _item_to_wire(field: Field, value: object, path: str) -> object:
    """One value of a map<V> in its JSON form (to_wire's), checked as a single field of V."""
    if field.kind in _VALUE_KINDS:
        return _wire_value(field.kind, value, path)
    if field.kind == "message" and isinstance(value, Mapping):
        value = to_wire(field.ref or "", value, path)
    _check_value(field, value, path)
    return value


def _check_value(field: Field, value: object, path: str) -> None:
    kind = field.kind
    if kind in _VALUE_KINDS:
        # In its JSON form already (to_wire), or refused here as there.
        _wire_value(kind, value, path)
    elif kind == "string":
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
        if field.value is None:
            if not isinstance(value, Mapping) or not all(isinstance(item, str) for item in value.values()):
                _fail(path, WIRE_TEXTS["map"])
        elif not isinstance(value, Mapping):
            _fail(path, WIRE_TEXTS["object"])
        else:
            # map<V>: each value is checked as a single field of V.
            item_field = map_value_field(field)
            for key, item in value.items():
                _check_value(item_field, item, f"{path}.{key}")
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
    if message in UNIONS and sum(1 for field in fields if not _is_missing(field, value.get(field.name))) != 1:
        # A proto oneof would keep the last of two variants without a word.
        _fail(prefix or WIRE_TEXTS["root"], WIRE_TEXTS["oneOf"].format(variants=WIRE_TEXTS["enumSeparator"].join(field.name for field in fields)))
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
