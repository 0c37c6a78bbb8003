"""TLS of the clients: the httpx verification of GraphQL and REST (a CA file or an SSL context, a
client certificate), the gRPC channel credentials, and the rule that credentials never go in clear
to a host that is not this machine unless the caller says so (allow_insecure)."""

from __future__ import annotations

import ipaddress
import ssl
from dataclasses import dataclass
from pathlib import Path

from ._schema import TEXTS

Verify = ssl.SSLContext | str | bool
"""httpx's verify: True (the system's roots), False (no verification), a CA bundle file, or an SSL context."""
ClientCert = str | tuple[str, str]
"""A client certificate file holding its key too, or (certificate file, key file)."""


def is_loopback(host: str) -> bool:
    """localhost, 127.0.0.0/8 and ::1: traffic that never leaves the machine."""
    bare = host.strip("[]").lower()
    if bare == "localhost" or bare.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


def host_of_endpoint(endpoint: str) -> str:
    """The host of a gRPC target host:port (an IPv6 address in brackets)."""
    return endpoint.rsplit(":", 1)[0] if ":" in endpoint else endpoint


def in_clear(secure: bool, host: str, target: str, remedy: str, allow_insecure: bool) -> str | None:
    """Why a call may not go to `target` in clear, or None: TLS, loopback, or allow_insecure."""
    if secure or allow_insecure or is_loopback(host):
        return None
    return TEXTS["inClear"].format(target=target, remedy=remedy, option="allow_insecure=True")


def ssl_context(verify: Verify, cert: ClientCert | None) -> ssl.SSLContext | bool:
    """What the client's own httpx client verifies with: the caller's context, or one made from a CA file and a client certificate."""
    if isinstance(verify, ssl.SSLContext):
        context = verify
    elif verify is False:
        return False
    else:
        context = ssl.create_default_context(cafile=verify if isinstance(verify, str) else None)
    if cert is not None:
        certificate, key = (cert, None) if isinstance(cert, str) else cert
        context.load_cert_chain(certificate, key)
    return context


@dataclass(frozen=True)
class GrpcTls:
    """The arguments of grpc.ssl_channel_credentials; None for each means the gRPC default (system roots, no client certificate)."""

    root_certificates: bytes | None = None
    private_key: bytes | None = None
    certificate_chain: bytes | None = None


def grpc_tls(
    root_certificates: bytes | None,
    client_cert: bytes | None,
    client_key: bytes | None,
    verify: Verify,
    cert: ClientCert | None,
) -> GrpcTls:
    """The gRPC credentials: those given for gRPC, else the CA file of `verify` and the files of `cert`, so one option reaches every protocol."""
    if root_certificates is None and isinstance(verify, str):
        root_certificates = Path(verify).read_bytes()
    if client_cert is None and cert is not None:
        certificate, key = (cert, cert) if isinstance(cert, str) else cert
        client_cert, client_key = Path(certificate).read_bytes(), client_key or Path(key).read_bytes()
    return GrpcTls(root_certificates, client_key, client_cert)
