"""Reads and the writes that carry an Idempotency-Key are retried on transient failures with backoff
and jitter (honouring retry-after-ms, then Retry-After); any other write only after a refused
connection, which sent nothing. max_retries sets the retries of one call."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import httpx
import pytest

from conftest import Clients, Recorder, graphql_answer
from identity_sdk import AdminClient, ApiError, AsyncAdminClient, RetryPolicy, _core


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits between attempts, recorded instead of waited: the sync client's (which close() from another thread ends) and the async one's."""
    slept: list[float] = []

    def pause(closing: Any, seconds: float) -> bool:
        slept.append(seconds)
        return False

    async def no_wait(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(_core, "_pause", pause)
    monkeypatch.setattr(asyncio, "sleep", no_wait)
    return slept


META = {"version": "2.4.0", "client_id": "c", "enabled_protocols": ["rest"], "grpc_port": 9091}


def test_reads_are_retried_with_exponential_backoff_and_jitter(clients: Clients, recorder: Recorder, sleeps: list[float]) -> None:
    recorder.answer(httpx.Response(503, text=""), httpx.ConnectError("refused"), graphql_answer("admin_meta", META))
    admin = clients.admin(retry=RetryPolicy(attempts=3, base_delay=0.1, max_delay=2.0))
    assert clients.run(admin.admin_meta()).version == "2.4.0"
    assert len(recorder.requests) == 3
    assert 0.05 <= sleeps[0] <= 0.1 and 0.1 <= sleeps[1] <= 0.2


def test_reads_stop_after_the_last_attempt(clients: Clients, recorder: Recorder, sleeps: list[float]) -> None:
    recorder.answer(*[httpx.Response(504, text="")] * 5)
    error = clients.fails(lambda: clients.admin(protocol="rest").admin_meta())
    assert (error.code, error.status, len(recorder.requests)) == ("INTERNAL", 504, 3)


def refused() -> httpx.ConnectError:
    """httpx's error of a connection the service refused, as its transports raise it (the socket's error as the cause)."""
    error = httpx.ConnectError("[Errno 111] Connection refused")
    error.__cause__ = ConnectionRefusedError(111, "Connection refused")
    return error


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
def test_a_write_without_a_key_is_never_sent_twice(clients: Clients, recorder: Recorder, sleeps: list[float], protocol: str) -> None:
    # admin_login sets a cookie: it is neither idempotent nor keyed, so a failure after sending is final.
    for failure in (httpx.Response(503, text=""), httpx.RemoteProtocolError("Server disconnected"), httpx.ConnectError("Name or service not known")):
        recorder.requests.clear()
        recorder.answer(failure, httpx.Response(200, json={}))
        error = clients.fails(lambda: clients.admin(protocol=protocol).admin_login(admin_secret="s3cret", max_retries=3))
        assert (error.code, len(recorder.requests), sleeps) == ("UNAVAILABLE", 1, [])
        recorder.answers.clear()


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
def test_a_refused_connection_is_retried_whatever_the_operation(clients: Clients, recorder: Recorder, sleeps: list[float], protocol: str) -> None:
    recorder.answer(refused(), refused(), graphql_answer("admin_login", {}) if protocol == "graphql" else httpx.Response(200, json={}))
    clients.run(clients.admin(protocol=protocol).admin_login(admin_secret="s3cret"))
    assert (len(recorder.requests), len(sleeps)) == (3, 2)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_connection_refused_on_loopback_is_retried_for_a_write_without_a_key(sleeps: list[float], mode: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # Nothing listens on the port any more: every attempt is refused, and each one is made.
    options: dict[str, Any] = {"service_url": f"http://127.0.0.1:{port}", "admin_secret": "s", "protocol": "rest", "server_version": "2.4.0"}
    with pytest.raises(ApiError) as raised:
        if mode == "sync":
            with AdminClient(**options, retry=RetryPolicy(attempts=3)) as admin:
                admin.admin_login(admin_secret="s3cret")
        else:

            async def login() -> None:
                async with AsyncAdminClient(**options, retry=RetryPolicy(attempts=3)) as admin:
                    await admin.admin_login(admin_secret="s3cret")

            asyncio.run(login())
    assert (raised.value.code, len(sleeps)) == ("UNAVAILABLE", 2)
    assert isinstance(raised.value.__cause__, httpx.ConnectError)


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
def test_a_keyed_write_is_retried_with_the_same_key(clients: Clients, recorder: Recorder, sleeps: list[float], protocol: str) -> None:
    done = graphql_answer("create_organization", {"id": "o1"}) if protocol == "graphql" else httpx.Response(200, json={"id": "o1"})
    recorder.answer(httpx.Response(503, text=""), httpx.RemoteProtocolError("Server disconnected"), done)
    answer = clients.run(clients.admin(protocol=protocol, retry=RetryPolicy(attempts=3, base_delay=0.1)).create_organization(name="acme"))
    keys = [request.headers["idempotency-key"] for request in recorder.requests]
    assert (answer.id, len(keys), len(set(keys)), len(sleeps)) == ("o1", 3, 1, 2)


def test_max_retries_sets_the_attempts_of_one_call(clients: Clients, recorder: Recorder, sleeps: list[float]) -> None:
    admin = clients.admin(protocol="rest", retry=RetryPolicy(attempts=3))
    cases: list[tuple[Any, int]] = [
        (lambda: admin.create_organization(name="acme", max_retries=0), 1),
        (lambda: admin.create_organization(name="acme", max_retries=2), 3),
        (lambda: admin.admin_meta(max_retries=4), 5),
        (lambda: admin.admin_meta(max_retries=0), 1),
    ]
    for call, attempts in cases:
        recorder.requests.clear()
        recorder.answer(*[httpx.Response(503, text="")] * 6)
        assert clients.fails(call).status == 503
        assert len(recorder.requests) == attempts
        recorder.answers.clear()
    # Over the client's retry=False too, and for the refused connections of a write without a key.
    recorder.requests.clear()
    recorder.answer(refused(), refused(), refused())
    clients.fails(lambda: clients.admin(protocol="rest", retry=False).admin_login(admin_secret="s3cret", max_retries=1))
    assert len(recorder.requests) == 2
    recorder.answers.clear()
    recorder.requests.clear()
    recorder.answer(httpx.Response(503, text=""), httpx.Response(200, json={"users": [], "pagination": {"limit": 5, "page": 1, "offset": 0, "total": 0}}))
    clients.fails(lambda: clients.each(admin.iter_users(max_retries=0)))
    assert len(recorder.requests) == 1


@pytest.mark.parametrize("max_retries", [-1, 1.5, True])
def test_a_wrong_max_retries_is_refused_before_sending(clients: Clients, recorder: Recorder, max_retries: Any) -> None:
    with pytest.raises(ValueError, match=r"^admin_meta: max_retries must be a whole number of retries, 0 or more, not "):
        clients.run(clients.admin(protocol="rest").admin_meta(max_retries=max_retries))
    with pytest.raises(ValueError, match=r"max_retries must be"):
        clients.run(clients.admin(protocol="rest").update_user(id="u1", max_retries=max_retries))
    assert recorder.requests == []


def test_retry_after_is_honoured(clients: Clients, recorder: Recorder, sleeps: list[float]) -> None:
    limited = httpx.Response(429, headers={"retry-after": "2"}, json={"code": "TOO_MANY_REQUESTS", "message": "slow down"})
    recorder.answer(limited, httpx.Response(200, json=META))
    clients.run(clients.admin(protocol="rest").admin_meta())
    assert sleeps == [2.0]


def test_retry_after_ms_wins_over_retry_after(clients: Clients, recorder: Recorder, sleeps: list[float]) -> None:
    limited = {"code": "TOO_MANY_REQUESTS", "message": "slow down"}
    recorder.answer(
        httpx.Response(429, headers={"retry-after": "2", "retry-after-ms": "250.5"}, json=limited),
        # An unreadable retry-after-ms counts for nothing: Retry-After is read instead.
        httpx.Response(503, headers={"retry-after": "3", "retry-after-ms": "soon"}, text=""),
        # Past the cap (a minute), as Retry-After: the usual backoff instead.
        httpx.Response(503, headers={"retry-after": "1", "retry-after-ms": "120000"}, text=""),
        httpx.Response(200, json=META),
    )
    clients.run(clients.admin(protocol="rest", retry=RetryPolicy(attempts=4, base_delay=0.1)).admin_meta())
    assert sleeps[:2] == [0.2505, 3.0]
    assert 0.2 <= sleeps[2] <= 0.4
    recorder.answer(httpx.Response(503, headers={"retry-after-ms": "1500"}, text=""))
    assert clients.fails(lambda: clients.admin(protocol="graphql", retry=False).admin_meta()).retry_after == 1.5


def test_a_graphql_error_says_when_to_try_again(clients: Clients, recorder: Recorder) -> None:
    # GraphQL errors come with 200: the Retry-After header and the error's retryAfter extension both count.
    unavailable = {"errors": [{"message": "the database cannot be reached", "extensions": {"code": "UNAVAILABLE", "retryAfter": 1}}], "data": None}
    recorder.answer(
        httpx.Response(200, json=unavailable),
        httpx.Response(200, headers={"retry-after": "3"}, json={"errors": [{"message": "m", "extensions": {"code": "UNAVAILABLE"}}]}),
    )
    first = clients.fails(lambda: clients.admin(protocol="graphql", retry=False).admin_meta())
    second = clients.fails(lambda: clients.admin(protocol="graphql", retry=False).admin_meta())
    assert (first.code, first.retry_after, second.retry_after) == ("UNAVAILABLE", 1.0, 3.0)


def test_retries_can_be_turned_off(clients: Clients, recorder: Recorder, sleeps: list[float]) -> None:
    recorder.answer(httpx.Response(503, text=""))
    clients.fails(lambda: clients.admin(retry=False).admin_meta())
    assert len(recorder.requests) == 1
