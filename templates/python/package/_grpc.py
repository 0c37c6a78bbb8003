"""gRPC through grpcio (sync) and grpc.aio (async). Loaded only when a client's protocol is grpc:
the message classes are built from the descriptor set shipped in the package, so nothing is compiled."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import grpc
import grpc.aio
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import Message

from ._descriptors import FILE_DESCRIPTOR_SET
from ._facts import Field, Operation
from ._model import JsonValue, Model
from ._observe import Exchange, metadata_headers, user_agent
from ._schema import (
    ENUMS,
    GRPC_CODE_METADATA,
    GRPC_NO_ANSWER_STATUSES,
    GRPC_PORT,
    GRPC_UNREADABLE_STATUSES,
    MESSAGES,
    RETRY_AFTER_METADATA,
    RETRY_AFTER_MS_METADATA,
    TEXTS,
)
from ._shape import (
    WireTypeError,
    check_wire_types,
    datetime_of,
    enum_name,
    float32_of,
    parse_bytes,
    parse_date,
    parse_duration,
    parse_timestamp,
    timedelta_of,
)
from ._tls import GrpcTls
from .errors import ApiError, cancelled, code_of_grpc_status, is_error_code, no_answer, timed_out, unreadable_message, wait_in_ms
from .types import MODELS


def _pool() -> descriptor_pool.DescriptorPool:
    # A pool of its own: the application may load other versions of the same files into the default one.
    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_pb2.FileDescriptorSet.FromString(FILE_DESCRIPTOR_SET).file:
        pool.Add(file)
    return pool


_POOL = _pool()
_CLASSES: dict[str, type[Message]] = {}


def message_class(full_name: str) -> type[Message]:
    """The protobuf message class of a fully-qualified message name."""
    cls = _CLASSES.get(full_name)
    if cls is None:
        cls = _CLASSES[full_name] = message_factory.GetMessageClass(_POOL.FindMessageTypeByName(full_name))
    return cls


# ---------------------------------------------------------------- google.protobuf.Struct <-> JSON


def _from_value(value: Any) -> JsonValue:
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        number: float = value.number_value
        # Struct numbers are doubles; whole ones read back as the ints JSON would have carried.
        return int(number) if number.is_integer() and abs(number) <= 2**53 else number
    if kind == "string_value":
        return str(value.string_value)
    if kind == "bool_value":
        return bool(value.bool_value)
    if kind == "struct_value":
        return _from_struct(value.struct_value)
    if kind == "list_value":
        return [_from_value(item) for item in value.list_value.values]
    return None


def _from_struct(struct: Any) -> dict[str, JsonValue]:
    return {str(key): _from_value(item) for key, item in struct.fields.items()}


def _fill_value(target: Any, value: object) -> None:
    if value is None:
        target.null_value = 0
    elif isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, (int, float)):
        target.number_value = float(value)
    elif isinstance(value, str):
        target.string_value = value
    elif isinstance(value, Mapping):
        target.struct_value.SetInParent()
        _fill_struct(target.struct_value, value)
    elif isinstance(value, (list, tuple)):
        target.list_value.SetInParent()
        for item in value:
            _fill_value(target.list_value.values.add(), item)
    else:
        raise TypeError(f"{type(value).__name__} is not a JSON value")


def _fill_struct(target: Any, value: Mapping[Any, object]) -> None:
    for key, item in value.items():
        _fill_value(target.fields[str(key)], item)


# ---------------------------------------------------------------- flat shape <-> protobuf


def _fill_seconds(target: Any, seconds_and_nanos: tuple[int, int] | None) -> None:
    """Sets a google.protobuf.Timestamp or Duration (checked before: never None)."""
    assert seconds_and_nanos is not None
    target.SetInParent()
    target.seconds, target.nanos = seconds_and_nanos


# The proto value of a scalar in its JSON form (to_wire): uint64 and int64_string from their decimal strings, bytes from base64.
_SCALARS: dict[str, Callable[[Any], object]] = {
    "int32": int,
    "int64": int,
    "uint32": int,
    "uint64": int,
    "int64_string": int,
    "float32": float,
    "float64": float,
    "bytes": parse_bytes,
}


def _fill_map(field: Field, container: Any, raw: Mapping[str, Any]) -> None:
    """Sets the entries of a proto map from a map<V> in its JSON forms: messages (a Timestamp or
    Duration too) filled in place, enums as their numbers, other scalars as protobuf takes them."""
    value, ref = field.value, field.ref or ""
    scalar = _SCALARS.get(value or "")
    for key, item in raw.items():
        if value == "message":
            fill(ref, container[key], item)
        elif value == "timestamp":
            _fill_seconds(container[key], parse_timestamp(item))
        elif value == "duration":
            _fill_seconds(container[key], parse_duration(item))
        elif value == "enum":
            container[key] = ENUMS[ref].get(item, 0)
        else:
            container[key] = item if scalar is None else scalar(item)


def fill(message: str, target: Any, value: Mapping[str, object]) -> None:
    """Sets the fields of protobuf message `target` from the flat input `value` (in the JSON forms
    of to_wire, checked before)."""
    for field in MESSAGES[message]:
        raw: Any = value.get(field.name)
        if raw is None:
            continue
        name, kind, ref = field.name, field.kind, field.ref or ""
        scalar = _SCALARS.get(kind)
        if field.is_list:
            container = getattr(target, name)
            if kind == "message":
                for item in raw:
                    fill(ref, container.add(), item)
            elif kind == "json":
                for item in raw:
                    _fill_struct(container.add(), item)
            elif kind == "enum":
                container.extend(ENUMS[ref].get(item, 0) for item in raw)
            elif kind == "timestamp":
                for item in raw:
                    _fill_seconds(container.add(), parse_timestamp(item))
            elif kind == "duration":
                for item in raw:
                    _fill_seconds(container.add(), parse_duration(item))
            elif scalar is not None:
                container.extend(scalar(item) for item in raw)
            else:
                container.extend(raw)
        elif kind == "map":
            _fill_map(field, getattr(target, name), raw)
        elif kind == "message":
            getattr(target, name).SetInParent()
            fill(ref, getattr(target, name), raw)
        elif kind == "json":
            getattr(target, name).SetInParent()
            _fill_struct(getattr(target, name), raw)
        elif kind == "enum":
            setattr(target, name, ENUMS[ref].get(raw, 0))
        elif kind == "timestamp":
            _fill_seconds(getattr(target, name), parse_timestamp(raw))
        elif kind == "duration":
            _fill_seconds(getattr(target, name), parse_duration(raw))
        elif scalar is not None:
            setattr(target, name, scalar(raw))
        else:
            setattr(target, name, raw)


_Decoder = Callable[[Any], object]
_SCALAR, _PRESENCE, _LIST, _MAP = range(4)


def _date(text: str) -> object:
    parsed = parse_date(text)
    # A text that is not a date (which the server never answers) stays as it came.
    return text if parsed is None else parsed


# The Python values of the kinds protobuf does not read as them.
_DECODERS: dict[str, _Decoder] = {
    "json": _from_struct,
    "timestamp": lambda value: datetime_of(value.seconds, value.nanos),
    "duration": lambda value: timedelta_of(value.seconds, value.nanos),
    "date": _date,
    "float32": float32_of,
}


def _decoder(kind: str, ref: str | None, value: str | None = None) -> _Decoder | None:
    if kind == "map":
        # A map<V> reads each value as a single field of V (a plain map's strings as they are).
        return _decoder(value, ref) if value else None
    if kind == "enum":
        enum = ref or ""
        return lambda number: enum_name(enum, number)
    if kind == "message":
        message = ref or ""
        return lambda value: from_proto(message, value)
    return _DECODERS.get(kind)


def _mode(field: Field) -> int:
    if field.is_list:
        return _LIST
    if field.kind == "map":
        return _MAP
    # A Timestamp or Duration is a message: unset, it reads as None, not as the epoch or 0s.
    return _PRESENCE if field.presence or field.kind in ("timestamp", "duration") else _SCALAR


# Per message: its answer class and, per field in declaration order, (name, mode, decoder).
_Plan = tuple[type[Model], tuple[tuple[str, int, _Decoder | None], ...]]
_PLANS: dict[str, _Plan] = {}


def _plan(message: str) -> _Plan:
    plan = _PLANS.get(message)
    if plan is None:
        steps = tuple((f.name, _mode(f), _decoder(f.kind, f.ref, f.value)) for f in MESSAGES[message])
        plan = _PLANS[message] = (MODELS[message], steps)
    return plan


def from_proto(message: str, value: Any) -> Model:
    """A protobuf message as the answer class of `message`, in the same flat shape as from JSON."""
    cls, steps = _plan(message)
    # Positional: the answer classes declare their fields in the message's order.
    fields: list[object] = []
    for name, mode, decode in steps:
        if mode == _LIST:
            items = getattr(value, name)
            fields.append(list(items) if decode is None else [decode(item) for item in items])
        elif mode == _MAP:
            fields.append(dict(getattr(value, name)) if decode is None else {key: decode(item) for key, item in getattr(value, name).items()})
        elif mode == _PRESENCE and not value.HasField(name):
            fields.append(None)
        else:
            raw = getattr(value, name)
            fields.append(raw if decode is None else decode(raw))
    return cls(*fields)


# ---------------------------------------------------------------- calls


def encode_request(operation: Operation, body: Mapping[str, object]) -> Message:
    """The request message, after the check of what protobuf would coerce or drop without a word."""
    assert operation.grpc is not None
    try:
        check_wire_types(operation.input, body)
    except WireTypeError as error:
        raise ApiError("INVALID_ARGUMENT", str(error), operation.name, "grpc", refused=True) from None
    request = message_class(operation.grpc.request_type)()
    fill(operation.input, request, body)
    return request


def _metadata(headers: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    # gRPC metadata keys are lower case; the User-Agent is the channel's (grpc.primary_user_agent).
    return tuple((name, value) for name, value in ((key.lower(), value) for key, value in headers.items()) if name != "user-agent")


def _metadata_value(metadata: Iterable[Any] | None, name: str) -> str | None:
    """The first value of `name` in gRPC metadata, if any."""
    for entry in metadata or ():
        key, value = (entry.key, entry.value) if hasattr(entry, "key") else entry
        if key == name:
            return value.decode() if isinstance(value, bytes) else str(value)
    return None


def _named_code(metadata: Iterable[Any] | None) -> str | None:
    """The error code the server names in its metadata, if any."""
    return _metadata_value(metadata, GRPC_CODE_METADATA)


def _retry_after(error: grpc.Call | grpc.aio.AioRpcError) -> float | None:
    """Seconds the server asks to wait, on whatever status, or None: retry-after-ms metadata
    (milliseconds) before retry-after (seconds)."""
    milliseconds = wait_in_ms(
        _metadata_value(error.trailing_metadata(), RETRY_AFTER_MS_METADATA) or _metadata_value(error.initial_metadata(), RETRY_AFTER_MS_METADATA)
    )
    if milliseconds is not None:
        return milliseconds
    value = _metadata_value(error.trailing_metadata(), RETRY_AFTER_METADATA) or _metadata_value(error.initial_metadata(), RETRY_AFTER_METADATA)
    try:
        return None if value is None else max(0.0, float(value))
    except ValueError:
        return None


def rpc_error(operation: Operation, error: grpc.Call | grpc.aio.AioRpcError, deadline_set: bool, default_endpoint: str | None) -> ApiError:
    """The ApiError of a failed call (_rpc_error), with the metadata that came with it as its headers."""
    failure = _rpc_error(operation, error, deadline_set, default_endpoint)
    initial, trailing = error.initial_metadata(), error.trailing_metadata()
    if initial or trailing:
        failure.headers = metadata_headers(initial, trailing)
    return failure


def _rpc_error(operation: Operation, error: grpc.Call | grpc.aio.AioRpcError, deadline_set: bool, default_endpoint: str | None) -> ApiError:
    """The ApiError of a failed call: the code the server names, else the one of its gRPC status.

    A status the server does not name comes from the gRPC library or a proxy: UNAVAILABLE is no
    answer (CANCELLED too: the caller's own cancel and close() are told apart by the transports),
    INTERNAL or UNKNOWN a stream without a readable answer (a write's may have happened). A refused
    connection to `default_endpoint`, the endpoint the client chose itself, names the option to set.
    """
    status = error.code()
    message = error.details() or ""
    if status == grpc.StatusCode.DEADLINE_EXCEEDED and deadline_set:
        return timed_out(operation.name, "grpc")
    number = status.value[0] if status is not None else -1
    wait = _retry_after(error)
    named = _named_code(error.trailing_metadata()) or _named_code(error.initial_metadata())
    if is_error_code(named):
        return ApiError(named, message, operation.name, "grpc", retry_after=wait)
    if number in GRPC_NO_ANSWER_STATUSES:
        if default_endpoint is not None and "connection refused" in message.lower():
            message = TEXTS["defaultGrpcEndpoint"].format(reason=message, endpoint=default_endpoint, port=GRPC_PORT, option="grpc_endpoint")
        return no_answer(operation.name, "grpc", message, wait)
    if number in GRPC_UNREADABLE_STATUSES:
        return unreadable_message(operation.name, operation.kind == "read", message)
    return ApiError(code_of_grpc_status(number), message, operation.name, "grpc", retry_after=wait)


def refused_connection(error: grpc.Call | grpc.aio.AioRpcError) -> ConnectionRefusedError | None:
    """The cause to raise a failure from when the gRPC library says the connection was refused (its
    own UNAVAILABLE, no code named by a server): nothing was sent, so any call may go again."""
    if error.code() != grpc.StatusCode.UNAVAILABLE or _named_code(error.trailing_metadata()) or _named_code(error.initial_metadata()):
        return None
    details = error.details() or ""
    return ConnectionRefusedError(details) if "connection refused" in details.lower() else None


class _Methods:
    """The unary callables of one channel, one per operation, made on first use."""

    def __init__(self, channel: grpc.Channel | grpc.aio.Channel) -> None:
        self._channel = channel
        self._methods: dict[str, Any] = {}

    def get(self, operation: Operation) -> Any:
        method = self._methods.get(operation.name)
        if method is None:
            binding = operation.grpc
            assert binding is not None
            method = self._methods[operation.name] = self._channel.unary_unary(
                binding.path,
                request_serializer=message_class(binding.request_type).SerializeToString,
                response_deserializer=message_class(binding.response_type).FromString,
            )
        return method


def _credentials(tls: GrpcTls) -> grpc.ChannelCredentials:
    return grpc.ssl_channel_credentials(tls.root_certificates, tls.private_key, tls.certificate_chain)


def _options(max_bytes: int) -> list[tuple[str, int | str]]:
    # The channel's User-Agent names the package first (the gRPC library adds its own after it).
    return [("grpc.max_receive_message_length", max_bytes), ("grpc.primary_user_agent", user_agent())]


def _code_name(code: grpc.StatusCode | None) -> str | None:
    return None if code is None else str(code.name)


class SyncGrpcTransport:
    def __init__(
        self, endpoint: str, tls: GrpcTls | None, max_bytes: int, *, endpoint_is_default: bool, interceptors: Sequence[grpc.UnaryUnaryClientInterceptor] = ()
    ) -> None:
        options = _options(max_bytes)
        self._default_endpoint = endpoint if endpoint_is_default else None
        self._closed = False
        self._channel = grpc.insecure_channel(endpoint, options) if tls is None else grpc.secure_channel(endpoint, _credentials(tls), options)
        # The caller's interceptors, in order, around every call of the channel.
        self._methods = _Methods(grpc.intercept_channel(self._channel, *interceptors) if interceptors else self._channel)

    def call(
        self, operation: Operation, protocol: str, body: Mapping[str, object], headers: Mapping[str, str], timeout: float | None, seen: Exchange
    ) -> Model:
        request = encode_request(operation, body)
        try:
            response, call = self._methods.get(operation).with_call(request, timeout=timeout, metadata=_metadata(headers))
        except grpc.RpcError as error:
            if not isinstance(error, grpc.Call):
                raise
            if self._closed:
                raise cancelled(operation.name, "grpc") from None
            seen.status = _code_name(error.code())
            failure = rpc_error(operation, error, timeout is not None, self._default_endpoint)
            seen.headers = failure.headers
            raise failure from refused_connection(error)
        seen.status, seen.headers = _code_name(call.code()), metadata_headers(call.initial_metadata(), call.trailing_metadata())
        return from_proto(operation.output, response)

    def close(self) -> None:
        self._closed = True
        self._channel.close()


class AsyncGrpcTransport:
    def __init__(
        self,
        endpoint: str,
        tls: GrpcTls | None,
        max_bytes: int,
        *,
        endpoint_is_default: bool,
        interceptors: Sequence[grpc.aio.UnaryUnaryClientInterceptor] = (),
    ) -> None:
        self._endpoint = endpoint
        self._default_endpoint = endpoint if endpoint_is_default else None
        self._tls = tls
        self._options = _options(max_bytes)
        self._interceptors = list(interceptors) or None
        # Made in the event loop of the first call: a grpc.aio channel belongs to one loop.
        self._channel: grpc.aio.Channel | None = None
        self._methods: _Methods | None = None

    async def call(
        self, operation: Operation, protocol: str, body: Mapping[str, object], headers: Mapping[str, str], timeout: float | None, seen: Exchange
    ) -> Model:
        request = encode_request(operation, body)
        if self._methods is None:
            self._channel = (
                grpc.aio.insecure_channel(self._endpoint, self._options, interceptors=self._interceptors)
                if self._tls is None
                else grpc.aio.secure_channel(self._endpoint, _credentials(self._tls), self._options, interceptors=self._interceptors)
            )
            self._methods = _Methods(self._channel)
        try:
            call = self._methods.get(operation)(request, timeout=timeout, metadata=_metadata(headers))
            response = await call
            seen.status, seen.headers = _code_name(await call.code()), metadata_headers(await call.initial_metadata(), await call.trailing_metadata())
        except asyncio.CancelledError:
            # close() cancels the calls of its channel: the caller hears it as CANCELLED; any other
            # cancellation (the caller's own task) goes on as it is.
            if self._channel is None:
                raise cancelled(operation.name, "grpc") from None
            raise
        except grpc.aio.AioRpcError as error:
            if self._channel is None:
                raise cancelled(operation.name, "grpc") from None
            seen.status = _code_name(error.code())
            failure = rpc_error(operation, error, timeout is not None, self._default_endpoint)
            seen.headers = failure.headers
            raise failure from refused_connection(error)
        if not isinstance(response, Message):
            # grpc.aio answers None for a message its deserializer refused (the sync stub raises INTERNAL).
            raise unreadable_message(operation.name, operation.kind == "read", "Exception deserializing response!")
        return from_proto(operation.output, response)

    async def close(self) -> None:
        # Forgotten first, so that a call the close ends reads as cancelled.
        channel, self._channel, self._methods = self._channel, None, None
        if channel is not None:
            await channel.close()
