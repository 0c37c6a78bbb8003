"""Every answer in the one flat shape: every declared field present, unset ones None, lists and maps empty."""

from __future__ import annotations

import dataclasses

import httpx
import pytest

from conftest import Clients, Recorder
from identity_sdk import Organization, User, Webhook


def test_missing_fields_are_none_and_lists_and_maps_empty(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(httpx.Response(200, json={"id": "w1", "event_name": "user.created", "secret": "never", "created_at": "17"}))
    webhook = clients.run(clients.admin(protocol="rest").get_webhook(id="w1"))
    assert isinstance(webhook, Webhook)
    assert webhook.to_dict() == {
        "id": "w1", "event_name": "user.created", "event_description": None, "endpoint": None,
        "enabled": None, "headers": {}, "created_at": 17, "updated_at": None,
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        webhook.id = "w2"  # type: ignore[misc]


def test_nested_answers_are_typed_and_to_dict_is_plain_json(clients: Clients, recorder: Recorder) -> None:
    user = {"id": "u1", "email": "ada@example.com", "roles": ["admin"], "app_data": {"plan": {"seats": 3}}, "created_at": 1}
    recorder.answer(httpx.Response(200, json={"users": [user], "pagination": {"limit": 10, "page": 1, "offset": 0, "total": 1}}))
    page = clients.run(clients.admin(protocol="rest").users())
    assert isinstance(page.users[0], User)
    assert page.users[0].app_data == {"plan": {"seats": 3}}
    assert page.pagination.total == 1
    plain = page.to_dict()
    assert plain["users"][0]["roles"] == ["admin"] and plain["users"][0]["signup_methods"] is None
    assert plain["pagination"] == {"limit": 10, "page": 1, "offset": 0, "total": 1}


def test_answers_compare_by_value() -> None:
    fields = {"id": "o1", "name": "acme", "display_name": None, "enabled": True, "created_at": 1, "updated_at": 1}
    assert Organization(**fields) == Organization(**fields)
