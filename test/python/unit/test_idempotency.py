"""Idempotency keys on the wire over GraphQL and REST: every call of a write that takes one carries an
Idempotency-Key (the caller's, or a new UUID), the same on every attempt; a wrong key is refused
before anything is sent. (gRPC: test_grpc.py; retries: test_retries.py.)"""

from __future__ import annotations

import inspect
import uuid

import httpx
import pytest

from conftest import Clients, Recorder
from identity_sdk import OPERATIONS, AdminClient, AsyncAdminClient, AsyncUserClient, UserClient


def is_uuid4(key: str) -> bool:
    try:
        return uuid.UUID(key).version == 4 and str(uuid.UUID(key)) == key
    except ValueError:
        return False


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
def test_a_keyed_write_sends_a_new_uuid_key_on_each_call(clients: Clients, recorder: Recorder, protocol: str) -> None:
    admin = clients.admin(protocol=protocol)
    clients.run(admin.create_organization(name="acme"))
    clients.run(admin.create_organization(name="acme"))
    first, second = (request.headers["idempotency-key"] for request in recorder.requests)
    assert is_uuid4(first) and is_uuid4(second) and first != second
    # The user client's keyed writes too.
    clients.run(clients.user(protocol=protocol, access_token="t").update_profile(given_name="Ada"))
    assert is_uuid4(recorder.requests[-1].headers["idempotency-key"])


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
def test_the_callers_key_is_sent_as_given(clients: Clients, recorder: Recorder, protocol: str) -> None:
    key = "order-1234:refund/#1~" + "x" * 234
    clients.run(clients.admin(protocol=protocol).delete_user(id="u1", idempotency_key=key))
    assert recorder.requests[0].headers.get_list("idempotency-key") == [key]
    # An Idempotency-Key among the extra headers gives way to the call's own: one key on the wire.
    clients.run(clients.admin(protocol=protocol, extra_headers={"Idempotency-Key": "config"}).delete_user(id="u1", idempotency_key="mine"))
    assert recorder.requests[1].headers.get_list("idempotency-key") == ["mine"]


@pytest.mark.parametrize("key", ["", " ", "a b", "tab\there", "new\nline", "caf\u00e9", "\x7f", "k" * 256])
def test_a_wrong_key_is_refused_before_anything_is_sent(clients: Clients, recorder: Recorder, key: str) -> None:
    with pytest.raises(ValueError, match=r"^create_organization: idempotency_key must be 1 to 255 printable ASCII characters without spaces, not "):
        clients.run(clients.admin(protocol="rest").create_organization(name="acme", idempotency_key=key))
    assert recorder.requests == []


def test_reads_and_writes_without_a_key_send_none(clients: Clients, recorder: Recorder) -> None:
    admin = clients.admin(protocol="rest")
    clients.run(admin.admin_meta())
    clients.run(admin.admin_login(admin_secret="s3cret"))
    assert [request.headers.get("idempotency-key") for request in recorder.requests] == [None, None]


def test_a_keyed_writes_unreadable_answer_is_outcome_unknown_and_not_sent_again(clients: Clients, recorder: Recorder) -> None:
    # Unreadable answers go by kind, whatever the retries: the write may have happened.
    recorder.answer(httpx.Response(200, text="<html>ok</html>"), httpx.Response(200, text="<html>ok</html>"))
    assert clients.fails(lambda: clients.admin(protocol="rest").create_organization(name="acme")).code == "OUTCOME_UNKNOWN"
    assert clients.fails(lambda: clients.admin(protocol="rest").admin_meta()).code == "INTERNAL"
    assert len(recorder.requests) == 2


def parameters(method: object) -> list[str]:
    return list(inspect.signature(method).parameters)  # type: ignore[arg-type]


@pytest.mark.parametrize("cls", [AdminClient, AsyncAdminClient, UserClient, AsyncUserClient])
def test_only_the_methods_of_keyed_writes_take_a_key_and_every_method_takes_max_retries(cls: type) -> None:
    surfaces = ("admin",) if cls in (AdminClient, AsyncAdminClient) else ("user", "oauth")
    methods = {op.method: op for op in OPERATIONS.values() if op.surface in surfaces}
    keyed = [name for name, op in methods.items() if op.idempotency_key]
    assert keyed, "the API has keyed writes"
    for name, op in methods.items():
        names = parameters(getattr(cls, name))
        assert ("idempotency_key" in names) == op.idempotency_key, name
        assert "max_retries" in names, name
        if op.pagination:
            assert "max_retries" in parameters(getattr(cls, f"iter_{op.name}")), name
    # Documented where taken.
    assert "idempotency_key: The Idempotency-Key of this call" in (getattr(cls, keyed[0]).__doc__ or "")
