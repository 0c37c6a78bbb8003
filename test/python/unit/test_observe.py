"""What a client tells of its calls and of itself: User-Agent and x-api-client on every request, a
log record per attempt on the package's logger (IDENTITY_LOG=debug / info to stderr) with every
credential redacted, httpx's event hooks, and the W3C trace context where OpenTelemetry is installed."""

from __future__ import annotations

import asyncio
import logging
import platform
import sys
import types
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from conftest import SECRET, Clients, LocalServer, Recorder, graphql_answer
from identity_sdk import AdminClient, AsyncAdminClient, RetryPolicy, __version__, _observe

META = {"version": "2.4.4"}
FAST = RetryPolicy(attempts=3, base_delay=0.001)


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
def test_every_request_names_the_sdk(clients: Clients, recorder: Recorder, protocol: str) -> None:
    admin = clients.admin(protocol=protocol)
    clients.run(admin.admin_meta())
    clients.run(clients.user(protocol=protocol).meta())
    implementation = f"{platform.python_implementation().lower()}/{platform.python_version()}"
    for request in recorder.requests:
        assert request.headers["user-agent"] == f"identity-interface-sdk/{__version__}"
        assert request.headers["x-api-client"] == f"python/{__version__} {implementation}"
    # An extra header of the same name replaces the SDK's, however it is spelt.
    clients.run(clients.admin(protocol=protocol, extra_headers={"User-Agent": "my-app/1"}).admin_meta())
    assert recorder.requests[-1].headers.get_list("user-agent") == ["my-app/1"]


