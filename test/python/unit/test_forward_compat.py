"""A service newer than the SDK: answer fields the SDK does not know stay in the model's `extra`,
enum names it does not know pass as they are, and extra_body sends input fields it does not know
(REST and GraphQL; refused over gRPC, test_grpc.py). A known field of the wrong type is kept as it came in extra, with a warning."""

from __future__ import annotations

import json
import logging
from urllib.parse import parse_qs

import httpx
import pytest

from conftest import Clients, Recorder, graphql_answer

ORGANIZATION = {"id": "o1", "name": "acme", "enabled": True, "created_at": 1, "updated_at": 2}


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
def test_answer_fields_the_sdk_does_not_know_are_kept_in_extra(clients: Clients, recorder: Recorder, protocol: str) -> None:
    fields = {**ORGANIZATION, "region": "eu-west", "quota": {"seats": 3}}
    recorder.answer(graphql_answer("get_organization", fields) if protocol == "graphql" else httpx.Response(200, json=fields))
    organization = clients.run(clients.admin(protocol=protocol).get_organization(id="o1"))
    assert organization.extra == {"region": "eu-west", "quota": {"seats": 3}}
    assert organization.extra["region"] == "eu-west"
    # The declared fields as ever: to_dict() holds them alone, and the repr does not list extra.
    assert organization.name == "acme" and "region" not in organization.to_dict()
    assert "extra" not in repr(organization)


def test_nested_answers_keep_their_own_extra(clients: Clients, recorder: Recorder) -> None:
    page = {"organizations": [{**ORGANIZATION, "tier": "gold"}], "pagination": {"limit": 1, "page": 1, "offset": 0, "total": 1, "cursor": "c"}}
    recorder.answer(httpx.Response(200, json=page))
    answer = clients.run(clients.admin(protocol="rest").organizations())
    assert (answer.extra, answer.organizations[0].extra, answer.pagination.extra) == ({}, {"tier": "gold"}, {"cursor": "c"})


def test_an_answer_with_only_known_fields_has_an_empty_extra(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(httpx.Response(200, json=ORGANIZATION))
    organization = clients.run(clients.admin(protocol="rest").get_organization(id="o1"))
    assert organization.extra == {}
    # Equal to an answer that differs only in extra (it is not compared), and hashable as before.
    assert organization == type(organization)(*[getattr(organization, name) for name in ("id", "name", "display_name", "enabled", "created_at", "updated_at")])
    assert hash(organization) == hash(organization)


@pytest.mark.parametrize("protocol", ["graphql", "rest"])
def test_an_enum_name_the_sdk_does_not_know_arrives_as_it_is(clients: Clients, recorder: Recorder, protocol: str) -> None:
    issuer = {"id": "t1", "service_account_id": "c1", "name": "ci", "issuer_url": "https://i", "key_source_type": "x509_bundle", "issuer_type": "oidc"}
    recorder.answer(graphql_answer("add_trusted_issuer", issuer) if protocol == "graphql" else httpx.Response(200, json=issuer))
    added = clients.run(
        clients.admin(protocol=protocol).add_trusted_issuer(
            service_account_id="c1", name="ci", issuer_url="https://i", key_source_type="x509_bundle", expected_aud="a", issuer_type="oidc"
        )
    )
    assert added.key_source_type == "x509_bundle"
    sent = recorder.body()["variables"]["params"] if protocol == "graphql" else recorder.body()
    assert sent["key_source_type"] == "x509_bundle"


def test_a_known_field_of_the_wrong_type_is_kept_raw_in_extra_with_a_warning(clients: Clients, recorder: Recorder, caplog: pytest.LogCaptureFixture) -> None:
    recorder.answer(httpx.Response(200, json={**ORGANIZATION, "enabled": "yes", "new": 1}))
    with caplog.at_level(logging.WARNING):
        organization = clients.run(clients.admin(protocol="rest").get_organization(id="o1"))
    assert organization.name == "acme" and organization.enabled is None
    assert organization.extra == {"enabled": "yes", "new": 1}
    assert any("get_organization: the answer does not fit Organization (enabled" in record.getMessage() for record in caplog.records)


def test_extra_body_travels_in_a_rest_body_and_in_graphql_params(clients: Clients, recorder: Recorder) -> None:
    admin = clients.admin(protocol="rest")
    clients.run(admin.create_organization(name="acme", extra_body={"region": "eu", "quota": {"seats": 3}}))
    assert recorder.body() == {"name": "acme", "region": "eu", "quota": {"seats": 3}}
    clients.run(clients.admin().create_organization(name="acme", extra_body={"region": "eu"}))
    assert recorder.body()["variables"] == {"params": {"name": "acme", "region": "eu"}}
    # Not given: nothing more is sent.
    clients.run(admin.create_organization(name="acme"))
    assert recorder.body() == {"name": "acme"}


def test_extra_body_travels_in_a_rest_query(clients: Clients, recorder: Recorder) -> None:
    # meta is a GET route: its input travels in the query string.
    clients.run(clients.user(protocol="rest").meta(extra_body={"expand": "limits", "depth": 2}))
    request = recorder.requests[-1]
    assert (request.method, request.url.path, request.content) == ("GET", "/v1/meta", b"")
    assert parse_qs(request.url.query.decode()) == {"expand": ["limits"], "depth": ["2"]}


def test_extra_body_reaches_every_page_of_an_iterator(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(httpx.Response(200, json={"organizations": [ORGANIZATION], "pagination": {"limit": 1, "page": 1, "offset": 0, "total": 1}}))
    assert len(clients.each(clients.admin(protocol="rest").iter_organizations(extra_body={"tier": "gold"}))) == 1
    assert json.loads(recorder.requests[-1].content)["tier"] == "gold"
