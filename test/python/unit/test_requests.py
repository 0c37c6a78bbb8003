"""What goes on the wire: routes, bodies, GraphQL documents and headers, as the TypeScript client sends them."""

from __future__ import annotations

import inspect
import re

import httpx
import pytest

from conftest import SECRET, SERVICE_URL, Clients, Recorder, graphql_answer
from identity_sdk import OPERATIONS, AdminClient, AsyncAdminClient, AsyncUserClient, UserClient


def test_graphql_sends_the_operation_document_with_its_params(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(graphql_answer("users", {"users": [], "pagination": {"limit": 5, "page": 2, "offset": 5, "total": 5}}))
    clients.run(clients.admin().users(pagination={"limit": 5, "page": 2}))
    request = recorder.requests[0]
    assert (request.method, str(request.url)) == ("POST", f"{SERVICE_URL}/graphql")
    assert recorder.body() == {"query": OPERATIONS["users"].graphql.document, "variables": {"params": {"pagination": {"limit": 5, "page": 2}}}}
    assert recorder.body()["query"].startswith("query users($params: UsersInput) { users(params: $params) { ")


def test_rest_posts_the_input_without_the_arguments_left_out(clients: Clients, recorder: Recorder) -> None:
    clients.run(clients.admin(protocol="rest").create_organization(name="acme"))
    request = recorder.requests[0]
    assert (request.method, str(request.url)) == ("POST", f"{SERVICE_URL}/v1/admin/create_organization")
    assert request.headers["content-type"] == "application/json"
    assert recorder.body() == {"name": "acme"}


def test_rest_get_routes_send_no_body(clients: Clients, recorder: Recorder) -> None:
    clients.run(clients.user(protocol="rest").meta())
    request = recorder.requests[0]
    assert (request.method, str(request.url), request.content) == ("GET", f"{SERVICE_URL}/v1/meta", b"")


def test_headers_are_extra_then_credentials_then_per_call(clients: Clients, recorder: Recorder) -> None:
    admin = clients.admin(protocol="rest", extra_headers={"x-tenant": "t1", "x-trace": "config"})
    clients.run(admin.admin_meta(extra_headers={"x-trace": "call"}))
    headers = recorder.requests[0].headers
    assert (headers["x-service-admin-secret"], headers["x-tenant"], headers["x-trace"]) == (SECRET, "t1", "call")
    # An org-admin's call: the per-call headers replace the admin secret.
    clients.run(admin.admin_meta(extra_headers={"x-service-admin-secret": "", "authorization": "Bearer t"}))
    assert recorder.requests[1].headers["x-service-admin-secret"] == ""
    assert recorder.requests[1].headers["authorization"] == "Bearer t"


def test_user_calls_carry_the_access_token_set_last(clients: Clients, recorder: Recorder) -> None:
    user = clients.user(protocol="rest", access_token="first")
    clients.run(user.profile())
    user.set_access_token("second")
    clients.run(user.profile())
    user.set_access_token(None)
    clients.run(user.profile())
    assert [r.headers.get("authorization") for r in recorder.requests] == ["Bearer first", "Bearer second", None]


@pytest.mark.parametrize("protocol", ["graphql", "rest", "grpc"])
def test_token_calls_go_over_rest_and_name_this_client(clients: Clients, recorder: Recorder, protocol: str) -> None:
    recorder.answer(httpx.Response(200, json={"access_token": "a", "token_type": "Bearer", "expires_in": 60}))
    user = clients.user(protocol=protocol, grpc_endpoint="127.0.0.1:9")
    answer = clients.run(user.oauth_token(grant_type="client_credentials"))
    assert answer.access_token == "a"
    assert recorder.paths == ["/oauth/token"]
    assert recorder.body() == {"grant_type": "client_credentials", "client_id": "my-app"}
    clients.run(user.oauth_revoke(token="t", client_id="other-app"))
    assert recorder.body() == {"token": "t", "client_id": "other-app"}


def test_configuration_follows_the_spec() -> None:
    assert AdminClient(service_url="https://id.example.com:8443", admin_secret="s").grpc_endpoint == "id.example.com:9091"
    assert AdminClient(service_url="http://localhost:8080/", admin_secret="s").grpc_endpoint == "localhost:9091"
    assert AdminClient(service_url="http://[::1]:8080", admin_secret="s").grpc_endpoint == "[::1]:9091"
    assert UserClient(service_url="http://10.0.0.5", client_id="app", grpc_endpoint="grpc.internal:443").grpc_endpoint == "grpc.internal:443"
    assert AdminClient(service_url="http://localhost:8080", admin_secret="s").protocol == "graphql"
    for endpoint in ("http://localhost:28418", "localhost", "localhost:9091/grpc"):
        with pytest.raises(ValueError, match=rf"^grpc_endpoint must be host:port, such as localhost:9091, not '{re.escape(endpoint)}'$"):
            AdminClient(service_url="http://localhost", admin_secret="s", grpc_endpoint=endpoint)
    assert AdminClient(service_url="http://localhost", admin_secret="s", grpc_endpoint="[::1]:28418").grpc_endpoint == "[::1]:28418"
    with pytest.raises(ValueError, match=r"^protocol must be one of graphql, rest, grpc, not 'soap'$"):
        AdminClient(service_url="http://localhost", admin_secret="s", protocol="soap")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^admin_secret is required \(or the environment variable IDENTITY_ADMIN_SECRET\), or access_token: the access token of a user who is an org-admin"):
        AdminClient(service_url="http://localhost", admin_secret="")
    with pytest.raises(ValueError, match=r"^admin_secret is required \(or the environment variable IDENTITY_ADMIN_SECRET\), or access_token"):
        AdminClient(service_url="http://localhost")
    with pytest.raises(ValueError, match=r"^give admin_secret or access_token, not both"):
        AdminClient(service_url="http://localhost", admin_secret="s", access_token="t")
    # An org-admin's client: their token as a bearer token, no admin secret.
    org_admin = AdminClient(service_url="http://localhost", access_token="t")
    assert org_admin._core._headers["authorization"] == "Bearer t"
    assert "x-service-admin-secret" not in org_admin._core._headers
    with pytest.raises(ValueError, match=r"^client_id is required$"):
        AsyncUserClient(service_url="http://localhost", client_id="")
    with pytest.raises(ValueError, match="service_url must be an http or https URL"):
        AdminClient(service_url="localhost:8080", admin_secret="s")


def public_methods(cls: type) -> dict[str, list[str]]:
    return {
        name: [str(p) for p in inspect.signature(member).parameters.values()]
        for name, member in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_")
    }


@pytest.mark.parametrize(("sync", "async_"), [(AdminClient, AsyncAdminClient), (UserClient, AsyncUserClient)])
def test_the_async_clients_mirror_the_sync_ones_method_for_method(sync: type, async_: type) -> None:
    assert public_methods(sync) == public_methods(async_)
    surfaces = ("admin",) if sync is AdminClient else ("user", "oauth")
    operations = {op.method for op in OPERATIONS.values() if op.surface in surfaces}
    iterators = {f"iter_{op.name}{pages}" for op in OPERATIONS.values() if op.surface in surfaces and op.pagination for pages in ("", "_pages")}
    assert set(public_methods(sync)) == operations | iterators | {"close", "set_access_token"} - ({"set_access_token"} if sync is AdminClient else set())
    assert inspect.iscoroutinefunction(async_.admin_meta if sync is AdminClient else async_.meta)
    # with_raw_response: every operation's method, and only those, in both variants alike.
    raw = inspect.signature(sync.with_raw_response.fget).return_annotation  # type: ignore[attr-defined]
    async_raw = inspect.signature(async_.with_raw_response.fget).return_annotation  # type: ignore[attr-defined]
    from identity_sdk import _clients

    assert public_methods(getattr(_clients, raw)) == public_methods(getattr(_clients, async_raw))
    assert set(public_methods(getattr(_clients, raw))) == operations


def test_resource_routes_fill_their_path_and_send_the_rest_in_the_query_or_the_body() -> None:
    from identity_sdk._facts import Operation, RestBinding
    from identity_sdk._http import build_request

    def route(method: str, in_query: bool) -> Operation:
        return OPERATIONS["get_webhook"]._replace(rest=RestBinding(method, "/v1/admin/webhooks/{id}", ("id",), in_query))

    method, url, body, _ = build_request(SERVICE_URL, route("DELETE", True), "rest", {"id": "hook/1 é", "reason": "gone"}, {})
    assert (method, url, body) == ("DELETE", f"{SERVICE_URL}/v1/admin/webhooks/hook%2F1%20%C3%A9?reason=gone", None)
    method, url, body, headers = build_request(SERVICE_URL, route("PATCH", False), "rest", {"id": "hook-2", "enabled": False}, {})
    assert (method, url, body, headers["content-type"]) == ("PATCH", f"{SERVICE_URL}/v1/admin/webhooks/hook-2", b'{"enabled":false}', "application/json")
