"""Clients over recorded HTTP (httpx.MockTransport): each test sees every request a client sent and
chooses every answer, for the sync and the async variant alike."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
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


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture(params=["sync", "async"])
def clients(request: pytest.FixtureRequest, recorder: Recorder) -> Clients:
    return Clients(request.param, recorder)


def graphql_answer(operation: str, data: Any) -> httpx.Response:
    return httpx.Response(200, json={"data": {operation: data}})
