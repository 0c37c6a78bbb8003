"""A redirect is answered, never followed, even by an http_client of the caller's that follows them:
httpx would send the admin secret header (any header but Authorization) to the address it names."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import httpx
import pytest

from conftest import SECRET, SERVICE_URL, Recorder
from identity_sdk import AdminClient, ApiError, AsyncAdminClient

ELSEWHERE = "http://elsewhere.localhost"


def redirect(request: httpx.Request) -> httpx.Response:
    if request.url.host == "elsewhere.localhost":
        return httpx.Response(200, json={"data": {"adminMeta": {"version": "2.5.0"}}, "version": "2.5.0"})
    return httpx.Response(307, headers={"location": f"{ELSEWHERE}{request.url.path}"})


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_callers_client_that_follows_redirects_does_not_follow_them_for_the_sdk(mode: str, protocol: Literal["graphql", "rest"]) -> None:
    recorder = Recorder().answer(*[redirect] * 4)
    transport = httpx.MockTransport(recorder)
    # The same client in both modes but for its http_client, which follows redirects.
    options: dict[str, Any] = {"service_url": SERVICE_URL, "admin_secret": SECRET, "protocol": protocol, "server_version": "2.5.0", "retry": False}
    if mode == "sync":
        with (
            AdminClient(**options, http_client=httpx.Client(transport=transport, follow_redirects=True)) as admin,
            pytest.raises(ApiError) as caught,
        ):
            admin.admin_meta()
    else:

        async def call() -> None:
            async with AsyncAdminClient(**options, http_client=httpx.AsyncClient(transport=transport, follow_redirects=True)) as admin:
                await admin.admin_meta()

        with pytest.raises(ApiError) as caught:
            asyncio.run(call())
    assert caught.value.protocol == protocol
    assert [request.url.host for request in recorder.requests] == ["identity.localhost"]
