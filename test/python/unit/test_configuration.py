"""Configuration from the environment (IDENTITY_SERVICE_URL, IDENTITY_ADMIN_SECRET, IDENTITY_ACCESS_TOKEN;
what the code gives wins), and repr() of the clients and their settings without a secret."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from conftest import SERVICE_URL, Recorder
from identity_sdk import AdminClient, AsyncAdminClient, AsyncUserClient, UserClient
from identity_sdk._core import Settings


def recorded(recorder: Recorder) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(recorder))


def test_the_environment_gives_what_the_code_does_not(recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IDENTITY_SERVICE_URL", "http://env.localhost/")
    monkeypatch.setenv("IDENTITY_ADMIN_SECRET", "env-secret")
    monkeypatch.setenv("IDENTITY_ACCESS_TOKEN", "env-token")
    admin = AdminClient(protocol="rest", server_version="2.4.4", http_client=recorded(recorder))
    admin.admin_meta()
    request = recorder.requests[-1]
    assert (str(request.url), request.headers["x-service-admin-secret"], request.headers.get("authorization")) == ("http://env.localhost/v1/admin/admin_meta", "env-secret", None)
    user = UserClient(client_id="app", protocol="rest", http_client=recorded(recorder))
    user.profile()
    assert (recorder.requests[-1].url.host, recorder.requests[-1].headers["authorization"]) == ("env.localhost", "Bearer env-token")
    # What the code gives wins.
    AdminClient(service_url=SERVICE_URL, admin_secret="code-secret", protocol="rest", server_version="2.4.4", http_client=recorded(recorder)).admin_meta()
    assert (recorder.requests[-1].url.host, recorder.requests[-1].headers["x-service-admin-secret"]) == ("identity.localhost", "code-secret")
    UserClient(service_url=SERVICE_URL, client_id="app", access_token="code-token", protocol="rest", http_client=recorded(recorder)).profile()
    assert recorder.requests[-1].headers["authorization"] == "Bearer code-token"
    # An org-admin's token given in the code: the environment's secret is not added to it.
    AdminClient(access_token="code-token", protocol="rest", server_version="2.4.4", http_client=recorded(recorder)).admin_meta()
    assert ("x-service-admin-secret" not in recorder.requests[-1].headers, recorder.requests[-1].headers["authorization"]) == (True, "Bearer code-token")


def test_an_admin_client_takes_the_environments_token_only_without_a_secret(recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IDENTITY_ACCESS_TOKEN", "org-admin-token")
    AdminClient(service_url=SERVICE_URL, protocol="rest", server_version="2.4.4", http_client=recorded(recorder)).admin_meta()
    assert recorder.requests[-1].headers["authorization"] == "Bearer org-admin-token"


def test_an_org_admins_client_learns_the_server_version_from_the_open_read(recorder: Recorder) -> None:
    # The admin's own version read needs the secret; a role holder's token asks the read anyone may call.
    recorder.answer(httpx.Response(200, json={"version": "2.6.0"}), httpx.Response(200, json={"id": "org-1", "name": "acme"}))
    org_admin = AdminClient(service_url=SERVICE_URL, access_token="org-admin-token", protocol="rest", http_client=recorded(recorder))
    assert org_admin.get_organization(id="org-1").name == "acme"
    assert (recorder.requests[0].method, recorder.requests[0].url.path, recorder.requests[0].headers["authorization"]) == ("GET", "/v1/meta", "Bearer org-admin-token")
    assert len(recorder.requests) == 2
    # The admin's client asks its own, with the secret.
    recorder.answer(httpx.Response(200, json={"version": "2.6.0"}), httpx.Response(200, json={"id": "org-1", "name": "acme"}))
    admin = AsyncAdminClient(service_url=SERVICE_URL, admin_secret="code-secret", protocol="rest", http_client=httpx.AsyncClient(transport=httpx.MockTransport(recorder)))
    assert asyncio.run(admin.get_organization(id="org-1")).name == "acme"
    assert (recorder.requests[2].url.path, recorder.requests[2].headers["x-service-admin-secret"]) == ("/v1/admin/admin_meta", "code-secret")


@pytest.mark.parametrize("cls", [AdminClient, AsyncAdminClient])
def test_the_errors_name_the_variables(cls: type[AdminClient] | type[AsyncAdminClient], monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match=r"^service_url is required, or the environment variable IDENTITY_SERVICE_URL$"):
        cls(admin_secret="s")
    monkeypatch.setenv("IDENTITY_SERVICE_URL", "http://localhost:8080")
    with pytest.raises(ValueError, match=r"^admin_secret is required \(or the environment variable IDENTITY_ADMIN_SECRET\), or access_token"):
        cls()
    monkeypatch.setenv("IDENTITY_ADMIN_SECRET", "")
    with pytest.raises(ValueError, match="IDENTITY_ADMIN_SECRET"):
        cls()
    monkeypatch.setenv("IDENTITY_ADMIN_SECRET", "s")
    assert cls().grpc_endpoint == "localhost:9091"
    with pytest.raises(ValueError, match="service_url is required, or the environment variable IDENTITY_SERVICE_URL"):
        monkeypatch.delenv("IDENTITY_SERVICE_URL")
        UserClient(client_id="app")


def test_repr_of_a_client_never_shows_a_secret() -> None:
    admin = AdminClient(service_url="http://localhost:8080", admin_secret="s3cret-admin", extra_headers={"authorization": "Bearer h3ader"})
    text = repr(admin)
    assert text == "AdminClient(service_url='http://localhost:8080', protocol='graphql', grpc_endpoint='localhost:9091', admin_secret='***')"
    assert "s3cret" not in repr(admin.with_raw_response)
    user = UserClient(service_url="http://localhost:8080", client_id="app", access_token="t0ken")
    assert repr(user) == "UserClient(service_url='http://localhost:8080', protocol='graphql', grpc_endpoint='localhost:9091', access_token='***', client_id='app')"
    user.set_access_token("n3w-t0ken")
    assert "t0ken" not in repr(user)
    user.set_access_token(None)
    assert "access_token" not in repr(user)
    assert repr(AsyncUserClient(service_url="http://localhost:8080", client_id="app", access_token="t0ken")).startswith("AsyncUserClient(")
    assert "t0ken" not in repr(asyncio.run(_async_repr()))


async def _async_repr() -> str:
    async with AsyncAdminClient(service_url="http://localhost:8080", access_token="t0ken") as admin:
        return repr(admin) + repr(admin.with_raw_response)


def test_repr_of_the_settings_never_shows_a_secret() -> None:
    settings = Settings(
        role="admin", service_url="http://localhost", secret="s3cret", access_token="t0ken", grpc_client_key=b"PRIVATE", extra_headers={"cookie": "c00kie", "x-tenant": "t1"}
    )
    text = repr(settings)
    for secret in ("s3cret", "t0ken", "PRIVATE", "c00kie"):
        assert secret not in text
    assert "secret='***'" in text and "access_token='***'" in text and "grpc_client_key='***'" in text
    assert "'x-tenant': 't1'" in text and "api_key=None" in text
