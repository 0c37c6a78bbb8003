"""What every client method goes through, sync or async: the configuration (from the code, else the
environment), refusals before any byte is sent (protocol, server version, read-only mode, a wrong
idempotency_key or max_retries, extra_body over gRPC), headers and Idempotency-Keys, deadlines,
retries, a log record per attempt, and pagination. The same steps as the TypeScript client's core,
from the same facts."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import random
import re
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, cast
from urllib.parse import urlsplit

import httpx

from ._facts import Operation
from ._http import AsyncHttpTransport, SyncHttpTransport
from ._model import Model
from ._observe import (
    AsyncGrpcInterceptor,
    Exchange,
    GrpcInterceptor,
    RawResponse,
    environment,
    environment_name,
    inject_trace_context,
    log_attempt,
    log_from_environment,
    redact_headers,
    sdk_headers,
)
from ._schema import (
    API_KEY_HEADER,
    CLIENT_ROLES,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_TIMEOUT,
    FILLED_OPTIONS,
    GRPC_MISSING,
    GRPC_PORT,
    IDEMPOTENCY_KEY_FORM,
    IDEMPOTENCY_KEY_METADATA,
    IDEMPOTENCY_KEY_PATTERN,
    ITERATE_PAGE_LIMIT,
    OPERATIONS,
    PROTOCOLS,
    RETRY_AFTER_MAX,
    RETRY_ATTEMPTS,
    RETRY_BASE_DELAY,
    RETRY_MAX_DELAY,
    ROLE_TOKEN,
    ROLE_TOKEN_TEXT,
    SECRET_HEADER,
    SECRET_OPTION,
    SECRET_REQUIRED,
    SECRET_VARIABLE,
    TEXTS,
    TOKEN_VERSION_OPERATION,
    VERSION_FIELD,
)
from ._shape import WireTypeError, to_wire
from ._tls import ClientCert, GrpcTls, Verify, grpc_tls, host_of_endpoint, in_clear, ssl_context
from ._version import compare_versions
from .errors import REFUSAL_CODE, ApiError, cancelled, connection_refused, timed_out
from .types import Protocol

if TYPE_CHECKING:
    from ._grpc import AsyncGrpcTransport, SyncGrpcTransport

M = TypeVar("M", bound=Model)
T = TypeVar("T")

@dataclass(frozen=True)
class RetryPolicy:
    """Retries on transient failures (no answer, 429, 502-504, honouring retry-after-ms and Retry-After)
    of reads, idempotent writes and writes that carry an Idempotency-Key (the same key on every
    attempt, so the service applies the write once); any other write is sent again only after a
    refused connection, when nothing of it was sent. A call's max_retries overrides attempts."""

    attempts: int = RETRY_ATTEMPTS
    """Attempts in all, the first included."""
    base_delay: float = RETRY_BASE_DELAY
    """Seconds before the second attempt; doubles each time, with jitter."""
    max_delay: float = RETRY_MAX_DELAY


# Settings whose values repr() never shows: credentials and a private key.
_SECRET_SETTINGS = frozenset({"secret", "api_key", "access_token", "grpc_client_key"})


def _masked(name: str, value: object) -> object:
    """A setting as repr() shows it: a secret as '***' (when set), headers with their credentials redacted."""
    if name in _SECRET_SETTINGS and value:
        return "***"
    if name == "extra_headers" and isinstance(value, Mapping):
        return redact_headers(value)
    return value


