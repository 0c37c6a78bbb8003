"""One ApiError, with one subclass per code, from every protocol's way of saying what went wrong."""

from __future__ import annotations

import httpx
import pytest

from conftest import Clients, Recorder
from identity_sdk import ApiError, InternalError, NotFoundError, RetryPolicy, UnauthenticatedError


def test_graphql_errors_carry_the_code_in_extensions(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(httpx.Response(200, json={"errors": [{"message": "organization x not found", "extensions": {"code": "NOT_FOUND"}}]}))
    error = clients.fails(lambda: clients.admin().get_organization(id="x"))
    assert isinstance(error, NotFoundError)
    assert (error.code, error.message, error.operation, error.protocol, error.status, error.refused) == (
        "NOT_FOUND",
        "organization x not found",
        "get_organization",
        "graphql",
        200,
        False,
    )
    assert str(error) == "organization x not found"


def test_unknown_graphql_codes_are_internal(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(httpx.Response(200, json={"errors": [{"message": "boom", "extensions": {"code": "WEIRD"}}]}))
    assert isinstance(clients.fails(lambda: clients.admin().admin_meta()), InternalError)


def test_rest_errors_carry_code_and_message(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(httpx.Response(401, json={"code": "UNAUTHENTICATED", "message": "wrong admin secret"}))
    error = clients.fails(lambda: clients.admin(protocol="rest").admin_meta())
    assert isinstance(error, UnauthenticatedError)
    assert (error.code, error.message, error.status, error.protocol) == ("UNAUTHENTICATED", "wrong admin secret", 401, "rest")


@pytest.mark.parametrize(("status", "code"), [(404, "NOT_FOUND"), (429, "TOO_MANY_REQUESTS"), (418, "INVALID_ARGUMENT"), (599, "INTERNAL")])
def test_rest_answers_without_an_error_body_take_the_code_of_their_status(clients: Clients, recorder: Recorder, status: int, code: str) -> None:
    recorder.answer(httpx.Response(status, text=""))
    error = clients.fails(lambda: clients.admin(protocol="rest", retry=False).admin_meta())
    assert (error.code, error.message, error.status) == (code, f"HTTP {status}", status)


def test_token_routes_answer_rfc_6749_errors(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(httpx.Response(400, json={"error": "invalid_grant", "error_description": "the code expired"}))
    error = clients.fails(lambda: clients.user().oauth_token(grant_type="authorization_code", code="c"))
    assert (error.code, error.message, error.oauth_error, error.protocol) == ("FAILED_PRECONDITION", "the code expired", "invalid_grant", "rest")


@pytest.mark.parametrize(("status", "code"), [(503, "UNAVAILABLE"), (429, "TOO_MANY_REQUESTS"), (500, "INTERNAL")])
def test_a_token_route_status_that_says_more_than_its_oauth_error(clients: Clients, recorder: Recorder, status: int, code: str) -> None:
    # The service keeps these statuses with an invalid_request body (RFC 6749 has no error for them).
    recorder.answer(httpx.Response(status, json={"error": "invalid_request", "error_description": "the database cannot be reached"}))
    error = clients.fails(lambda: clients.user(retry=False).oauth_token(grant_type="refresh_token", refresh_token="r"))
    assert (error.code, error.oauth_error, error.status) == (code, "invalid_request", status)


def test_an_answer_that_is_not_json(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(httpx.Response(200, text="<html>"))
    error = clients.fails(lambda: clients.admin().admin_meta())
    assert (error.code, error.message, error.status) == ("INTERNAL", "admin_meta: the service answered HTTP 200 with a body that is not its answer", 200)
    assert len(recorder.requests) == 1
    recorder.answer(httpx.Response(200, json={"data": None}))
    error = clients.fails(lambda: clients.admin().create_organization(name="acme"))
    assert error.message == "create_organization: the service answered HTTP 200 with a body that is not its answer; the write may have happened"
    recorder.answer(httpx.Response(502, text="<html>bad gateway</html>"))
    error = clients.fails(lambda: clients.admin(retry=False).admin_meta())
    assert (error.code, error.message, error.status) == ("UNAVAILABLE", "HTTP 502", 502)


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
def test_a_proxys_html_page_gets_the_code_of_its_status(clients: Clients, recorder: Recorder, protocol: str) -> None:
    for status, code, attempts in [(401, "UNAUTHENTICATED", 1), (404, "NOT_FOUND", 1), (429, "TOO_MANY_REQUESTS", 3), (503, "UNAVAILABLE", 3)]:
        recorder.requests.clear()
        page = httpx.Response(status, text="<html>proxy</html>", headers={"retry-after": "0"})
        recorder.answer(*[page] * attempts)
        error = clients.fails(lambda: clients.admin(protocol=protocol, retry=RetryPolicy(base_delay=0.001)).admin_meta())
        assert (error.code, error.status, error.retry_after, error.message) == (code, status, 0.0, f"HTTP {status}")
        assert len(recorder.requests) == attempts


def test_no_answer_and_timeouts(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(httpx.ConnectError("connection refused"))
    error = clients.fails(lambda: clients.admin(retry=False).admin_meta())
    assert (error.code, error.message) == ("UNAVAILABLE", "admin_meta: no answer from the service (connection refused)")
    recorder.answer(httpx.ReadTimeout("too slow"))
    error = clients.fails(lambda: clients.admin(retry=False).admin_meta())
    assert (error.code, error.message) == ("DEADLINE_EXCEEDED", "admin_meta timed out")


def test_transient_failures() -> None:
    assert ApiError("UNAVAILABLE", "m", "users", "rest").transient
    assert ApiError("TOO_MANY_REQUESTS", "m", "users", "rest").transient
    assert ApiError("INTERNAL", "m", "users", "rest", status=503).transient
    assert not ApiError("INTERNAL", "m", "users", "rest", status=500).transient
    assert not ApiError("NOT_FOUND", "m", "users", "grpc").transient
    # Made as ApiError, an error is of its code's subclass.
    assert type(ApiError("NOT_FOUND", "m", "users", "grpc")) is NotFoundError


def test_an_error_pickles_with_every_field() -> None:
    import pickle

    error = ApiError("NOT_FOUND", "no such user", "user", "rest", status=404, retry_after=1.5)
    copy = pickle.loads(pickle.dumps(error))
    assert isinstance(copy, NotFoundError)
    assert (copy.code, copy.message, copy.operation, copy.protocol, copy.status, copy.retry_after) == ("NOT_FOUND", "no such user", "user", "rest", 404, 1.5)


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
def test_an_answer_over_the_size_cap_is_refused(clients: Clients, recorder: Recorder, protocol: str) -> None:
    recorder.answer(httpx.Response(200, content=b" " * 5000))
    error = clients.fails(lambda: clients.admin(protocol=protocol, max_response_bytes=1000).admin_meta())
    assert (error.code, error.status, error.message) == ("PAYLOAD_TOO_LARGE", 200, "admin_meta: the answer is larger than 1000 bytes (max_response_bytes)")


def test_a_closed_client_refuses_every_later_call(clients: Clients, recorder: Recorder) -> None:
    admin = clients.admin()
    clients.run(admin.admin_meta())
    clients.run(admin.close())
    error = clients.fails(lambda: admin.admin_meta())
    assert (error.code, error.refused, error.message) == ("FAILED_PRECONDITION", True, "admin_meta: the client is closed; make a new one")
    assert len(recorder.requests) == 1
