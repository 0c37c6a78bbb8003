"""The client's own connection pool against servers on loopback: it keeps alive as many connections
as it opens at most (so 200 calls at once reuse them), and close() ends a call in flight with
CANCELLED: from another thread for the sync client, from another task for the async one."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from conftest import LocalServer
from identity_sdk import AdminClient, ApiError, AsyncAdminClient, _http
from identity_sdk._http import MAX_CONNECTIONS


@pytest.fixture
def slow_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    # A little slow, so that the calls of a batch overlap and the pool fills up.
    server = LocalServer(delay=0.05)
    # What is proven is the pool's size, not its clock: an idle connection still expires after httpx's
    # 5 s, and a starved machine (CI's took 10 s for 200 calls) leaves some idle that long between calls.
    monkeypatch.setattr(_http, "_LIMITS", httpx.Limits(max_connections=MAX_CONNECTIONS, max_keepalive_connections=_http._LIMITS.max_keepalive_connections, keepalive_expiry=None))
    yield server
    server.close()


def test_200_concurrent_async_calls_open_at_most_the_pools_connections_and_reuse_them(slow_server: LocalServer) -> None:
    async def calls() -> tuple[int, int, int]:
        async with AsyncAdminClient(service_url=slow_server.url, admin_secret="s", protocol="rest", server_version="2.4.4") as admin:
            answers = await asyncio.gather(*(admin.admin_meta() for _ in range(200)))
            assert {answer.version for answer in answers} == {"2.4.4"}
            opened = slow_server.connections
            # Every connection the calls opened is still in the pool, alive for the next calls.
            pool = admin._core._http._client._transport._pool  # type: ignore[union-attr]
            kept = sum(1 for connection in pool.connections if connection.is_idle())
            await asyncio.gather(*(admin.admin_meta() for _ in range(20)))
            return opened, kept, slow_server.connections

    opened, kept, after = asyncio.run(calls())
    assert MAX_CONNECTIONS == 100
    # 200 calls over at most 100 connections: each carried two calls or more (with httpx's default
    # of 20 kept alive, the pool closed most after one call and opened about 190).
    assert opened <= MAX_CONNECTIONS
    assert kept == opened
    # More calls reuse them: no connection is opened.
    assert after == opened
    assert len(slow_server.requests) == 220


def test_the_sync_clients_pool_keeps_alive_as_many_as_it_opens(slow_server: LocalServer) -> None:
    with AdminClient(service_url=slow_server.url, admin_secret="s", protocol="rest", server_version="2.4.4") as admin:
        results: list[str] = []
        threads = [threading.Thread(target=lambda: results.append(admin.admin_meta().version)) for _ in range(40)]
        for round_ in range(2):
            for thread in threads[round_ * 20 : (round_ + 1) * 20]:
                thread.start()
            for thread in threads[round_ * 20 : (round_ + 1) * 20]:
                thread.join()
            if round_ == 0:
                opened = slow_server.connections
    assert results == ["2.4.4"] * 40
    assert opened <= 20 and slow_server.connections == opened


@pytest.fixture
def hanging_url() -> Iterator[str]:
    """A server that reads a request and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    closed = threading.Event()

    def accept() -> None:
        while not closed.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            held.append(connection)

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    closed.set()
    listener.close()
    for connection in held:
        connection.close()


def test_close_from_another_thread_cancels_a_sync_call_in_flight(hanging_url: str) -> None:
    admin = AdminClient(service_url=hanging_url, admin_secret="s", protocol="rest", server_version="2.4.4", timeout=20)
    threading.Timer(0.3, admin.close).start()
    started = time.monotonic()
    with pytest.raises(ApiError) as raised:
        admin.admin_meta()
    assert (raised.value.code, raised.value.message, raised.value.refused) == ("CANCELLED", "admin_meta was cancelled", False)
    assert time.monotonic() - started < 5
    # A later call is refused.
    with pytest.raises(ApiError, match="the client is closed"):
        admin.admin_meta()


def test_close_from_another_thread_ends_a_sync_call_waiting_to_retry(hanging_url: str) -> None:
    from identity_sdk import RetryPolicy

    # Nothing listens there: every attempt is refused, and the wait before the next is long.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    admin = AdminClient(service_url=closed, admin_secret="s", protocol="rest", server_version="2.4.4", retry=RetryPolicy(attempts=3, base_delay=10, max_delay=10))
    threading.Timer(0.3, admin.close).start()
    started = time.monotonic()
    with pytest.raises(ApiError) as raised:
        admin.admin_meta()
    assert raised.value.code == "CANCELLED"
    assert time.monotonic() - started < 5


def test_close_cancels_an_async_call_in_flight(hanging_url: str) -> None:
    async def run() -> ApiError:
        admin = AsyncAdminClient(service_url=hanging_url, admin_secret="s", protocol="rest", server_version="2.4.4", timeout=20)
        call = asyncio.ensure_future(admin.admin_meta())
        await asyncio.sleep(0.3)
        await admin.close()
        with pytest.raises(ApiError) as raised:
            await call
        return raised.value

    started = time.monotonic()
    error = asyncio.run(run())
    assert (error.code, error.message) == ("CANCELLED", "admin_meta was cancelled")
    assert time.monotonic() - started < 5
