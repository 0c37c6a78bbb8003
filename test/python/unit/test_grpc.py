"""gRPC against a small grpcio server in this process: messages built from the shipped descriptors,
inputs checked before encoding, the error code the server names in its metadata, and the
idempotency-key metadata of writes that take one, the same on every attempt."""

from __future__ import annotations

import asyncio
import importlib.util
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message

from identity_sdk import OPERATIONS, AdminClient, ApiError, AsyncAdminClient, RetryPolicy
from identity_sdk._grpc import AsyncGrpcTransport, SyncGrpcTransport, message_class

Behaviour = Callable[[Message, grpc.ServicerContext], Message]


class Server:
    """Answers each RPC by the behaviour a test sets for its operation, and records the requests."""

    def __init__(self) -> None:
        self.behaviours: dict[str, Behaviour] = {}
        self.requests: list[tuple[str, Message, dict[str, str]]] = []
        self.by_path = {op.grpc.path: op for op in OPERATIONS.values() if op.grpc}
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        self.server.add_generic_rpc_handlers([self])  # type: ignore[list-item]
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        operation = self.by_path.get(details.method)
        if operation is None or operation.grpc is None:
            return None
        request_type = message_class(operation.grpc.request_type)
        response_type = message_class(operation.grpc.response_type)

        def handle(request: Message, context: grpc.ServicerContext) -> Message:
            self.requests.append((operation.name, request, dict(context.invocation_metadata())))  # type: ignore[arg-type]
            behaviour = self.behaviours.get(operation.name)
            return behaviour(request, context) if behaviour else response_type()

        return grpc.unary_unary_rpc_method_handler(handle, request_type.FromString, lambda m: m.SerializeToString())

    @property
    def endpoint(self) -> str:
        return f"127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server()
    yield running
    running.server.stop(None)


@pytest.fixture(autouse=True)
def fresh(server: Server) -> None:
    server.behaviours.clear()
    server.requests.clear()


