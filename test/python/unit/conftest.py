"""Clients over recorded HTTP (httpx.MockTransport): each test sees every request a client sent and
chooses every answer, for the sync and the async variant alike."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from identity_sdk import AdminClient, AsyncAdminClient, AsyncUserClient, UserClient

# A name under .localhost: loopback (RFC 6761), so the clients send to it in clear without allow_insecure.
SERVICE_URL = "http://identity.localhost"
SECRET = "s3cret"
Answer = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


class Recorder:
    """The HTTP side of a test: records requests, answers from a queue (then 200 {})."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.answers: list[Answer] = []

    def answer(self, *answers: Answer) -> Recorder:
        self.answers.extend(answers)
        return self

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if self.answers else self.empty_answer(request)
        if isinstance(answer, Exception):
            raise answer
        return answer(request) if callable(answer) else answer

    @staticmethod
    def empty_answer(request: httpx.Request) -> httpx.Response:
        """200 with an answer whose every field is unset: {} over REST, {"data": {"<operation>": {}}} over GraphQL."""
        if request.url.path.endswith("/graphql"):
            found = re.search(r"\{\s*(\w+)", json.loads(request.content)["query"])
            return httpx.Response(200, json={"data": {found.group(1) if found else "": {}}})
        return httpx.Response(200, json={})

    def body(self, index: int = -1) -> Any:
        return json.loads(self.requests[index].content)

    @property
    def paths(self) -> list[str]:
        return [request.url.path for request in self.requests]


class Clients:
    """Makes clients of one mode and runs their calls to the end, so a test reads the same for both."""

    def __init__(self, mode: str, recorder: Recorder) -> None:
        self.mode = mode
        self.recorder = recorder

    def admin(self, **options: Any) -> Any:
        options.setdefault("server_version", "2.4.0")
        cls = AdminClient if self.mode == "sync" else AsyncAdminClient
        return cls(service_url=SERVICE_URL, admin_secret=SECRET, http_client=self._http(), **options)

    def user(self, **options: Any) -> Any:
        options.setdefault("server_version", "2.4.0")
        cls = UserClient if self.mode == "sync" else AsyncUserClient
        return cls(service_url=SERVICE_URL, client_id="my-app", http_client=self._http(), **options)

    def _http(self) -> httpx.Client | httpx.AsyncClient:
        transport = httpx.MockTransport(self.recorder)
        return httpx.Client(transport=transport) if self.mode == "sync" else httpx.AsyncClient(transport=transport)

    def run(self, result: Any) -> Any:
        """The result of a call: as it is (sync) or awaited (async)."""
        return asyncio.run(result) if self.mode == "async" else result

    def each(self, items: Any) -> list[Any]:
        """Every item of an iter_ method."""
        if self.mode == "sync":
            return list(items)

        async def collect() -> list[Any]:
            return [item async for item in items]

        return asyncio.run(collect())

    def fails(self, call: Callable[[], Any]) -> Any:
        """The ApiError a call raises."""
        from identity_sdk import ApiError

        with pytest.raises(ApiError) as raised:
            self.run(call())
        return raised.value


@pytest.fixture(autouse=True)
def no_configuration_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test configures its clients itself: the environment's IDENTITY_* variables are unset."""
    for name in ("SERVICE_URL", "ADMIN_SECRET", "ACCESS_TOKEN", "LOG"):
        monkeypatch.delenv(f"IDENTITY_{name}", raising=False)


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture(params=["sync", "async"])
def clients(request: pytest.FixtureRequest, recorder: Recorder) -> Clients:
    return Clients(request.param, recorder)


def graphql_answer(operation: str, data: Any) -> httpx.Response:
    return httpx.Response(200, json={"data": {operation: data}})


class LocalServer:
    """An HTTP/1.1 server on loopback (keep-alive; one asyncio loop in a thread of its own) answering
    every request with `answer(method, path, body)` after `delay` seconds; it counts the connections
    it accepted."""

    def __init__(self, answer: Callable[[str, str, bytes], tuple[int, dict[str, str], Any]] | None = None, delay: float = 0.0) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        self.connections = 0
        self._respond = answer or (lambda method, path, body: (200, {}, {"version": "2.4.4"}))
        self._delay = delay
        self._loop = asyncio.new_event_loop()
        started = threading.Event()
        threading.Thread(target=self._run, args=(started,), daemon=True).start()
        started.wait()
        self.url = f"http://127.0.0.1:{self._port}"

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=1024))
        self._port = self._server.sockets[0].getsockname()[1]
        started.set()
        self._loop.run_forever()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                line, *fields = head.decode("latin-1").split("\r\n")
                method, path, _ = line.split(" ", 2)
                headers = {name.strip().lower(): value.strip() for name, _, value in (field.partition(":") for field in fields if field)}
                body = await reader.readexactly(int(headers.get("content-length") or 0))
                self.requests.append((method, path, headers, body))
                status, extra, content = self._respond(method, path, body)
                data = content if isinstance(content, bytes) else json.dumps(content).encode()
                if self._delay:
                    await asyncio.sleep(self._delay)
                lines = [f"HTTP/1.1 {status} X", "content-type: application/json", *(f"{name}: {value}" for name, value in extra.items()), f"content-length: {len(data)}"]
                writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def close(self) -> None:
        async def stop() -> None:
            self._server.close()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)


@pytest.fixture
def local_server() -> Iterator[LocalServer]:
    server = LocalServer()
    yield server
    server.close()