@dataclass(frozen=True, repr=False)
class Settings:
    """A client's configuration, as its constructor took it (service_url and credentials: else from the environment)."""

    role: str
    service_url: str | None = None
    protocol: Protocol = "graphql"
    grpc_endpoint: str | None = None
    extra_headers: Mapping[str, str] | None = None
    server_version: str | None = None
    read_only: bool = False
    timeout: float | None = DEFAULT_TIMEOUT
    retry: RetryPolicy | bool = True
    secret: str | None = None
    """The secret of the API's secret schemes (the admin clients' SECRET_OPTION), sent in SECRET_HEADER."""
    fills: Mapping[str, str] | None = None
    """Input fields the client fills in where a call leaves them out (Operation.fills), by name: what FILLED_OPTIONS took."""
    api_key: str | None = None
    access_token: str | None = None
    verify: Verify = True
    cert: ClientCert | None = None
    grpc_tls: bool | None = None
    grpc_root_certificates: bytes | None = None
    grpc_client_cert: bytes | None = None
    grpc_client_key: bytes | None = None
    allow_insecure: bool = False
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    event_hooks: Mapping[str, list[Callable[..., Any]]] | None = None
    grpc_interceptors: Sequence[GrpcInterceptor] | Sequence[AsyncGrpcInterceptor] | None = None

    def __repr__(self) -> str:
        shown = ", ".join(f"{field.name}={_masked(field.name, getattr(self, field.name))!r}" for field in dataclasses.fields(self))
        return f"Settings({shown})"

    def from_environment(self) -> Settings:
        """These settings with what the environment gives for what the code does not give (what the
        code gives wins): <ENV_PREFIX>_SERVICE_URL, _<SECRET_VARIABLE> (admin clients), _ACCESS_TOKEN."""
        changes: dict[str, Any] = {}
        if not self.service_url:
            changes["service_url"] = environment("SERVICE_URL")
            if changes["service_url"] is None:
                raise ValueError(f"service_url is required, or the environment variable {environment_name('SERVICE_URL')}")
        if self.role == "admin":
            if not (self.secret or self.access_token):
                # The secret before a token, as the TypeScript client reads them.
                secret = environment(SECRET_VARIABLE) if SECRET_REQUIRED else None
                changes["secret"] = secret
                changes["access_token"] = None if secret or not ROLE_TOKEN else environment("ACCESS_TOKEN")
        elif self.access_token is None:
            changes["access_token"] = environment("ACCESS_TOKEN")
        return dataclasses.replace(self, **changes) if changes else self


_IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
_SDK_HEADERS = sdk_headers()

# A gRPC target as the clients take it: a host name, IPv4 or bracketed IPv6 address, and a port.
_GRPC_ENDPOINT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}")


def default_grpc_endpoint(service_url: str) -> str:
    """The host of the service URL with the service's gRPC port."""
    parts = urlsplit(service_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"service_url must be an http or https URL such as http://localhost:8080, not '{service_url}'")
    host = parts.hostname
    return f"[{host}]:{GRPC_PORT}" if ":" in host else f"{host}:{GRPC_PORT}"


def _grpc_installed() -> bool:
    try:
        return importlib.util.find_spec("grpc") is not None and importlib.util.find_spec("google.protobuf") is not None
    except ModuleNotFoundError:
        return False


class _Pager:
    """The requests of a paginated list, page after page, until every item was seen once."""

    def __init__(self, operation: Operation, given: Mapping[str, object]) -> None:
        if operation.pagination is None:
            raise TypeError(f"{operation.name} is not paginated")
        self._items = operation.pagination.items_attr
        self._by_token = operation.pagination.style == "token"
        self._cursor = operation.pagination.cursor or ""
        self._next_cursor = operation.pagination.next_cursor_attr or ""
        self._base = {key: value for key, value in given.items() if value is not None}
        self._seen: set[str] = set()
        requested = self._base.get("pagination")
        requested = requested if isinstance(requested, Mapping) else {}
        limit, page = requested.get("limit"), requested.get("page")
        self._limit = (operation.pagination.page_size or ITERATE_PAGE_LIMIT) if limit is None else limit
        self._page = 1 if page is None else page

    def first(self) -> dict[str, object]:
        return self._base if self._by_token else {**self._base, "pagination": {"limit": self._limit, "page": self._page}}

    def items(self, answer: Model) -> list[object]:
        return list(getattr(answer, self._items))

    def next(self, answer: Model, count: int) -> dict[str, object] | None:
        """The request of the next page, or None when the list has ended."""
        if self._by_token:
            token = getattr(answer, self._next_cursor, None)
            # A token handed out twice would loop for ever; the list ends there.
            if not token or token in self._seen:
                return None
            self._seen.add(token)
            return {**self._base, self._cursor: token}
        info = getattr(answer, "pagination", None)
        if count == 0 or info is None or info.offset + count >= info.total:
            return None
        self._page += 1
        return {**self._base, "pagination": {"limit": self._limit, "page": self._page}}


class _Call(NamedTuple):
    protocol: Protocol
    version_gated: bool
    body: dict[str, object]
    headers: dict[str, str]
    attempts: int
    deadline: float | None


