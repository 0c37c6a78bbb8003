"""iter_<list>() walks every page exactly once, lazily, sync and async."""

from __future__ import annotations

import json

import httpx

from conftest import Clients, Recorder


def pages_of(total: int):
    def answer(request: httpx.Request) -> httpx.Response:
        asked = json.loads(request.content)["pagination"]
        limit, page = asked["limit"], asked["page"]
        offset = (page - 1) * limit
        ids = [{"id": f"o{i}", "name": f"org-{i}"} for i in range(offset, min(total, offset + limit))]
        return httpx.Response(200, json={"organizations": ids, "pagination": {"limit": limit, "page": page, "offset": offset, "total": total}})

    return answer


def test_page_style_lists_are_walked_page_after_page(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(*[pages_of(5)] * 10)
    admin = clients.admin(protocol="rest")
    ids = [org.id for org in clients.each(admin.iter_organizations(pagination={"limit": 2}))]
    assert ids == ["o0", "o1", "o2", "o3", "o4"]
    assert [json.loads(r.content)["pagination"] for r in recorder.requests] == [{"limit": 2, "page": p} for p in (1, 2, 3)]


def test_the_default_page_size_and_an_empty_list(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(pages_of(0))
    assert clients.each(clients.admin(protocol="rest").iter_organizations()) == []
    assert json.loads(recorder.requests[0].content)["pagination"] == {"limit": 100, "page": 1}


def test_token_style_lists_follow_continuation_tokens_and_stop_at_a_repeated_one(clients: Clients, recorder: Recorder) -> None:
    def tuples(n: int, token: str) -> httpx.Response:
        return httpx.Response(200, json={"tuples": [{"user": f"user:{n}", "relation": "viewer", "object": "doc:1"}], "continuation_token": token})

    recorder.answer(tuples(1, "a"), tuples(2, "b"), tuples(3, "a"))
    users = [t.user for t in clients.each(clients.admin(protocol="rest").iter_fga_read_tuples(object="doc:1"))]
    assert users == ["user:1", "user:2", "user:3"]
    assert [json.loads(r.content).get("continuation_token") for r in recorder.requests] == [None, "a", "b"]


def test_the_page_iterator_yields_each_pages_whole_answer(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(*[pages_of(5)] * 10)
    admin = clients.admin(protocol="rest")
    pages = clients.each(admin.iter_organizations_pages(pagination={"limit": 2}))
    assert [[org.id for org in page.organizations] for page in pages] == [["o0", "o1"], ["o2", "o3"], ["o4"]]
    assert [page.pagination.page for page in pages] == [1, 2, 3]
    assert type(pages[0]).__name__ == "OrganizationsResponse"


def test_the_page_iterator_follows_continuation_tokens(clients: Clients, recorder: Recorder) -> None:
    def tuples(n: int, token: str) -> httpx.Response:
        return httpx.Response(200, json={"tuples": [{"user": f"user:{n}", "relation": "viewer", "object": "doc:1"}], "continuation_token": token})

    recorder.answer(tuples(1, "a"), tuples(2, ""))
    pages = clients.each(clients.admin(protocol="rest").iter_fga_read_tuples_pages(object="doc:1"))
    assert [(page.tuples[0].user, page.continuation_token) for page in pages] == [("user:1", "a"), ("user:2", "")]


def test_the_page_iterator_fetches_a_page_only_as_the_loop_reaches_it(recorder: Recorder) -> None:
    recorder.answer(*[pages_of(5)] * 10)
    admin = Clients("sync", recorder).admin(protocol="rest")
    pages = admin.iter_organizations_pages(pagination={"limit": 2})
    assert recorder.requests == []
    next(pages)
    assert len(recorder.requests) == 1