@pytest.fixture(params=["sync", "async"])
def call(request: pytest.FixtureRequest, server: Server) -> Callable[..., Any]:
    """call(method, **input) on a gRPC admin client of the fixture's mode; options via client=..."""

    def run(method: str, client: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        options = {"service_url": "http://127.0.0.1", "admin_secret": "s3cret", "protocol": "grpc", "grpc_endpoint": server.endpoint, "server_version": "2.4.0", **(client or {})}
        if request.param == "sync":
            with AdminClient(**options) as admin:
                return getattr(admin, method)(**kwargs)

        async def go() -> Any:
            async with AsyncAdminClient(**options) as admin:
                return await getattr(admin, method)(**kwargs)

        return asyncio.run(go())

    return run


def test_inputs_are_encoded_from_the_flat_shape(call: Callable[..., Any], server: Server) -> None:
    call(
        "add_trusted_issuer",
        service_account_id="c1", name="ci", issuer_url="https://issuer.example.com", key_source_type="oidc_discovery",
        expected_aud="identity", issuer_type="spiffe", allowed_subjects=["a", "b"],
    )
    call("add_webhook", event_name="user.created", endpoint="https://hooks.example.com", enabled=True, headers={"x-sig": "1"})
    call("fga_write_tuples", tuples=[{"user": "user:1", "relation": "viewer", "object": "doc:1"}])
    (_, issuer, metadata), (_, webhook, _), (_, tuples, _) = server.requests
    assert (issuer.key_source_type, issuer.issuer_type, list(issuer.allowed_subjects)) == (2, 2, ["a", "b"])  # type: ignore[attr-defined]
    assert issuer.HasField("jwks_url") is False
    assert metadata["x-service-admin-secret"] == "s3cret"
    assert dict(webhook.headers) == {"x-sig": "1"}  # type: ignore[attr-defined]
    assert tuples.tuples[0].relation == "viewer"  # type: ignore[attr-defined]


def test_answers_are_decoded_into_the_flat_shape(call: Callable[..., Any], server: Server) -> None:
    def user(request: Message, context: grpc.ServicerContext) -> Message:
        answer = message_class("identity.v1.UserResponse")(id="u1", email_verified=True, roles=["admin"], created_at=2**40)
        answer.app_data.update({"plan": "pro", "seats": 3, "tags": ["a"], "none": None})  # type: ignore[attr-defined]
        return answer

    server.behaviours["user"] = user
    answer = call("user", id="u1")
    assert answer.to_dict() == {
        **{field: None for field in answer.to_dict()},
        "id": "u1", "email_verified": True, "signup_methods": "", "phone_number_verified": False, "roles": ["admin"],
        "created_at": 2**40, "updated_at": 0, "app_data": {"plan": "pro", "seats": 3, "tags": ["a"], "none": None},
    }


def test_values_protobuf_would_coerce_are_refused_before_sending(call: Callable[..., Any], server: Server) -> None:
    cases = [
        ("users", {"pagination": {"limit": "ten"}}, "pagination.limit: must be an integer"),
        ("users", {"pagination": {"limit": 1, "size": 2}}, "pagination.size: is not a field of this request"),
        ("add_trusted_issuer", {"service_account_id": "c", "name": "n", "issuer_url": "u", "key_source_type": "ldap", "expected_aud": "a", "issuer_type": "oidc"},
         "key_source_type: must be one of jwks_url, oidc_discovery"),
        ("fga_write_tuples", {"tuples": [{"user": "u", "relation": "r", "object": 1}]}, "tuples[0].object: must be a string"),
        ("add_webhook", {"event_name": "e", "endpoint": "x", "enabled": "yes"}, "enabled: must be true or false"),
    ]
    for method, kwargs, message in cases:
        with pytest.raises(Exception) as raised:
            call(method, **kwargs)
        error = raised.value
        assert (getattr(error, "code", None), str(error), getattr(error, "refused", None)) == ("INVALID_ARGUMENT", message, True)
    assert server.requests == []


def test_the_code_the_server_names_wins_over_the_status(call: Callable[..., Any], server: Server) -> None:
    def named(request: Message, context: grpc.ServicerContext) -> Message:
        context.set_trailing_metadata((("x-error-code", "ALREADY_EXISTS"),))
        context.abort(grpc.StatusCode.INTERNAL, "an organization named acme already exists")

    def bare(request: Message, context: grpc.ServicerContext) -> Message:
        context.abort(grpc.StatusCode.NOT_FOUND, "organization o1 not found")

    server.behaviours["create_organization"] = named
    server.behaviours["get_organization"] = bare
    with pytest.raises(Exception) as raised:
        call("create_organization", name="acme")
    assert (raised.value.code, raised.value.message, raised.value.protocol) == ("ALREADY_EXISTS", "an organization named acme already exists", "grpc")  # type: ignore[attr-defined]
    with pytest.raises(Exception) as raised:
        call("get_organization", id="o1")
    assert raised.value.code == "NOT_FOUND"  # type: ignore[attr-defined]


def test_deadlines_and_no_answer(call: Callable[..., Any], server: Server) -> None:
    def slow(request: Message, context: grpc.ServicerContext) -> Message:
        time.sleep(0.5)
        return message_class("identity.v1.AdminMetaResponse")()

    server.behaviours["admin_meta"] = slow
    with pytest.raises(Exception) as raised:
        call("admin_meta", client={"timeout": 0.1})
    assert (raised.value.code, str(raised.value)) == ("DEADLINE_EXCEEDED", "admin_meta timed out")  # type: ignore[attr-defined]
    with pytest.raises(Exception) as raised:
        call("admin_meta", client={"grpc_endpoint": "127.0.0.1:9", "retry": False, "timeout": 2})
    assert raised.value.code == "UNAVAILABLE"  # type: ignore[attr-defined]


def test_grpc_without_the_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == "grpc" else find_spec(name, *rest))
    with pytest.raises(ImportError, match=r'pip install "identity-interface-sdk\[grpc\]"'):
        AdminClient(service_url="http://localhost:8080", admin_secret="s", protocol="grpc")
    assert AdminClient(service_url="http://localhost:8080", admin_secret="s", protocol="rest").protocol == "rest"


