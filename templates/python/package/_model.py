"""The base of every answer type: a frozen dataclass in the one flat shape, back to a plain dict on demand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar, TypeAlias, cast

from ._schema import MESSAGES

JsonValue: TypeAlias = str | int | float | bool | list["JsonValue"] | dict[str, "JsonValue"] | None
"""A JSON value, as answers carry free-form fields."""
JsonObject: TypeAlias = dict[str, JsonValue]
JsonInputValue: TypeAlias = str | int | float | bool | Sequence["JsonInputValue"] | Mapping[str, "JsonInputValue"] | None
"""A JSON value as an input takes it: any sequence or mapping of JSON values."""
JsonInput: TypeAlias = Mapping[str, JsonInputValue]

_NAMES: dict[str, tuple[tuple[str, str], ...]] = {}


def _names(message: str) -> tuple[tuple[str, str], ...]:
    """(attribute, wire name) of each field of a message."""
    names = _NAMES.get(message)
    if names is None:
        names = _NAMES[message] = tuple((field.attr, field.name) for field in MESSAGES[message])
    return names


def _plain(value: object) -> JsonValue:
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    return cast(JsonValue, value)  # str, int, float, bool or None by construction


class Model:
    """An answer: every declared field present, unset optional fields None, lists and maps empty; the
    JSON fields this SDK does not know (a newer service's) in `extra`, by wire name."""

    __slots__ = ()
    _message: ClassVar[str]
    extra: dict[str, JsonValue]

    def to_dict(self) -> dict[str, JsonValue]:
        """The answer as plain data keyed by wire names: the same JSON whichever protocol carried it
        (the declared fields; those this SDK does not know stay in `extra`)."""
        return {wire: _plain(getattr(self, attr)) for attr, wire in _names(self._message)}
