"""GraphQL and REST over httpx: the request of each operation and the reading of its answer, then one
synchronous and one asynchronous transport that only move the bytes."""

from __future__ import annotations

import asyncio
import json
import ssl
import threading
import time
from collections.abc import Iterable, Mapping
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote, urlencode

import httpcore
import httpx

from ._facts import Operation
from ._model import Model
from ._schema import TEXTS
from ._shape import answer_mismatch, from_json
from .errors import (
    ApiError,
    code_of_http_status,
    code_of_oauth_error,
    is_error_code,
    malformed_answer,
    mismatched_answer,
    no_answer,
    server_unavailable,
    timed_out,
    too_large,
)
from .types import Protocol

_JSON = "application/json"


def _dumps(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _query_value(value: object) -> str:
    # As JavaScript's String() writes a value, so that every client sends the same query string.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return ",".join(_query_value(item) for item in value)
    return str(value)


# The JSON of each operation's GraphQL document, encoded once: the documents are long and never change.
_QUERIES: dict[str, bytes] = {}


def _graphql_body(operation: Operation, document: str, with_params: bool, body: Mapping[str, object]) -> bytes:
    query = _QUERIES.get(operation.name)
    if query is None:
        query = _QUERIES[operation.name] = _dumps(document)
    return b'{"query":' + query + (b',"variables":{"params":' + _dumps(body) + b"}}" if with_params else b"}")


def build_request(
    service_url: str, operation: Operation, protocol: Protocol, body: Mapping[str, object], headers: Mapping[str, str]
) -> tuple[str, str, bytes | None, Mapping[str, str]]:
    """Method, URL, body and headers of one call."""
    if protocol == "graphql":
        graphql = operation.graphql
        assert graphql is not None
        return "POST", f"{service_url}/graphql", _graphql_body(operation, graphql.document, graphql.with_params, body), {**headers, "content-type": _JSON}
    rest = operation.rest
    assert rest is not None
    path = rest.path
    if rest.path_params:
        # Each {field} segment takes the input's value, percent-encoded; the field leaves the body.
        for param in rest.path_params:
            path = path.replace("{" + param + "}", quote(_query_value(body.get(param, "")), safe=""))
        body = {key: value for key, value in body.items() if key not in rest.path_params}
    if rest.in_query:
        query = urlencode([(key, _query_value(value)) for key, value in body.items() if value is not None])
        return rest.method, f"{service_url}{path}{'?' + query if query else ''}", None, headers
    return rest.method, f"{service_url}{path}", _dumps(body), {**headers, "content-type": _JSON}


def retry_after(headers: httpx.Headers) -> float | None:
    """Seconds a Retry-After header asks to wait (delta-seconds or an HTTP date), or None."""
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _json_object(content: bytes) -> dict[str, object] | None:
    """A JSON object, or None for any other body (not JSON, null, a list, a scalar)."""
    try:
        value = json.loads(content)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def bare_status(operation: Operation, protocol: Protocol, status: int, wait: float | None) -> ApiError:
    """A failure whose body is not the error model (a proxy's HTML page): the code of its status, any 5xx UNAVAILABLE."""
    if status >= 500:
        return server_unavailable(operation.name, protocol, status, wait)
    return ApiError(code_of_http_status(status), TEXTS["httpStatus"].format(status=status), operation.name, protocol, status=status, retry_after=wait)


def _read_graphql(operation: Operation, status: int, content: bytes, wait: float | None) -> Model:
    answer = _json_object(content)
    errors = answer.get("errors") if answer is not None else None
    if isinstance(errors, list) and errors:
        first = errors[0] if isinstance(errors[0], dict) else {}
        extensions = first.get("extensions")
        code = extensions.get("code") if isinstance(extensions, dict) else None
        message = str(first.get("message", ""))
        raise ApiError(code if is_error_code(code) else "INTERNAL", message, operation.name, "graphql", status=status, retry_after=wait)
    if not 200 <= status < 300:
        raise bare_status(operation, "graphql", status, wait)
    data = answer.get("data") if answer is not None else None
    fields = data.get(operation.name) if isinstance(data, dict) else None
    if not isinstance(fields, dict):
        raise malformed_answer(operation.name, operation.retried, "graphql", status)
    return _answer(operation, "graphql", status, fields)


def _answer(operation: Operation, protocol: Protocol, status: int, body: dict[str, object]) -> Model:
    """The answer class of a 2xx body, or the error of one whose fields do not have their types."""
    mismatch = answer_mismatch(operation.output, body)
    if mismatch is not None:
        raise mismatched_answer(operation.name, operation.retried, protocol, status, operation.output, mismatch)
    return from_json(operation.output, body)


def _read_rest(operation: Operation, status: int, content: bytes, wait: float | None) -> Model:
    body = _json_object(content) if content else {}
    if 200 <= status < 300:
        if body is None:
            raise malformed_answer(operation.name, operation.retried, "rest", status)
        return _answer(operation, "rest", status, body)
    if body is None:
        raise bare_status(operation, "rest", status, wait)
    oauth_error = body.get("error")
    if isinstance(oauth_error, str):
        description = body.get("error_description")
        text = description if isinstance(description, str) else oauth_error
        code = code_of_oauth_error(oauth_error, status)
        raise ApiError(code, text, operation.name, "rest", status=status, oauth_error=oauth_error, retry_after=wait)
    named = body.get("code")
    code = named if is_error_code(named) else code_of_http_status(status)
    message = body.get("message")
    raise ApiError(code, message if isinstance(message, str) else TEXTS["httpStatus"].format(status=status), operation.name, "rest", status=status, retry_after=wait)


def read_answer(operation: Operation, protocol: Protocol, response: httpx.Response, content: bytes) -> Model:
    """The answer in the flat shape, or the ApiError it carries."""
    wait = retry_after(response.headers) if response.status_code >= 400 else None
    read = _read_graphql if protocol == "graphql" else _read_rest
    return read(operation, response.status_code, content, wait)


def _check_size(operation: Operation, protocol: Protocol, response: httpx.Response, limit: int, read: int) -> None:
    """Refuses an answer over the size cap as soon as it is known: from Content-Length, or from the bytes read so far."""
    declared = response.headers.get("content-length")
    if read > limit or (read == 0 and declared is not None and declared.isdigit() and int(declared) > limit):
        raise too_large(operation.name, protocol, limit, response.status_code)


def _check_open(client: httpx.Client | httpx.AsyncClient, operation: Operation, protocol: Protocol) -> None:
    """A caller's http_client that it closed: refused in the one error class, not httpx's RuntimeError."""
    if client.is_closed:
        raise ApiError("FAILED_PRECONDITION", TEXTS["clientClosed"].format(operation=operation.name), operation.name, protocol, refused=True)


def _deadline(timeout: float | None) -> float | None:
    return None if timeout is None else time.monotonic() + timeout


def _past(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


# The deadline of the sync call this thread is making, for the sockets of the client's own pool:
# httpx bounds each read on its own, so a server that drips its status line and headers a byte at
# a time would hold a call for ever without it.
_call_deadline = threading.local()


def _within_deadline(timeout: float | None, expired: type[httpcore.TimeoutException]) -> float | None:
    """`timeout` cut to what is left of this thread's call deadline; `expired` once it has passed."""
    deadline: float | None = getattr(_call_deadline, "value", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise expired("the call's deadline passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A socket whose every wait ends at the call's deadline."""

    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _within_deadline(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _within_deadline(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None) -> httpcore.NetworkStream:
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, _within_deadline(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, backend: httpcore.NetworkBackend) -> None:
        self._backend = backend

    def connect_tcp(
        self, host: str, port: int, timeout: float | None = None, local_address: str | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        stream = self._backend.connect_tcp(host, port, _within_deadline(timeout, httpcore.ConnectTimeout), local_address, socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return _DeadlineStream(self._backend.connect_unix_socket(path, _within_deadline(timeout, httpcore.ConnectTimeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def _own_client(verify: ssl.SSLContext | bool) -> httpx.Client:
    """The sync client's own httpx client, its sockets bounded by each call's deadline (where httpx
    exposes its connection pool's network backend; otherwise per read, as httpx does)."""
    client = httpx.Client(timeout=None, verify=verify)
    pool: Any = getattr(getattr(client, "_transport", None), "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if isinstance(backend, httpcore.NetworkBackend):
        pool._network_backend = _DeadlineBackend(backend)
    return client


class SyncHttpTransport:
    def __init__(self, service_url: str, client: httpx.Client | None, verify: ssl.SSLContext | bool, max_bytes: int) -> None:
        self._service_url = service_url
        self._max_bytes = max_bytes
        self._owned = client is None
        self._client = _own_client(verify) if client is None else client

    def call(
        self, operation: Operation, protocol: Protocol, body: Mapping[str, object], headers: Mapping[str, str], timeout: float | None
    ) -> Model:
        method, url, content, request_headers = build_request(self._service_url, operation, protocol, body, headers)
        _check_open(self._client, operation, protocol)
        # httpx's timeout bounds each wait (connect, each read); the deadline bounds the whole call,
        # so a server that drips its answer a byte at a time cannot hold it past `timeout`.
        deadline = _deadline(timeout)
        _call_deadline.value = deadline
        try:
            with self._client.stream(method, url, content=content, headers=request_headers, timeout=httpx.USE_CLIENT_DEFAULT if timeout is None else timeout) as response:
                _check_size(operation, protocol, response, self._max_bytes, 0)
                chunks = []
                size = 0
                for chunk in response.iter_bytes():
                    chunks.append(chunk)
                    size += len(chunk)
                    _check_size(operation, protocol, response, self._max_bytes, size)
                    if _past(deadline):
                        raise timed_out(operation.name, protocol)
        except httpx.TimeoutException:
            raise timed_out(operation.name, protocol) from None
        except (httpx.TransportError, ssl.SSLError) as error:
            # httpcore's asyncio backend lets a TLS alert read after the handshake (TLS 1.3: a client
            # certificate the server wanted) through as ssl.SSLError instead of httpx.ReadError.
            raise no_answer(operation.name, protocol, error) from error
        finally:
            _call_deadline.value = None
        return read_answer(operation, protocol, response, b"".join(chunks))

    def close(self) -> None:
        if self._owned:
            self._client.close()


class AsyncHttpTransport:
    def __init__(self, service_url: str, client: httpx.AsyncClient | None, verify: ssl.SSLContext | bool, max_bytes: int) -> None:
        self._service_url = service_url
        self._max_bytes = max_bytes
        self._owned = client is None
        self._client = httpx.AsyncClient(timeout=None, verify=verify) if client is None else client

    async def call(
        self, operation: Operation, protocol: Protocol, body: Mapping[str, object], headers: Mapping[str, str], timeout: float | None
    ) -> Model:
        method, url, content, request_headers = build_request(self._service_url, operation, protocol, body, headers)
        _check_open(self._client, operation, protocol)
        request = self._client.build_request(method, url, content=content, headers=request_headers, timeout=httpx.USE_CLIENT_DEFAULT if timeout is None else timeout)

        async def exchange() -> tuple[httpx.Response, bytes]:
            response = await self._client.send(request, stream=True)
            try:
                _check_size(operation, protocol, response, self._max_bytes, 0)
                chunks = []
                size = 0
                async for chunk in response.aiter_bytes():
                    chunks.append(chunk)
                    size += len(chunk)
                    _check_size(operation, protocol, response, self._max_bytes, size)
                return response, b"".join(chunks)
            finally:
                await response.aclose()

        try:
            # The whole exchange under one deadline: a server that drips its headers or its body
            # cannot hold the call past `timeout`.
            response, body_bytes = await asyncio.wait_for(exchange(), timeout)
        except asyncio.TimeoutError:
            raise timed_out(operation.name, protocol) from None
        except httpx.TimeoutException:
            raise timed_out(operation.name, protocol) from None
        except (httpx.TransportError, ssl.SSLError) as error:
            # httpcore's asyncio backend lets a TLS alert read after the handshake (TLS 1.3: a client
            # certificate the server wanted) through as ssl.SSLError instead of httpx.ReadError.
            raise no_answer(operation.name, protocol, error) from error
        return read_answer(operation, protocol, response, body_bytes)

    async def close(self) -> None:
        if self._owned:
            await self._client.aclose()