def test_one_sync_client_serves_threads(server: Server) -> None:
    with AdminClient(service_url="http://127.0.0.1", admin_secret="s", protocol="grpc", grpc_endpoint=server.endpoint) as admin:
        results: list[str] = []
        threads = [threading.Thread(target=lambda: results.append(admin.admin_meta().version)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert results == [""] * 8


def test_retry_after_is_read_on_every_status(call: Callable[..., Any], server: Server) -> None:
    def overloaded(request: Message, context: grpc.ServicerContext) -> Message:
        context.set_trailing_metadata((("retry-after", "7"),))
        context.abort(grpc.StatusCode.UNAVAILABLE, "draining")

    def limited(request: Message, context: grpc.ServicerContext) -> Message:
        context.set_trailing_metadata((("x-error-code", "TOO_MANY_REQUESTS"), ("retry-after", "2")))
        context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "slow down")

    def in_ms(request: Message, context: grpc.ServicerContext) -> Message:
        context.set_trailing_metadata((("retry-after", "7"), ("retry-after-ms", "1500.5")))
        context.abort(grpc.StatusCode.UNAVAILABLE, "draining")

    server.behaviours["create_organization"] = overloaded
    server.behaviours["get_organization"] = limited
    server.behaviours["update_organization"] = in_ms
    with pytest.raises(Exception) as raised:
        call("create_organization", name="acme", max_retries=0)
    assert (raised.value.code, raised.value.retry_after) == ("UNAVAILABLE", 7.0)  # type: ignore[attr-defined]
    with pytest.raises(Exception) as raised:
        call("get_organization", id="o1", client={"retry": False})
    assert (raised.value.code, raised.value.retry_after) == ("TOO_MANY_REQUESTS", 2.0)  # type: ignore[attr-defined]
    # retry-after-ms wins over retry-after.
    with pytest.raises(Exception) as raised:
        call("update_organization", id="o1", max_retries=0)
    assert (raised.value.code, raised.value.retry_after) == ("UNAVAILABLE", 1.5005)  # type: ignore[attr-defined]


def test_a_grpc_answer_over_the_size_cap_is_refused(call: Callable[..., Any], server: Server) -> None:
    server.behaviours["admin_meta"] = lambda request, context: message_class("identity.v1.AdminMetaResponse")(version="2.4.4" * 20)
    with pytest.raises(Exception) as raised:
        call("admin_meta", client={"max_response_bytes": 4})
    assert raised.value.code == "PAYLOAD_TOO_LARGE"  # type: ignore[attr-defined]


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_refused_default_endpoint_names_grpc_endpoint_and_a_given_one_does_not(asynchronous: bool) -> None:
    # 127.0.0.2 is loopback where no test listens: the default endpoint 127.0.0.2:9091 refuses.
    hint = "127.0.0.2:9091 is the default gRPC endpoint (the host of the service URL, port 9091): if the service serves gRPC elsewhere, set grpc_endpoint to its host:port"
    messages = []
    for endpoint in (None, "127.0.0.2:9091"):
        options: dict[str, Any] = {"service_url": "http://127.0.0.2:1", "admin_secret": "s", "protocol": "grpc", "retry": False, "grpc_endpoint": endpoint}
        with pytest.raises(Exception) as caught:
            if asynchronous:

                asyncio.run(_admin_meta_async(options))
            else:
                with AdminClient(**options) as client:
                    client.admin_meta()
        assert getattr(caught.value, "code", None) == "UNAVAILABLE"
        messages.append(str(caught.value))
    assert hint in messages[0]
    assert "default gRPC endpoint" not in messages[1]


async def _admin_meta_async(options: dict[str, Any]) -> None:
    async with AsyncAdminClient(**options) as client:
        await client.admin_meta()


def unavailable_then(operation: str, failures: int = 1) -> Behaviour:
    """UNAVAILABLE (no code named: the service was not reached) for the first `failures` calls, then an empty answer."""
    binding = OPERATIONS[operation].grpc
    assert binding is not None
    calls: list[int] = []

    def behaviour(request: Message, context: grpc.ServicerContext) -> Message:
        calls.append(1)
        if len(calls) <= failures:
            context.abort(grpc.StatusCode.UNAVAILABLE, "draining")
        return message_class(binding.response_type)()

    return behaviour


FAST = {"retry": RetryPolicy(attempts=3, base_delay=0.001)}


def keys(server: Server) -> list[str | None]:
    return [metadata.get("idempotency-key") for _, _, metadata in server.requests]


def test_a_keyed_write_carries_a_uuid_key_the_same_on_every_attempt(call: Callable[..., Any], server: Server) -> None:
    server.behaviours["create_organization"] = unavailable_then("create_organization", failures=2)
    call("create_organization", name="acme", client=FAST)
    first, second, third = keys(server)
    assert first is not None and uuid.UUID(first).version == 4 and str(uuid.UUID(first)) == first
    assert first == second == third
    # Another call, another key; the caller's as given; reads and writes without a key carry none.
    call("create_organization", name="acme")
    call("delete_organization", id="o1", idempotency_key="delete-o1")
    call("admin_meta")
    call("admin_login", admin_secret="s3cret")
    assert keys(server)[3:] == [keys(server)[3], "delete-o1", None, None]
    assert keys(server)[3] not in (None, first)


def test_a_bad_key_is_refused_before_anything_is_sent_over_grpc(call: Callable[..., Any], server: Server) -> None:
    with pytest.raises(ValueError, match=r"idempotency_key must be 1 to 255 printable ASCII characters without spaces, not 'a b'$"):
        call("create_organization", name="acme", idempotency_key="a b")
    assert server.requests == []


@pytest.fixture
def attempts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The operation of every attempt either gRPC transport makes, sent or not."""
    made: list[str] = []
    sync_call, async_call = SyncGrpcTransport.call, AsyncGrpcTransport.call

    def counted(self: SyncGrpcTransport, operation: Any, *rest: Any) -> Any:
        made.append(operation.name)
        return sync_call(self, operation, *rest)

    async def counted_async(self: AsyncGrpcTransport, operation: Any, *rest: Any) -> Any:
        made.append(operation.name)
        return await async_call(self, operation, *rest)

    monkeypatch.setattr(SyncGrpcTransport, "call", counted)
    monkeypatch.setattr(AsyncGrpcTransport, "call", counted_async)
    return made


def test_a_write_without_a_key_goes_again_only_after_a_refused_connection(call: Callable[..., Any], server: Server, attempts: list[str]) -> None:
    # admin_login sets a cookie: an UNAVAILABLE from a server that got it is final.
    server.behaviours["admin_login"] = unavailable_then("admin_login")
    with pytest.raises(Exception) as raised:
        call("admin_login", admin_secret="s3cret", client=FAST)
    assert (raised.value.code, len(server.requests)) == ("UNAVAILABLE", 1)  # type: ignore[attr-defined]
    # Nothing listens on the port: the connection is refused, nothing was sent, so it goes again.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"127.0.0.1:{probe.getsockname()[1]}"
    attempts.clear()
    with pytest.raises(Exception) as raised:
        call("admin_login", admin_secret="s3cret", client={**FAST, "grpc_endpoint": closed})
    assert (raised.value.code, attempts) == ("UNAVAILABLE", ["admin_login"] * 3)  # type: ignore[attr-defined]
    assert isinstance(raised.value.__cause__, ConnectionRefusedError)
    attempts.clear()
    with pytest.raises(ApiError):
        call("admin_login", admin_secret="s3cret", client={**FAST, "grpc_endpoint": closed}, max_retries=0)
    assert attempts == ["admin_login"]


def test_max_retries_sets_the_attempts_of_one_grpc_call(call: Callable[..., Any], server: Server) -> None:
    server.behaviours["create_organization"] = unavailable_then("create_organization", failures=10)
    for max_retries, sent in ((0, 1), (2, 3), (None, 3)):
        server.requests.clear()
        with pytest.raises(Exception) as raised:
            call("create_organization", name="acme", client=FAST, max_retries=max_retries)
        assert (raised.value.code, len(server.requests)) == ("UNAVAILABLE", sent)  # type: ignore[attr-defined]


@pytest.fixture(params=["sync", "async"])
def grpc_run(request: pytest.FixtureRequest, server: Server) -> Callable[..., Any]:
    """grpc_run(lambda admin: admin.<call>, **options): the call's result on a gRPC admin client of the
    fixture's mode, awaited when async; an ApiError it raises is returned."""

    def run(use: Callable[[Any], Any], **options: Any) -> Any:
        settings = {"service_url": "http://127.0.0.1", "admin_secret": "s3cret", "protocol": "grpc", "grpc_endpoint": server.endpoint, "server_version": "2.4.4", **options}
        try:
            if request.param == "sync":
                with AdminClient(**settings) as admin:
                    return use(admin)

            async def go() -> Any:
                async with AsyncAdminClient(**settings) as admin:
                    return await use(admin)

            return asyncio.run(go())
        except ApiError as error:
            return error

    run.mode = request.param  # type: ignore[attr-defined]
    return run


def test_every_grpc_call_names_the_sdk(call: Callable[..., Any], server: Server) -> None:
    import platform

    from identity_sdk import __version__

    call("admin_meta")
    metadata = server.requests[-1][2]
    assert metadata["user-agent"].startswith(f"identity-interface-sdk/{__version__} grpc-python")
    assert metadata["x-api-client"] == f"python/{__version__} {platform.python_implementation().lower()}/{platform.python_version()}"


def test_a_raw_response_over_grpc_has_the_metadata_protocol_and_attempts(grpc_run: Callable[..., Any], server: Server) -> None:
    calls: list[int] = []

    def meta(request: Message, context: grpc.ServicerContext) -> Message:
        calls.append(1)
        if len(calls) == 1:
            context.abort(grpc.StatusCode.UNAVAILABLE, "draining")
        context.send_initial_metadata((("x-request-id", "r-1"),))
        context.set_trailing_metadata((("x-served-by", "node-2"), ("x-trace-bin", b"\x00\x01")))
        return message_class("identity.v1.AdminMetaResponse")(version="2.4.4")

    server.behaviours["admin_meta"] = meta
    raw = grpc_run(lambda admin: admin.with_raw_response.admin_meta(), retry=RetryPolicy(attempts=3, base_delay=0.001))
    assert (raw.status_code, raw.protocol, raw.attempts) == (None, "grpc", 2)
    assert (raw.headers["x-request-id"], raw.headers["x-served-by"], raw.headers["x-trace-bin"]) == ("r-1", "node-2", "AAE=")
    assert raw.parse().version == "2.4.4"


def test_a_grpc_failure_carries_its_metadata(grpc_run: Callable[..., Any], server: Server) -> None:
    def missing(request: Message, context: grpc.ServicerContext) -> Message:
        context.set_trailing_metadata((("x-error-code", "NOT_FOUND"), ("x-request-id", "r-9")))
        context.abort(grpc.StatusCode.NOT_FOUND, "organization o1 not found")

    server.behaviours["get_organization"] = missing
    error = grpc_run(lambda admin: admin.get_organization(id="o1"))
    assert (error.code, error.headers["x-request-id"], error.headers["x-error-code"]) == ("NOT_FOUND", "r-9", "NOT_FOUND")


def test_an_enum_number_the_sdk_does_not_know_arrives_as_unknown_n(call: Callable[..., Any], server: Server) -> None:
    """A newer service's enum value, which this SDK has no name for, is kept as UNKNOWN_<number>; 0 (unset) is None."""
    server.behaviours["add_trusted_issuer"] = lambda request, context: message_class("identity.v1.AddTrustedIssuerResponse")(id="t1", key_source_type=7, issuer_type=0)
    added = call("add_trusted_issuer", service_account_id="c1", name="ci", issuer_url="https://i", key_source_type="jwks_url", expected_aud="a", issuer_type="oidc")
    assert (added.key_source_type, added.issuer_type) == ("UNKNOWN_7", None)


def test_extra_body_is_refused_over_grpc_before_anything_is_sent(grpc_run: Callable[..., Any], server: Server) -> None:
    error = grpc_run(lambda admin: admin.create_organization(name="acme", extra_body={"region": "eu"}))
    assert (error.code, error.refused, error.protocol) == ("INVALID_ARGUMENT", True, "grpc")
    assert error.message == "create_organization: extra_body cannot travel over grpc, whose messages carry only the fields this SDK knows; use rest or graphql"
    assert server.requests == []


class Stamp(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Adds x-stamp metadata to every call, and notes the method."""

    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        self.seen.append(details.method)
        return continuation(details._replace(metadata=[*(details.metadata or ()), ("x-stamp", "sync")]), request)


class AsyncStamp(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        # grpc.aio names the method in bytes.
        self.seen.append(details.method.decode() if isinstance(details.method, bytes) else details.method)
        metadata = grpc.aio.Metadata(*(details.metadata or ()), ("x-stamp", "async"))
        return await continuation(details._replace(metadata=metadata), request)


def test_grpc_interceptors_see_every_call(grpc_run: Callable[..., Any], server: Server) -> None:
    seen: list[str] = []
    interceptor = Stamp(seen) if grpc_run.mode == "sync" else AsyncStamp(seen)  # type: ignore[attr-defined]
    grpc_run(lambda admin: admin.admin_meta(), grpc_interceptors=[interceptor])
    assert seen == ["/identity.v1.AdminService/AdminMeta"]
    assert server.requests[-1][2]["x-stamp"] == grpc_run.mode  # type: ignore[attr-defined]


def test_each_grpc_attempt_is_logged_with_its_code(grpc_run: Callable[..., Any], server: Server, caplog: pytest.LogCaptureFixture) -> None:
    import logging

    caplog.set_level(logging.DEBUG, logger="identity_sdk")
    server.behaviours["admin_meta"] = unavailable_then("admin_meta")
    grpc_run(lambda admin: admin.admin_meta(), retry=RetryPolicy(attempts=3, base_delay=0.001))
    records = [record for record in caplog.records if record.name == "identity_sdk"]
    assert [(r.operation, r.protocol, r.attempt, r.status, r.will_retry) for r in records] == [  # type: ignore[attr-defined]
        ("admin_meta", "grpc", 1, "UNAVAILABLE", True),
        ("admin_meta", "grpc", 2, "OK", False),
    ]
    assert all(r.headers["x-service-admin-secret"] == "[redacted]" and "s3cret" not in r.getMessage() for r in records)  # type: ignore[attr-defined]


def test_the_trace_context_travels_in_grpc_metadata(call: Callable[..., Any], server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    from identity_sdk import _observe

    class Propagate:
        @staticmethod
        def inject(carrier: dict[str, str]) -> None:
            carrier["traceparent"] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    monkeypatch.setattr(_observe, "_propagate", Propagate)
    call("admin_meta")
    assert server.requests[-1][2]["traceparent"] == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_close_from_another_thread_cancels_a_grpc_call_in_flight(server: Server) -> None:
    def slow(request: Message, context: grpc.ServicerContext) -> Message:
        time.sleep(1.5)
        return message_class("identity.v1.AdminMetaResponse")()

    server.behaviours["admin_meta"] = slow
    admin = AdminClient(service_url="http://127.0.0.1", admin_secret="s", protocol="grpc", grpc_endpoint=server.endpoint, server_version="2.4.4")
    threading.Timer(0.3, admin.close).start()
    with pytest.raises(ApiError) as raised:
        admin.admin_meta()
    assert (raised.value.code, raised.value.message) == ("CANCELLED", "admin_meta was cancelled")


def test_close_cancels_an_async_grpc_call_in_flight(server: Server) -> None:
    def slow(request: Message, context: grpc.ServicerContext) -> Message:
        time.sleep(1.5)
        return message_class("identity.v1.AdminMetaResponse")()

    server.behaviours["admin_meta"] = slow

    async def run() -> ApiError:
        admin = AsyncAdminClient(service_url="http://127.0.0.1", admin_secret="s", protocol="grpc", grpc_endpoint=server.endpoint, server_version="2.4.4")
        pending = asyncio.ensure_future(admin.admin_meta())
        await asyncio.sleep(0.3)
        await admin.close()
        with pytest.raises(ApiError) as raised:
            await pending
        return raised.value

    assert asyncio.run(run()).code == "CANCELLED"