class _CoreBase:
    """The parts of a client core that send nothing: configuration, refusals, headers, backoff."""

    def __init__(self, settings: Settings) -> None:
        if settings.protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}, not '{settings.protocol}'")
        if settings.role == "admin" and settings.secret and settings.access_token:
            raise ValueError(f"give {SECRET_OPTION} or access_token, not both: the server judges a call by one of them")
        settings = settings.from_environment()
        if settings.role == "admin":
            if settings.access_token and not ROLE_TOKEN:
                raise ValueError(f"access_token: no admin operation of this API takes a user's token{f'; give {SECRET_OPTION}' if SECRET_REQUIRED else ''}")
            if SECRET_REQUIRED and not settings.secret and not settings.access_token:
                variable = environment_name(SECRET_VARIABLE)
                required = f"{SECRET_OPTION} is required (or the environment variable {variable})"
                raise ValueError(f"{required}, or access_token: {ROLE_TOKEN_TEXT}" if ROLE_TOKEN else required)
        if settings.role == "user":
            for field, option in FILLED_OPTIONS.items():
                if not (settings.fills or {}).get(field):
                    raise ValueError(f"{option} is required")
        log_from_environment()
        self.protocol: Protocol = settings.protocol
        self.service_url = cast(str, settings.service_url).rstrip("/")
        if settings.grpc_endpoint is not None and not _GRPC_ENDPOINT.fullmatch(settings.grpc_endpoint):
            raise ValueError(f"grpc_endpoint must be host:port, such as localhost:{GRPC_PORT}, not '{settings.grpc_endpoint}'")
        self.grpc_endpoint = settings.grpc_endpoint or default_grpc_endpoint(self.service_url)
        if self.protocol == "grpc" and not _grpc_installed():
            raise ImportError(GRPC_MISSING, name="grpc")
        self._settings = settings
        self._access_token = settings.access_token
        self._closed = False
        self._headers = self._base_headers()
        self._server_version = settings.server_version
        version_operation = CLIENT_ROLES[settings.role]
        if settings.role == "admin" and settings.access_token and TOKEN_VERSION_OPERATION:
            # A role holder's token cannot ask the admin's own version read where that needs the secret: it asks the open one.
            version_operation = TOKEN_VERSION_OPERATION
        self._version_operation = OPERATIONS[version_operation] if version_operation else None
        retry = settings.retry
        self._retry = retry if isinstance(retry, RetryPolicy) else RetryPolicy() if retry else RetryPolicy(attempts=1)
        self._default_timeout = settings.timeout
        self.fills = dict(settings.fills or {})
        url = urlsplit(self.service_url)
        https = url.scheme == "https"
        self.verify = ssl_context(settings.verify, settings.cert) if https else True
        use_grpc_tls = https if settings.grpc_tls is None else settings.grpc_tls
        self.grpc_tls: GrpcTls | None = (
            grpc_tls(settings.grpc_root_certificates, settings.grpc_client_cert, settings.grpc_client_key, settings.verify, settings.cert) if use_grpc_tls else None
        )
        over_http = in_clear(https, url.hostname or "", self.service_url, "use an https:// service_url", settings.allow_insecure)
        self._in_clear: dict[str, str | None] = {
            "graphql": over_http,
            "rest": over_http,
            "grpc": in_clear(
                use_grpc_tls,
                host_of_endpoint(self.grpc_endpoint),
                f"gRPC {self.grpc_endpoint}",
                "use grpc_tls=True (the default for an https:// service_url)",
                settings.allow_insecure,
            ),
        }

    def _base_headers(self) -> dict[str, str]:
        """Who calls (User-Agent, x-api-client), extra headers, then the credential of the surface."""
        extra = self._settings.extra_headers or {}
        # An extra header of the same name, however spelt, replaces the SDK's.
        given = {name.lower() for name in extra}
        headers = {name: value for name, value in _SDK_HEADERS.items() if name not in given}
        headers.update(extra)
        if self._settings.api_key:
            headers[API_KEY_HEADER] = self._settings.api_key
        if self._settings.secret is not None:
            headers[SECRET_HEADER] = self._settings.secret
        elif self._access_token:
            headers["authorization"] = f"Bearer {self._access_token}"
        return headers

    def set_access_token(self, token: str | None) -> None:
        self._access_token = token
        self._headers = self._base_headers()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.describe()})"

    def describe(self) -> str:
        """The client's configuration as repr() shows it: never a credential in full."""
        shown: dict[str, object] = {"service_url": self.service_url, "protocol": self.protocol, "grpc_endpoint": self.grpc_endpoint}
        for name, value in ((SECRET_OPTION, self._settings.secret), ("access_token", self._access_token), ("api_key", self._settings.api_key)):
            if value:
                shown[name] = "***"
        for field, value in self.fills.items():
            shown[FILLED_OPTIONS.get(field, field)] = value
        return ", ".join(f"{name}={value!r}" for name, value in shown.items())

    def headers(self, extra: Mapping[str, str] | None) -> dict[str, str]:
        return {**self._headers, **extra} if extra else self._headers

    def refuse(self, operation: Operation, protocol: Protocol, message: str) -> ApiError:
        return ApiError(REFUSAL_CODE, message, operation.name, protocol, refused=True)

    def refusal(self, operation: Operation, protocol: Protocol) -> ApiError | None:
        """A reason to refuse the call that needs no server version, or None."""
        if self._closed:
            return self.refuse(operation, protocol, TEXTS["clientClosed"].format(operation=operation.name))
        reason = self._in_clear[protocol]
        if reason is not None:
            return self.refuse(operation, protocol, reason)
        if protocol not in operation.protocols:
            carriers = TEXTS["protocolSeparator"].join(operation.protocols)
            return self.refuse(operation, protocol, TEXTS["notCarried"].format(operation=operation.pascal_name, protocol=protocol, protocols=carriers))
        if self._settings.read_only and operation.destructive:
            return self.refuse(operation, protocol, TEXTS["readOnly"].format(operation=operation.pascal_name))
        return None

    def version_refusal(self, operation: Operation, protocol: Protocol, server: str) -> ApiError | None:
        since = operation.since[protocol]
        if compare_versions(server, since) >= 0:
            return None
        working = [p for p in operation.protocols if compare_versions(server, operation.since[p]) >= 0]
        hint = TEXTS["tooOldUse"].format(protocols=TEXTS["protocolSeparator"].join(working)) if working else TEXTS["tooOldNone"]
        message = TEXTS["tooOld"].format(operation=operation.pascal_name, since=since, protocol=protocol, server=server, hint=hint)
        return self.refuse(operation, protocol, message)

    def version_protocol(self, operation: Operation) -> Protocol:
        """The protocol the server's version is asked over: this client's, if it carries the question."""
        return self.protocol if self.protocol in operation.protocols else cast(Protocol, operation.protocols[0])

    def prepare(self, operation: Operation, given: Mapping[str, object]) -> dict[str, object]:
        """The input as sent: arguments left at None are not given; the fields the client fills in (Operation.fills) take its own values where the call leaves them out."""
        body = {key: value for key, value in given.items() if value is not None}
        for field in operation.fills:
            if not body.get(field) and self.fills.get(field):
                body[field] = self.fills[field]
        return body

    def attempts(self, max_retries: int | None) -> int:
        """Attempts in all: the call's retries and one, else the client's policy. An operation that is
        not retried uses them only when its connection was refused (retry_delay)."""
        return max(1, self._retry.attempts) if max_retries is None else max_retries + 1

    def call_headers(self, operation: Operation, extra_headers: Mapping[str, str] | None, idempotency_key: str | None) -> dict[str, str]:
        """The headers of every attempt of one call: with the operation's Idempotency-Key, the caller's or a new UUID, made once."""
        headers = self.headers(extra_headers)
        if not operation.idempotency_key:
            return headers
        # The key of the call replaces one an extra header might spell otherwise (Idempotency-Key).
        keyed = {name: value for name, value in headers.items() if name.lower() != IDEMPOTENCY_KEY_METADATA}
        keyed[IDEMPOTENCY_KEY_METADATA] = str(uuid.uuid4()) if idempotency_key is None else idempotency_key
        return keyed

    def backoff(self, attempt: int, error: ApiError) -> float:
        if error.retry_after is not None and 0 <= error.retry_after <= RETRY_AFTER_MAX:
            return error.retry_after
        delay = min(self._retry.max_delay, self._retry.base_delay * 2.0 ** (attempt - 1))
        return delay * (0.5 + random.random() / 2)

    def deadline(self, timeout: float | None) -> float | None:
        seconds = self._default_timeout if timeout is None else timeout
        return None if seconds is None else time.monotonic() + seconds

    def start(
        self,
        operation: Operation,
        given: Mapping[str, object],
        extra_headers: Mapping[str, str] | None,
        timeout: float | None,
        max_retries: int | None,
        idempotency_key: str | None,
        extra_body: Mapping[str, object] | None = None,
    ) -> _Call:
        """What a call needs before its first attempt; raises the refusals that need no server version,
        and ValueError for a max_retries or an idempotency_key the call cannot take."""
        if max_retries is not None and (isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0):
            raise ValueError(f"{operation.name}: max_retries must be a whole number of retries, 0 or more, not {max_retries!r}")
        if idempotency_key is not None and not (isinstance(idempotency_key, str) and _IDEMPOTENCY_KEY.fullmatch(idempotency_key)):
            raise ValueError(f"{operation.name}: idempotency_key must be {IDEMPOTENCY_KEY_FORM}, not {idempotency_key!r}")
        protocol = cast(Protocol, operation.fixed_protocol or self.protocol)
        if extra_body is not None and protocol == "grpc":
            message = f"{operation.name}: extra_body cannot travel over grpc, whose messages carry only the fields this SDK knows; use rest or graphql"
            raise ApiError("INVALID_ARGUMENT", message, operation.name, protocol, refused=True)
        refused = self.refusal(operation, protocol)
        if refused is not None:
            raise refused
        # The W3C trace context of the caller's span, where OpenTelemetry is installed.
        headers = inject_trace_context(self.call_headers(operation, extra_headers, idempotency_key))
        try:
            # The values JSON has no type of its own for, in their JSON forms, checked before anything is sent.
            body = to_wire(operation.input, self.prepare(operation, given))
        except WireTypeError as error:
            raise ApiError("INVALID_ARGUMENT", str(error), operation.name, protocol, refused=True) from None
        if extra_body:
            # Top-level fields this SDK does not know yet, as given, beside (or instead of) the known ones.
            body.update(extra_body)
        return _Call(protocol, protocol in operation.version_gated, body, headers, self.attempts(max_retries), self.deadline(timeout))

    def after_failure(self, operation: Operation, call: _Call, error: ApiError, attempt: int, seen: Exchange, started: float) -> float | None:
        """Seconds to wait before the next attempt, or None when `error` ends the call (always once the
        client is closed); the attempt's log record either way."""
        try:
            delay = None if self._closed else self.retry_delay(operation, call, error, attempt)
        except ApiError:
            log_attempt(operation.name, call.protocol, attempt, seen, time.monotonic() - started, call.headers, error, False)
            raise
        log_attempt(operation.name, call.protocol, attempt, seen, time.monotonic() - started, call.headers, error, delay is not None)
        return delay

    def answered(self, operation: Operation, call: _Call, attempt: int, seen: Exchange, started: float) -> None:
        log_attempt(operation.name, call.protocol, attempt, seen, time.monotonic() - started, call.headers, None, False)

    def closed_error(self, operation: Operation, call: _Call, error: ApiError) -> ApiError:
        """The error a call in flight ends with: CANCELLED when close() ended it, else its own."""
        return cancelled(operation.name, call.protocol) if self._closed else error

    def check_version(self, operation: Operation, call: _Call, server: str) -> None:
        refused = self.version_refusal(operation, call.protocol, server)
        if refused is not None:
            raise refused

    def as_callers(self, error: ApiError, operation: Operation, protocol: Protocol) -> ApiError:
        """A failure of the server-version lookup, named after the operation the caller called."""
        question = self._version_operation.name if self._version_operation else ""
        message = error.message.replace(question, operation.name, 1) if question and error.message.startswith(question) else error.message
        return ApiError(error.code, message, operation.name, protocol, status=error.status, retry_after=error.retry_after, refused=error.refused, headers=error.headers)

    def version_question(self) -> tuple[Operation, Protocol]:
        """The operation that answers the server's version, and the protocol to ask it over."""
        if self._version_operation is None:
            raise RuntimeError("this client cannot learn the server version; set server_version")
        protocol = self.version_protocol(self._version_operation)
        reason = self._in_clear[protocol]
        if reason is not None:
            raise self.refuse(self._version_operation, protocol, reason)
        return self._version_operation, protocol

    def remaining(self, operation: Operation, call: _Call) -> float | None:
        """Seconds left for the next attempt; DEADLINE_EXCEEDED when none are."""
        remaining = None if call.deadline is None else call.deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            raise timed_out(operation.name, call.protocol)
        return remaining

    def retry_delay(self, operation: Operation, call: _Call, error: ApiError, attempt: int) -> float | None:
        """Seconds to wait before the next attempt, or None when `error` is final: a transient failure
        of an operation that is retried, or a refused connection (nothing was sent) of any."""
        again = (operation.retried and error.transient) or connection_refused(error)
        if not again or attempt >= call.attempts:
            return None
        delay = self.backoff(attempt, error)
        if call.deadline is not None and time.monotonic() + delay >= call.deadline:
            raise timed_out(operation.name, call.protocol) from error
        return delay


