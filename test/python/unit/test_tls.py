"""TLS settings and the refusal to send credentials in clear to a host that is not loopback."""

from __future__ import annotations

import httpx
import pytest

from conftest import SECRET, Recorder
from identity_sdk import AdminClient, ApiError, AsyncAdminClient
from identity_sdk._tls import is_loopback


def test_loopback_hosts_are_those_that_never_leave_the_machine() -> None:
    assert all(is_loopback(host) for host in ["localhost", "api.localhost", "127.0.0.1", "127.8.9.10", "::1", "[::1]"])
    assert not any(is_loopback(host) for host in ["10.0.0.5", "192.0.2.1", "example.com", "localhost.example.com", "::2"])


@pytest.mark.parametrize("protocol", ["graphql", "rest", "grpc"])
def test_a_remote_plaintext_call_is_refused_before_anything_is_sent(protocol: str) -> None:
    recorder = Recorder()
    client = AdminClient(
        service_url="http://192.0.2.1:8080",
        admin_secret=SECRET,
        protocol=protocol,  # type: ignore[arg-type]
        server_version="2.4.0",
        http_client=httpx.Client(transport=httpx.MockTransport(recorder)),
    )
    with pytest.raises(ApiError) as raised:
        client.admin_meta()
    assert raised.value.refused
    assert raised.value.code == "FAILED_PRECONDITION"
    target = "gRPC 192.0.2.1:9091" if protocol == "grpc" else "http://192.0.2.1:8080"
    assert raised.value.message.startswith(f"refusing to send credentials in clear to {target}: ")
    assert raised.value.message.endswith("or set allow_insecure=True to send them anyway")
    assert recorder.requests == []


def test_the_server_version_is_not_asked_in_clear_either() -> None:
    recorder = Recorder()
    client = AdminClient(service_url="http://192.0.2.1", admin_secret=SECRET, protocol="rest", http_client=httpx.Client(transport=httpx.MockTransport(recorder)))
    with pytest.raises(ApiError, match=r"^refusing to send credentials in clear"):
        client.get_organization(id="o")
    assert recorder.requests == []


def test_allow_insecure_sends_them() -> None:
    recorder = Recorder()
    client = AdminClient(
        service_url="http://192.0.2.1:8080",
        admin_secret=SECRET,
        server_version="2.4.0",
        allow_insecure=True,
        http_client=httpx.Client(transport=httpx.MockTransport(recorder)),
    )
    client.admin_meta()
    assert len(recorder.requests) == 1
    assert recorder.requests[0].url.host == "192.0.2.1"


def test_grpc_follows_the_scheme_unless_told() -> None:
    assert AsyncAdminClient(service_url="https://id.example.com", admin_secret=SECRET)._core.grpc_tls is not None
    assert AdminClient(service_url="http://localhost:8080", admin_secret=SECRET)._core.grpc_tls is None
    assert AdminClient(service_url="https://id.example.com", admin_secret=SECRET, grpc_tls=False, allow_insecure=True)._core.grpc_tls is None
    tls = AdminClient(service_url="http://localhost:8080", admin_secret=SECRET, grpc_tls=True, grpc_root_certificates=b"pem")._core.grpc_tls
    assert tls is not None and tls.root_certificates == b"pem"


def test_grpc_in_clear_to_another_host_is_refused_even_when_http_is_tls() -> None:
    client = AdminClient(service_url="https://id.example.com", admin_secret=SECRET, protocol="grpc", grpc_tls=False, server_version="2.4.0")
    with pytest.raises(ApiError, match=r"^refusing to send credentials in clear to gRPC id\.example\.com:9091: .*grpc_tls=True"):
        client.admin_meta()
