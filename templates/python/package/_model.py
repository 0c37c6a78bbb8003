"""The base of every answer type: a frozen dataclass in the one flat shape, back to a plain dict on
demand; and the JSON forms of the values whose Python type JSON has not (proto3's JSON mapping)."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta, timezone
from typing import ClassVar, TypeAlias, cast

from ._schema import MESSAGES

JsonValue: TypeAlias = str | int | float | bool | list["JsonValue"] | dict[str, "JsonValue"] | None
"""A JSON value, as answers carry free-form fields."""
JsonObject: TypeAlias = dict[str, JsonValue]
JsonInputValue: TypeAlias = str | int | float | bool | Sequence["JsonInputValue"] | Mapping[str, "JsonInputValue"] | None
"""A JSON value as an input takes it: any sequence or mapping of JSON values."""
JsonInput: TypeAlias = Mapping[str, JsonInputValue]

_NAMES: dict[str, tuple[tuple[str, str, str], ...]] = {}


def _names(message: str) -> tuple[tuple[str, str, str], ...]:
    """(attribute, wire name, kind) of each field of a message; a map<V>'s kind is V's (its values')."""
    names = _NAMES.get(message)
    if names is None:
        names = _NAMES[message] = tuple((field.attr, field.name, field.value or field.kind) for field in MESSAGES[message])
    return names


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_EPOCH_ORDINAL = _EPOCH.date().toordinal()


def _fraction(nanos: int) -> str:
    """Fractional seconds as proto3 JSON writes them: none, or 3, 6 or 9 digits."""
    if nanos == 0:
        return ""
    digits = f"{nanos:09d}"
    return "." + (digits[:3] if digits.endswith("000000") else digits[:6] if digits.endswith("000") else digits)


def timestamp_text(seconds: int, nanos: int) -> str:
    """An instant (seconds since the epoch and nanoseconds) as proto3 JSON writes a Timestamp: RFC 3339
    in UTC, Z, with 0, 3, 6 or 9 fractional digits."""
    moment = _EPOCH + timedelta(seconds=seconds)
    return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}{_fraction(nanos)}Z"


def datetime_text(value: datetime) -> str:
    """A timezone-aware datetime as timestamp_text writes it (OverflowError past year 9999 in UTC)."""
    utc = value.astimezone(timezone.utc)
    seconds = (utc.date().toordinal() - _EPOCH_ORDINAL) * 86400 + utc.hour * 3600 + utc.minute * 60 + utc.second
    return timestamp_text(seconds, utc.microsecond * 1000)


def duration_text(seconds: int, nanos: int) -> str:
    """A signed length of time as proto3 JSON writes a Duration ("90s", "1.500s", "-0.250s"); seconds
    and nanos have the same sign."""
    negative = seconds < 0 or nanos < 0
    return f"{'-' if negative else ''}{abs(seconds)}{_fraction(abs(nanos))}s"


def timedelta_text(value: timedelta) -> str:
    """A timedelta as duration_text writes it."""
    micros = (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds
    seconds, rest = divmod(abs(micros), 1_000_000)
    return duration_text(-seconds if micros < 0 else seconds, (-rest if micros < 0 else rest) * 1000)


def bytes_text(value: bytes | bytearray | memoryview) -> str:
    """Bytes as standard base64 (RFC 4648, padded)."""
    return base64.b64encode(value).decode("ascii")


def json_form(kind: str, value: object) -> JsonValue:
    """A value of a field of `kind` as JSON carries it: a datetime, date, timedelta or bytes as its
    string (timestamp_text, YYYY-MM-DD, duration_text, base64), a uint64 or int64_string as a decimal string; any
    other value as it is."""
    if isinstance(value, datetime):
        return datetime_text(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, timedelta):
        return timedelta_text(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes_text(value)
    if kind in ("uint64", "int64_string") and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return cast(JsonValue, value)  # str, int, float, bool or None by construction


def _plain(value: object, kind: str) -> JsonValue:
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(item, kind) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item, kind) for key, item in value.items()}
    return json_form(kind, value)


class Model:
    """An answer: every declared field present, unset optional fields None, lists and maps empty; the
    JSON fields this SDK does not know (a newer service's) in `extra`, by wire name."""

    __slots__ = ()
    _message: ClassVar[str]
    extra: dict[str, JsonValue]

    def to_dict(self) -> dict[str, JsonValue]:
        """The answer as plain data keyed by wire names: the same JSON whichever protocol carried it
        (the declared fields, a datetime, date, timedelta, bytes, uint64 and int64_string in their JSON forms, see
        json_form; those this SDK does not know stay in `extra`)."""
        return {wire: _plain(getattr(self, attr), kind) for attr, wire, kind in _names(self._message)}