def _no_hooks_with(http_client: httpx.Client | httpx.AsyncClient | None, settings: Settings) -> None:
    if http_client is not None and settings.event_hooks:
        raise ValueError("event_hooks go to the client's own httpx client: with http_client, give them to it (httpx's event_hooks)")


def _pause(closing: threading.Event, seconds: float) -> bool:
    """Waits `seconds` before a sync call's next attempt, or until close() sets `closing`: whether it did."""
    return closing.wait(seconds)


def _raw(answer: M, call: _Call, seen: Exchange, attempts: int) -> RawResponse[M]:
    status = seen.status if isinstance(seen.status, int) else None
    return RawResponse(answer, status, seen.headers if seen.headers is not None else httpx.Headers(), call.protocol, attempts)


class SyncCore(_CoreBase):
    def __init__(self, settings: Settings, http_client: httpx.Client | None) -> None:
        _no_hooks_with(http_client, settings)
        super().__init__(settings)
        self._http_client = http_client
        self._http: SyncHttpTransport | None = None
        self._grpc: SyncGrpcTransport | None = None
        self._version_lock = threading.Lock()
        # Threads making their first call together must share one pool and one channel.
        self._transport_lock = threading.Lock()
        # Set by close(), from any thread: a call waiting to try again ends at once.
        self._closing = threading.Event()

    def _transport(self, protocol: Protocol) -> SyncHttpTransport | SyncGrpcTransport:
        with self._transport_lock:
            if protocol == "grpc":
                if self._grpc is None:
                    from ._grpc import SyncGrpcTransport

                    self._grpc = SyncGrpcTransport(
                        self.grpc_endpoint,
                        self.grpc_tls,
                        self._settings.max_response_bytes,
                        endpoint_is_default=self._settings.grpc_endpoint is None,
                        interceptors=cast("Sequence[GrpcInterceptor]", self._settings.grpc_interceptors or ()),
                    )
                return self._grpc
            if self._http is None:
                self._http = SyncHttpTransport(self.service_url, self._http_client, self.verify, self._settings.max_response_bytes, self._settings.event_hooks)
            return self._http

    def server_version(self, operation: Operation, call: _Call) -> str:
        """From the configuration, or asked once of the server; waited for no longer than `call`'s deadline."""
        if self._server_version is not None:
            return self._server_version
        remaining = self.remaining(operation, call)
        if not self._version_lock.acquire(timeout=-1 if remaining is None else remaining):
            raise timed_out(operation.name, call.protocol)
        try:
            if self._server_version is None:
                try:
                    question, protocol = self.version_question()
                    answer = self._transport(protocol).call(question, protocol, {}, self._headers, self.remaining(operation, call), Exchange())
                except ApiError as error:
                    raise self.as_callers(error, operation, call.protocol) from None
                self._server_version = str(getattr(answer, VERSION_FIELD))
            return self._server_version
        finally:
            self._version_lock.release()

    def _exchange(
        self,
        operation: Operation,
        given: Mapping[str, object],
        extra_headers: Mapping[str, str] | None,
        timeout: float | None,
        max_retries: int | None,
        idempotency_key: str | None,
        extra_body: Mapping[str, object] | None,
    ) -> tuple[Model, _Call, Exchange, int]:
        """One call, every attempt of it: its answer, and what came with it."""
        call = self.start(operation, given, extra_headers, timeout, max_retries, idempotency_key, extra_body)
        if call.version_gated:
            self.check_version(operation, call, self.server_version(operation, call))
        transport = self._transport(call.protocol)
        attempt = 1
        while True:
            remaining = self.remaining(operation, call)
            seen = Exchange()
            started = time.monotonic()
            try:
                answer = transport.call(operation, call.protocol, call.body, call.headers, remaining, seen)
            except ApiError as failure:
                error = self.closed_error(operation, call, failure)
                delay = self.after_failure(operation, call, error, attempt, seen, started)
                if delay is None:
                    if error is failure:
                        raise
                    raise error from failure
                # close() from another thread ends the wait, and the call.
                if _pause(self._closing, delay):
                    raise cancelled(operation.name, call.protocol) from failure
                attempt += 1
                continue
            self.answered(operation, call, attempt, seen, started)
            return answer, call, seen, attempt

    def call(
        self,
        operation: Operation,
        given: Mapping[str, object],
        output: type[M],
        extra_headers: Mapping[str, str] | None,
        timeout: float | None,
        max_retries: int | None = None,
        idempotency_key: str | None = None,
        extra_body: Mapping[str, object] | None = None,
    ) -> M:
        return cast(M, self._exchange(operation, given, extra_headers, timeout, max_retries, idempotency_key, extra_body)[0])

    def call_raw(
        self,
        operation: Operation,
        given: Mapping[str, object],
        output: type[M],
        extra_headers: Mapping[str, str] | None,
        timeout: float | None,
        max_retries: int | None = None,
        idempotency_key: str | None = None,
        extra_body: Mapping[str, object] | None = None,
    ) -> RawResponse[M]:
        answer, call, seen, attempts = self._exchange(operation, given, extra_headers, timeout, max_retries, idempotency_key, extra_body)
        return _raw(cast(M, answer), call, seen, attempts)

    def pages(
        self,
        operation: Operation,
        given: Mapping[str, object],
        output: type[M],
        extra_headers: Mapping[str, str] | None,
        timeout: float | None,
        max_retries: int | None = None,
        extra_body: Mapping[str, object] | None = None,
    ) -> Iterator[M]:
        pager = _Pager(operation, given)
        request: dict[str, object] | None = pager.first()
        while request is not None:
            answer = self.call(operation, request, output, extra_headers, timeout, max_retries, None, extra_body)
            yield answer
            request = pager.next(answer, len(pager.items(answer)))

    def iterate(
        self,
        operation: Operation,
        given: Mapping[str, object],
        output: type[M],
        item: type[T],
        extra_headers: Mapping[str, str] | None,
        timeout: float | None,
        max_retries: int | None = None,
        extra_body: Mapping[str, object] | None = None,
    ) -> Iterator[T]:
        pager = _Pager(operation, given)
        request: dict[str, object] | None = pager.first()
        while request is not None:
            answer = self.call(operation, request, output, extra_headers, timeout, max_retries, None, extra_body)
            items = pager.items(answer)
            yield from cast(list[T], items)
            request = pager.next(answer, len(items))

    def close(self) -> None:
        """Ends the pool and the channel; a call in flight, in any thread, ends CANCELLED."""
        self._closed = True
        self._closing.set()
        if self._http is not None:
            self._http.close()
            self._http = None
        if self._grpc is not None:
            self._grpc.close()
            self._grpc = None


