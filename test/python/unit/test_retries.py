"""Reads are retried on transient failures with backoff and jitter (honouring Retry-After); writes never."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from conftest import Clients, Recorder, graphql_answer
from identity_sdk import RetryPolicy


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []

    async def no_wait(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(time, "sleep", slept.append)
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


def test_writes_are_never_repeated(clients: Clients, recorder: Recorder, sleeps: list[float]) -> None:
    recorder.answer(httpx.Response(503, text=""), httpx.Response(200, json={}))
    assert clients.fails(lambda: clients.admin(protocol="rest").create_organization(name="acme")).status == 503
    assert (len(recorder.requests), sleeps) == (1, [])


def test_retry_after_is_honoured(clients: Clients, recorder: Recorder, sleeps: list[float]) -> None:
    limited = httpx.Response(429, headers={"retry-after": "2"}, json={"code": "TOO_MANY_REQUESTS", "message": "slow down"})
    recorder.answer(limited, httpx.Response(200, json=META))
    clients.run(clients.admin(protocol="rest").admin_meta())
    assert sleeps == [2.0]


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
