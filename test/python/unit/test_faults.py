"""The clients against servers that misbehave, on loopback: every wait ends at the caller's deadline,
the server-version lookup included, and its failures are named after the operation called."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from identity_sdk import AdminClient, ApiError, AsyncAdminClient


class FaultServer:
    """A TCP server on loopback whose every connection is handled by `behaviour` in a thread of its own."""

    def __init__(self, behaviour: Callable[[socket.socket], None]) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._behaviour = behaviour
        self._connections: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            self._connections.append(connection)
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        with contextlib.suppress(OSError):
            self._behaviour(connection)

    def close(self) -> None:
        self._closed = True
        self._listener.close()
        for connection in self._connections:
            connection.close()


def hang(connection: socket.socket) -> None:
    connection.recv(65536)
    time.sleep(30)


def drip(head_first: bool) -> Callable[[socket.socket], None]:
    """An answer sent a byte every 250 ms: all of it, or the body only (its head at once)."""

    def behaviour(connection: socket.socket) -> None:
        connection.recv(65536)
        body = b'{"version": "2.4.4"}' + b" " * 200
        head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(body)
        if not head_first:
            connection.sendall(head)
        for byte in (head + body if head_first else body):
            connection.sendall(bytes([byte]))
            time.sleep(0.25)

    return behaviour


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[FaultServer]:
    fault = FaultServer(request.param)
    yield fault
    fault.close()


def timed(call: Callable[[], Any]) -> tuple[ApiError, float]:
    started = time.monotonic()
    with pytest.raises(ApiError) as raised:
        call()
    return raised.value, time.monotonic() - started


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("server", [hang], indirect=True)
def test_the_version_lookup_ends_at_the_callers_deadline(server: FaultServer, mode: str) -> None:
    # create_organization over REST needs server 2.4.0: without server_version the client asks first.
    if mode == "sync":
        client = AdminClient(service_url=server.url, admin_secret="s", protocol="rest", retry=False)
        error, elapsed = timed(lambda: client.create_organization(name="acme", timeout=0.3))
        client.close()
    else:

        async def call() -> None:
            async with AsyncAdminClient(service_url=server.url, admin_secret="s", protocol="rest", retry=False) as client:
                await client.create_organization(name="acme", timeout=0.3)

        error, elapsed = timed(lambda: asyncio.run(call()))
    assert elapsed < 1.5
    assert (error.code, error.operation, error.message) == ("DEADLINE_EXCEEDED", "create_organization", "create_organization timed out")


@pytest.mark.parametrize("server", [hang], indirect=True)
def test_each_thread_waiting_for_the_version_leaves_at_its_own_deadline(server: FaultServer) -> None:
    client = AdminClient(service_url=server.url, admin_secret="s", protocol="rest", retry=False)
    elapsed: dict[float, float] = {}

    def call(timeout: float) -> None:
        started = time.monotonic()
        with pytest.raises(ApiError):
            client.create_organization(name="acme", timeout=timeout)
        elapsed[timeout] = time.monotonic() - started

    threads = [threading.Thread(target=call, args=(timeout,)) for timeout in (1.2, 0.3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    client.close()
    assert elapsed[0.3] < 0.9
    assert 1.1 < elapsed[1.2] < 2.5


@pytest.mark.parametrize("server", [drip(head_first=False)], indirect=True)
def test_a_dripped_body_ends_at_the_deadline_sync(server: FaultServer) -> None:
    client = AdminClient(service_url=server.url, admin_secret="s", protocol="rest", server_version="2.4.4", retry=False)
    error, elapsed = timed(lambda: client.admin_meta(timeout=0.6))
    client.close()
    assert error.code == "DEADLINE_EXCEEDED"
    assert elapsed < 1.5


@pytest.mark.parametrize("server", [drip(head_first=True)], indirect=True)
def test_a_dripped_answer_ends_at_the_deadline_async(server: FaultServer) -> None:
    async def call() -> None:
        async with AsyncAdminClient(service_url=server.url, admin_secret="s", protocol="rest", server_version="2.4.4", retry=False) as client:
            await client.admin_meta(timeout=0.6)

    error, elapsed = timed(lambda: asyncio.run(call()))
    assert error.code == "DEADLINE_EXCEEDED"
    assert elapsed < 1.5


def test_threads_making_their_first_call_together_share_one_pool() -> None:
    client = AdminClient(service_url="http://127.0.0.1:9", admin_secret="s", protocol="rest", server_version="2.4.4", retry=False)
    transports: set[int] = set()
    barrier = threading.Barrier(50)

    def first_call() -> None:
        barrier.wait()
        transports.add(id(client._core._transport("rest")))

    threads = [threading.Thread(target=first_call) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    client.close()
    assert len(transports) == 1


def test_the_default_deadline_is_a_minute_and_none_turns_it_off() -> None:
    assert AdminClient(service_url="http://localhost", admin_secret="s")._core._default_timeout == 60.0
    assert AdminClient(service_url="http://localhost", admin_secret="s", timeout=None)._core._default_timeout is None


def answer_meta(connection: socket.socket) -> None:
    """An HTTP/1.1 server answering every request on the connection with admin_meta's answer."""
    while connection.recv(65536):
        body = b'{"version": "2.4.4"}'
        connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))


@pytest.mark.parametrize("server", [answer_meta], indirect=True)
def test_an_async_client_works_from_a_second_event_loop(server: FaultServer) -> None:
    client = AsyncAdminClient(service_url=server.url, admin_secret="s", protocol="rest", server_version="2.4.4")
    assert asyncio.run(client.admin_meta()).version == "2.4.4"
    # A second asyncio.run: the first loop, and the connections it opened, are gone.
    assert asyncio.run(client.admin_meta()).version == "2.4.4"


def test_a_closed_http_client_of_the_callers_is_refused_in_the_one_error_class() -> None:
    http = httpx.Client()
    http.close()
    client = AdminClient(service_url="http://localhost:9", admin_secret="s", protocol="rest", server_version="2.4.4", http_client=http)
    with pytest.raises(ApiError) as raised:
        client.admin_meta()
    assert (raised.value.code, raised.value.refused) == ("FAILED_PRECONDITION", True)