class AsyncCore(_CoreBase):
    def __init__(self, settings: Settings, http_client: httpx.AsyncClient | None) -> None:
        _no_hooks_with(http_client, settings)
        super().__init__(settings)
        self._http_client = http_client
        self._http: AsyncHttpTransport | None = None
        self._grpc: AsyncGrpcTransport | None = None
        self._version_task: asyncio.Future[str] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _transport(self, protocol: Protocol) -> AsyncHttpTransport | AsyncGrpcTransport:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            # Connections belong to the event loop that opened them: a client used again from a
            # later loop (a second asyncio.run) opens its own anew, the old loop's being gone.
            self._loop, self._http, self._grpc, self._version_task = loop, None, None, None
        if protocol == "grpc":
            if self._grpc is None:
                from ._grpc import AsyncGrpcTransport

                self._grpc = AsyncGrpcTransport(
                    self.grpc_endpoint,
                    self.grpc_tls,
                    self._settings.max_response_bytes,
                    endpoint_is_default=self._settings.grpc_endpoint is None,
                    interceptors=cast("Sequence[AsyncGrpcInterceptor]", self._settings.grpc_interceptors or ()),
                )
            return self._grpc
        if self._http is None:
            self._http = AsyncHttpTransport(self.service_url, self._http_client, self.verify, self._settings.max_response_bytes, self._settings.event_hooks)
        return self._http

    async def _ask_version(self, timeout: float | None) -> str:
        question, protocol = self.version_question()
        answer = await self._transport(protocol).call(question, protocol, {}, self._headers, timeout, Exchange())
        return str(getattr(answer, VERSION_FIELD))

    async def server_version(self, operation: Operation, call: _Call) -> str:
        """
        From the configuration, or asked once of the server under the deadline of the call that
        asks first; every caller waits no longer than its own deadline, and asks again when the
        question ended at another caller's.
        """
        while self._server_version is None:
            remaining = self.remaining(operation, call)
            task = self._version_task
            if task is None or task.done():
                task = self._version_task = asyncio.ensure_future(self._ask_version(remaining))
                # Retrieved here too, so that a question nobody waits for any more logs nothing.
                task.add_done_callback(lambda done: None if done.cancelled() else done.exception())
            try:
                self._server_version = await asyncio.wait_for(asyncio.shield(task), remaining)
            except asyncio.TimeoutError:
                raise timed_out(operation.name, call.protocol) from None
            except ApiError as error:
                ended_by_another = error.code == "DEADLINE_EXCEEDED" and not (call.deadline is not None and time.monotonic() >= call.deadline)
                if not ended_by_another:
                    raise self.as_callers(error, operation, call.protocol) from None
        return self._server_version

    async def _exchange(
        self,
        operation: Operation,
        given: Mapping[str, object],
        extra_headers: Mapping[str, str] | None,
        timeout: float | None,
        max_retries: int | None,
        idempotency_key: str | None,
        extra_body: Mapping[str, object] | None,
    ) -> tuple[Model, _Call, Exchange, int]:
        """One call, every attempt of it: its answer, and what came with it."""
        call = self.start(operation, given, extra_headers, timeout, max_retries, idempotency_key, extra_body)
        if call.version_gated:
            self.check_version(operation, call, await self.server_version(operation, call))
        transport = self._transport(call.protocol)
        attempt = 1
        while True:
            remaining = self.remaining(operation, call)
            seen = Exchange()
            started = time.monotonic()
            try:
                answer = await transport.call(operation, call.protocol, call.body, call.headers, remaining, seen)
            except ApiError as failure:
                error = self.closed_error(operation, call, failure)
                delay = self.after_failure(operation, call, error, attempt, seen, started)
                if delay is None:
                    if error is failure:
                        raise
                    raise error from failure
                await asyncio.sleep(delay)
                if self._closed:
                    raise cancelled(operation.name, call.protocol) from failure
                attempt += 1
                continue
            self.answered(operation, call, attempt, seen, started)
            return answer, call, seen, attempt

    async def call(
        self,
        operation: Operation,
        given: Mapping[str, object],
        output: type[M],
        extra_headers: Mapping[str, str] | None,
        timeout: float | None,
        max_retries: int | None = None,
        idempotency_key: str | None = None,
        extra_body: Mapping[str, object] | None = None,
    ) -> M:
        return cast(M, (await self._exchange(operation, given, extra_headers, timeout, max_retries, idempotency_key, extra_body))[0])

    async def call_raw(
        self,
        operation: Operation,
        given: Mapping[str, object],
        output: type[M],
        extra_headers: Mapping[str, str] | None,
        timeout: float | None,
        max_retries: int | None = None,
        idempotency_key: str | None = None,
        extra_body: Mapping[str, object] | None = None,
    ) -> RawResponse[M]:
        answer, call, seen, attempts = await self._exchange(operation, given, extra_headers, timeout, max_retries, idempotency_key, extra_body)
        return _raw(cast(M, answer), call, seen, attempts)

    async def pages(
        self,
        operation: Operation,
        given: Mapping[str, object],
        output: type[M],
        extra_headers: Mapping[str, str] | None,
        timeout: float | None,
        max_retries: int | None = None,
        extra_body: Mapping[str, object] | None = None,
    ) -> AsyncIterator[M]:
        pager = _Pager(operation, given)
        request: dict[str, object] | None = pager.first()
        while request is not None:
            answer = await self.call(operation, request, output, extra_headers, timeout, max_retries, None, extra_body)
            yield answer
            request = pager.next(answer, len(pager.items(answer)))

    async def iterate(
        self,
        operation: Operation,
        given: Mapping[str, object],
        output: type[M],
        item: type[T],
        extra_headers: Mapping[str, str] | None,
        timeout: float | None,
        max_retries: int | None = None,
        extra_body: Mapping[str, object] | None = None,
    ) -> AsyncIterator[T]:
        pager = _Pager(operation, given)
        request: dict[str, object] | None = pager.first()
        while request is not None:
            answer = await self.call(operation, request, output, extra_headers, timeout, max_retries, None, extra_body)
            items = pager.items(answer)
            for entry in cast(list[T], items):
                yield entry
            request = pager.next(answer, len(items))

    async def close(self) -> None:
        """Ends the pool and the channel; a call in flight ends CANCELLED."""
        self._closed = True
        if self._http is not None:
            await self._http.close()
            self._http = None
        if self._grpc is not None:
            await self._grpc.close()
            self._grpc = None
