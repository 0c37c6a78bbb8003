"""Calls refused before any byte is sent, with the TypeScript client's words."""

from __future__ import annotations

import httpx
import pytest

from conftest import Clients, Recorder
from identity_sdk import FailedPreconditionError

# Nothing listens there: a refused gRPC call must not even try to connect.
NOWHERE = "127.0.0.1:9"


@pytest.mark.parametrize("protocol", ["rest", "grpc"])
def test_an_operation_the_protocol_does_not_carry(clients: Clients, recorder: Recorder, protocol: str) -> None:
    error = clients.fails(lambda: clients.admin(protocol=protocol, grpc_endpoint=NOWHERE).admin_signup(admin_secret="x"))
    assert isinstance(error, FailedPreconditionError)
    assert (error.code, error.message, error.refused, error.protocol) == (
        "FAILED_PRECONDITION", f"AdminSignup not available over {protocol}; use graphql", True, protocol,
    )
    assert recorder.requests == []


def test_destructive_operations_in_read_only_mode(clients: Clients, recorder: Recorder) -> None:
    error = clients.fails(lambda: clients.admin(read_only=True).delete_organization(id="o1"))
    assert (error.message, error.refused) == ("DeleteOrganization is destructive and this client is read-only", True)
    assert recorder.requests == []
    clients.run(clients.admin(read_only=True).organizations())
    assert len(recorder.requests) == 1


def test_an_operation_newer_than_the_server_over_that_protocol(clients: Clients, recorder: Recorder) -> None:
    error = clients.fails(lambda: clients.admin(protocol="rest", server_version="2.3.0").get_organization(id="o1"))
    assert error.message == "GetOrganization not available over rest; use graphql (needs server 2.4.0 or later on rest; the server is 2.3.0)"
    error = clients.fails(lambda: clients.admin(protocol="grpc", grpc_endpoint=NOWHERE, server_version="2.3.0-rc.1").get_organization(id="o1"))
    assert error.message == "GetOrganization not available over grpc; no protocol carries it on this server (needs server 2.4.0 or later on grpc; the server is 2.3.0-rc.1)"
    assert recorder.requests == []


META = {"version": "2.3.0", "client_id": "c", "enabled_protocols": ["rest"], "grpc_port": 9091}


def test_the_server_version_is_asked_once_and_only_when_it_matters(clients: Clients, recorder: Recorder) -> None:
    admin = clients.admin(protocol="rest", server_version=None)
    clients.run(admin.users())
    assert recorder.paths == ["/v1/admin/users"]
    recorder.answer(httpx.Response(200, json=META))
    for _ in range(2):
        assert clients.fails(lambda: admin.get_organization(id="o1")).refused
    assert recorder.paths == ["/v1/admin/users", "/v1/admin/admin_meta"]


def test_a_failed_version_question_is_asked_again(clients: Clients, recorder: Recorder) -> None:
    admin = clients.admin(protocol="rest", server_version=None, retry=False)
    recorder.answer(httpx.Response(503, text=""), httpx.Response(200, json={**META, "version": "2.4.0"}), httpx.Response(200, json={"id": "o1"}))
    assert clients.fails(lambda: admin.get_organization(id="o1")).code == "UNAVAILABLE"
    assert clients.run(admin.get_organization(id="o1")).id == "o1"
    assert recorder.paths == ["/v1/admin/admin_meta", "/v1/admin/admin_meta", "/v1/admin/get_organization"]