@pytest.fixture
def stderr_log(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The package's logger as a fresh process has it; the handler IDENTITY_LOG adds is removed after."""
    monkeypatch.setattr(_observe, "_log_handler", None)
    level = _observe.LOGGER.level
    yield
    for handler in list(_observe.LOGGER.handlers):
        if isinstance(handler, _observe._StderrHandler):
            _observe.LOGGER.removeHandler(handler)
    _observe.LOGGER.setLevel(level)


def flaky_login(clients: Clients, recorder: Recorder, **options: Any) -> None:
    """admin_meta failing once with 503 then answered, and an admin_login carrying a secret input."""
    recorder.answer(httpx.Response(503, text=""), httpx.Response(200, json=META), httpx.Response(200, json={"message": "ok"}))
    admin = clients.admin(protocol="rest", retry=FAST, **options)
    clients.run(admin.admin_meta())
    clients.run(admin.admin_login(admin_secret="input-s3cret-value"))


@pytest.mark.usefixtures("stderr_log")
def test_log_debug_prints_every_attempt_and_never_a_secret(clients: Clients, recorder: Recorder, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("IDENTITY_LOG", "debug")
    flaky_login(clients, recorder, extra_headers={"authorization": "Bearer tok3n", "cookie": "session=c00kie"})
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3, lines
    assert lines[0].startswith("identity_sdk WARNING admin_meta over rest, attempt 1: UNAVAILABLE (HTTP 503) in ")
    assert ", retrying; headers {" in lines[0]
    assert lines[1].startswith("identity_sdk DEBUG admin_meta over rest, attempt 2: HTTP 200 in ")
    assert lines[2].startswith("identity_sdk DEBUG admin_login over rest, attempt 1: HTTP 200 in ")
    text = "\n".join(lines)
    for secret in (SECRET, "tok3n", "c00kie", "input-s3cret-value"):
        assert secret not in text
    assert "'x-service-admin-secret': '[redacted]'" in text
    assert "'authorization': '[redacted]'" in text and "'cookie': '[redacted]'" in text
    assert "'user-agent': 'identity-interface-sdk/" in text


@pytest.mark.usefixtures("stderr_log")
def test_log_info_prints_the_failures_alone_and_unset_prints_nothing(clients: Clients, recorder: Recorder, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    flaky_login(clients, recorder)
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("IDENTITY_LOG", "info")
    flaky_login(clients, recorder)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("identity_sdk WARNING admin_meta over rest, attempt 1: UNAVAILABLE (HTTP 503)")


def test_each_attempt_is_a_record_with_its_fields(clients: Clients, recorder: Recorder, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="identity_sdk")
    recorder.answer(httpx.Response(503, text=""), graphql_answer("admin_meta", META))
    clients.run(clients.admin(retry=FAST).admin_meta())
    failed, answered = [record for record in caplog.records if record.name == "identity_sdk"]
    fields = ("operation", "protocol", "attempt", "status", "code", "will_retry")
    assert [getattr(failed, name) for name in fields] == ["admin_meta", "graphql", 1, 503, "UNAVAILABLE", True]
    assert [getattr(answered, name) for name in fields] == ["admin_meta", "graphql", 2, 200, None, False]
    assert (failed.levelno, answered.levelno) == (logging.WARNING, logging.DEBUG)
    assert isinstance(answered.duration_ms, int) and answered.duration_ms >= 0
    assert answered.headers["x-service-admin-secret"] == "[redacted]"


def test_one_helper_redacts_every_credential() -> None:
    from identity_sdk._schema import API_KEY_HEADER

    credentials = ["X-Service-Admin-Secret", "Authorization", "Proxy-Authorization", "Cookie", "set-cookie", *([API_KEY_HEADER] if API_KEY_HEADER else [])]
    redacted = _observe.redact_headers({**{name: "secret" for name in credentials}, "x-trace": "t"})
    assert redacted == {**{name: "[redacted]" for name in credentials}, "x-trace": "t"}
    assert _observe.redact_headers([("Cookie", "a"), ("x-trace", "t")]) == {"Cookie": "[redacted]", "x-trace": "t"}


def test_event_hooks_see_every_request_and_response_sync(local_server: LocalServer) -> None:
    seen: list[str] = []
    hooks = {"request": [lambda request: seen.append(f"{request.method} {request.url.path}")], "response": [lambda response: seen.append(str(response.status_code))]}
    with AdminClient(service_url=local_server.url, admin_secret="s", protocol="rest", server_version="2.4.4", event_hooks=hooks) as admin:
        assert admin.admin_meta().version == "2.4.4"
    assert seen == ["POST /v1/admin/admin_meta", "200"]


def test_event_hooks_see_every_request_and_response_async(local_server: LocalServer) -> None:
    seen: list[str] = []

    async def on_request(request: httpx.Request) -> None:
        seen.append(f"{request.method} {request.url.path}")

    async def on_response(response: httpx.Response) -> None:
        seen.append(str(response.status_code))

    async def call() -> str:
        hooks = {"request": [on_request], "response": [on_response]}
        async with AsyncAdminClient(service_url=local_server.url, admin_secret="s", protocol="rest", server_version="2.4.4", event_hooks=hooks) as admin:
            return (await admin.admin_meta()).version

    assert asyncio.run(call()) == "2.4.4"
    assert seen == ["POST /v1/admin/admin_meta", "200"]


def test_event_hooks_with_a_callers_http_client_are_refused() -> None:
    with pytest.raises(ValueError, match="give them to it"):
        AdminClient(service_url="http://localhost", admin_secret="s", http_client=httpx.Client(), event_hooks={"request": []})


class FakePropagator:
    """opentelemetry.propagate's inject, as the W3C propagator writes the current span's context."""

    @staticmethod
    def inject(carrier: dict[str, str]) -> None:
        carrier["traceparent"] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
def test_the_trace_context_of_the_current_span_is_sent_where_opentelemetry_is_installed(
    clients: Clients, recorder: Recorder, monkeypatch: pytest.MonkeyPatch, protocol: str
) -> None:
    clients.run(clients.admin(protocol=protocol).admin_meta())
    assert "traceparent" not in recorder.requests[-1].headers
    # Installed: looked up once, by its module name (no dependency of the package's).
    package = types.ModuleType("opentelemetry")
    propagate = types.ModuleType("opentelemetry.propagate")
    propagate.inject = FakePropagator.inject  # type: ignore[attr-defined]
    package.propagate = propagate  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "opentelemetry", package)
    monkeypatch.setitem(sys.modules, "opentelemetry.propagate", propagate)
    monkeypatch.setattr(_observe, "_propagate", None)
    admin = clients.admin(protocol=protocol)
    clients.run(admin.admin_meta())
    clients.run(admin.admin_meta())
    assert recorder.requests[-1].headers["traceparent"] == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    # The client's own headers are not changed by it.
    assert "traceparent" not in admin._core._headers
