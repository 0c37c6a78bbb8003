"""What a client tells of its calls and who makes them: the User-Agent and x-api-client headers, one
log record per attempt (credentials redacted by one rule, redact_headers), the W3C trace context of
the caller's span where OpenTelemetry is installed, and what came with an answer (RawResponse)."""

from __future__ import annotations

import base64
import importlib
import logging
import os
import platform
import sys
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import httpx

from ._model import Model
from ._schema import API_KEY_HEADER, DISTRIBUTION, ENV_PREFIX, SDK_VERSION, SECRET_HEADER
from .types import Protocol

if TYPE_CHECKING:
    from grpc import UnaryUnaryClientInterceptor as GrpcInterceptor
    from grpc.aio import UnaryUnaryClientInterceptor as AsyncGrpcInterceptor
else:
    # The constructors' annotations name them; grpc itself is imported only by a client over grpc.
    GrpcInterceptor = AsyncGrpcInterceptor = object

__all__ = ["AsyncGrpcInterceptor", "GrpcInterceptor"]

M = TypeVar("M", bound=Model)

LOGGER = logging.getLogger(__package__ or __name__)
"""The package's logger: a DEBUG record per attempt, a WARNING record per failed one."""
# Nothing reaches stderr unless the application configures logging, or <ENV_PREFIX>_LOG asks for it.
LOGGER.addHandler(logging.NullHandler())

REDACTED = "[redacted]"
_SECRET_HEADERS = frozenset(name.lower() for name in (SECRET_HEADER, API_KEY_HEADER, "authorization", "proxy-authorization", "cookie", "set-cookie"))


def redact_headers(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, str]:
    """A copy of `headers` (gRPC: metadata) with the value of every credential replaced by "[redacted]":
    the secret, the API key, authorization, cookies. Whatever the SDK logs goes through it."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    return {name: REDACTED if name.lower() in _SECRET_HEADERS else value for name, value in items}


def environment(setting: str) -> str | None:
    """<ENV_PREFIX>_<setting> of the environment; None when unset or empty."""
    return os.environ.get(f"{ENV_PREFIX}_{setting}") or None


def environment_name(setting: str) -> str:
    return f"{ENV_PREFIX}_{setting}"


def sdk_headers() -> dict[str, str]:
    """Who calls, on every request of every protocol: the package (User-Agent; gRPC: the channel's
    user agent) and x-api-client, "python/<version> <implementation>/<version>" as every SDK writes it."""
    implementation = f"{platform.python_implementation().lower()}/{platform.python_version()}"
    return {"user-agent": user_agent(), "x-api-client": f"python/{SDK_VERSION} {implementation}"}


def user_agent() -> str:
    return f"{DISTRIBUTION}/{SDK_VERSION}"


class _StderrHandler(logging.Handler):
    """Writes each record to sys.stderr as it is then (an application or a test may replace it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:
            self.handleError(record)


_log_handler: logging.Handler | None = None


def log_from_environment() -> None:
    """What <ENV_PREFIX>_LOG asks for, once a process: debug, every attempt to stderr; info, the
    failures alone (WARNING records); unset or anything else, nothing beyond the logging configuration."""
    global _log_handler
    level = {"debug": logging.DEBUG, "info": logging.INFO}.get((environment("LOG") or "").strip().lower())
    if level is None:
        return
    if _log_handler is None:
        _log_handler = _StderrHandler()
        _log_handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        LOGGER.addHandler(_log_handler)
    if LOGGER.level == logging.NOTSET or LOGGER.level > level:
        LOGGER.setLevel(level)


class Exchange:
    """What one attempt saw of its answer: the HTTP status or the gRPC code's name, and the headers
    (gRPC: initial and trailing metadata). None of them when no answer came."""

    __slots__ = ("headers", "status")

    def __init__(self) -> None:
        self.status: int | str | None = None
        self.headers: httpx.Headers | None = None


def metadata_headers(*metadata: Iterable[Any] | None) -> httpx.Headers:
    """gRPC metadata as headers: every entry, in order; a binary (-bin) value base64-encoded."""
    items: list[tuple[str, str]] = []
    for entries in metadata:
        for entry in entries or ():
            key, value = (entry.key, entry.value) if hasattr(entry, "key") else entry
            text = base64.b64encode(value).decode() if isinstance(value, bytes) else str(value)
            items.append((str(key), text))
    return httpx.Headers(items)


def log_attempt(
    operation: str,
    protocol: Protocol,
    attempt: int,
    seen: Exchange,
    duration: float,
    headers: Mapping[str, str],
    error: BaseException | None,
    will_retry: bool,
) -> None:
    """The record of one attempt: DEBUG when it was answered, WARNING when it failed."""
    level = logging.DEBUG if error is None else logging.WARNING
    if not LOGGER.isEnabledFor(level):
        return
    code = getattr(error, "code", None) if error is not None else None
    status = seen.status
    outcome = "OK" if status is None and error is None else "no answer" if status is None else f"HTTP {status}" if isinstance(status, int) else status
    if code is not None:
        outcome = f"{code} ({outcome})"
    duration_ms = round(duration * 1000)
    redacted = redact_headers(headers)
    message = f"{operation} over {protocol}, attempt {attempt}: {outcome} in {duration_ms} ms{', retrying' if will_retry else ''}; headers {redacted}"
    fields = {
        "operation": operation,
        "protocol": protocol,
        "attempt": attempt,
        "status": status,
        "code": code,
        "duration_ms": duration_ms,
        "will_retry": will_retry,
        "headers": redacted,
    }
    LOGGER.log(level, message, extra=fields)


_propagate: Any = None
"""opentelemetry.propagate once looked up; False when it is not installed."""


def inject_trace_context(headers: dict[str, str]) -> dict[str, str]:
    """`headers` with the W3C trace context of the caller's current span (traceparent, ...), a copy,
    where the OpenTelemetry API is installed (an optional dependency); `headers` itself otherwise."""
    global _propagate
    if _propagate is None:
        try:
            _propagate = importlib.import_module("opentelemetry.propagate")
        except ImportError:
            _propagate = False
    if not _propagate:
        return headers
    carrier = dict(headers)
    _propagate.inject(carrier)
    return carrier


class RawResponse(Generic[M]):
    """What came with an answer (client.with_raw_response.<method>(...)): the HTTP status (None over
    gRPC), the headers (gRPC: the initial and trailing metadata), the protocol, the attempts the call
    took; parse() gives the answer the plain method returns."""

    __slots__ = ("_answer", "attempts", "headers", "protocol", "status_code")

    def __init__(self, answer: M, status_code: int | None, headers: httpx.Headers, protocol: Protocol, attempts: int) -> None:
        self._answer = answer
        self.status_code = status_code
        """The HTTP status; None over gRPC."""
        self.headers = headers
        """The answer's headers; over gRPC its initial and trailing metadata (binary values base64)."""
        self.protocol: Protocol = protocol
        self.attempts = attempts
        """Attempts the call took, retries included."""

    def parse(self) -> M:
        """The answer, as the plain method returns it."""
        return self._answer

    def __repr__(self) -> str:
        return f"RawResponse(status_code={self.status_code!r}, protocol={self.protocol!r}, attempts={self.attempts!r}, headers={redact_headers(self.headers.multi_items())!r})"
