"""client.with_raw_response.<method>(...): the same call, answering what came with it (status,
headers, protocol, attempts) and parse() for the answer; a failure's headers on ApiError.headers."""

from __future__ import annotations

import pickle

import httpx
import pytest

from conftest import Clients, Recorder, graphql_answer
from identity_sdk import ApiError, RawResponse, RetryPolicy

META = {"version": "2.4.4", "client_id": "c", "enabled_protocols": ["rest"], "grpc_port": 9091}


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
def test_a_raw_response_has_the_status_headers_protocol_attempts_and_the_answer(clients: Clients, recorder: Recorder, protocol: str) -> None:
    answer = graphql_answer("admin_meta", META) if protocol == "graphql" else httpx.Response(200, json=META)
    ok = httpx.Response(answer.status_code, headers={"x-request-id": "r-1"}, content=answer.content)
    recorder.answer(httpx.Response(503, text=""), ok, ok)
    admin = clients.admin(protocol=protocol, retry=RetryPolicy(attempts=3, base_delay=0.001))
    raw = clients.run(admin.with_raw_response.admin_meta())
    assert isinstance(raw, RawResponse)
    assert (raw.status_code, raw.headers["x-request-id"], raw.protocol, raw.attempts) == (200, "r-1", protocol, 2)
    assert isinstance(raw.headers, httpx.Headers)
    # parse(): the typed answer the plain method returns.
    assert raw.parse() == clients.run(admin.admin_meta())
    assert raw.parse().version == "2.4.4"
    assert "RawResponse(status_code=200" in repr(raw)


def test_token_calls_answer_their_raw_response_over_rest(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(httpx.Response(200, headers={"cache-control": "no-store"}, json={"access_token": "a", "token_type": "Bearer", "expires_in": 60}))
    raw = clients.run(clients.user(protocol="graphql").with_raw_response.oauth_token(grant_type="client_credentials"))
    assert (raw.status_code, raw.protocol, raw.headers["cache-control"], raw.parse().access_token) == (200, "rest", "no-store", "a")


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
def test_a_failure_carries_the_headers_of_its_answer(clients: Clients, recorder: Recorder, protocol: str) -> None:
    body = {"errors": [{"message": "no such organization", "extensions": {"code": "NOT_FOUND"}}]} if protocol == "graphql" else {"code": "NOT_FOUND", "message": "no such organization"}
    recorder.answer(httpx.Response(200 if protocol == "graphql" else 404, headers={"x-request-id": "r-2"}, json=body))
    error = clients.fails(lambda: clients.admin(protocol=protocol).with_raw_response.get_organization(id="o1"))
    assert (error.code, error.headers["x-request-id"]) == ("NOT_FOUND", "r-2")
    # Across processes too.
    assert pickle.loads(pickle.dumps(error)).headers["x-request-id"] == "r-2"


def test_a_failure_without_an_answer_has_no_headers(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(httpx.ConnectError("refused"))
    error = clients.fails(lambda: clients.admin(protocol="rest", retry=False).admin_meta())
    assert (error.code, error.headers) == ("UNAVAILABLE", None)
    assert ApiError("NOT_FOUND", "m", "o", "rest").headers is None
