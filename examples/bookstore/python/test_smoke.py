"""The bookstore's Python SDK against a running bookstore (BOOKSTORE_URL, BOOKSTORE_GRPC, BOOKSTORE_KEY)."""

from __future__ import annotations

import os

import pytest

from bookstore_sdk import ApiError, AsyncStoreClient, StoreClient

URL = os.environ["BOOKSTORE_URL"]
GRPC = os.environ["BOOKSTORE_GRPC"]
KEY = os.environ["BOOKSTORE_KEY"]


@pytest.mark.parametrize("protocol", ["graphql", "rest", "grpc"])
def test_adds_reads_and_pages_through_books(protocol: str) -> None:
    with StoreClient(service_url=URL, grpc_endpoint=GRPC, api_key=KEY, protocol=protocol) as store:  # type: ignore[arg-type]
        added = store.add_book(title=f"Python on {protocol}", author={"name": "Guido"}, genre="science", year=1991)
        assert added.author.name == "Guido" and added.genre == "science" and added.in_stock
        assert store.get_book(id=added.id) == added
        assert store.update_book(id=added.id, in_stock=False).in_stock is False
        titles = [book.title for book in store.iter_list_books(genre="science")]
        assert f"Python on {protocol}" in titles
        with pytest.raises(ApiError) as refused:
            store.list_books(page_size=11)
        assert refused.value.code == "INVALID_ARGUMENT"


def test_refuses_a_write_without_the_key() -> None:
    with StoreClient(service_url=URL, protocol="rest") as store:
        with pytest.raises(ApiError) as refused:
            store.add_book(title="No key", author={"name": "Anon"}, genre="poetry")
        assert refused.value.code == "UNAUTHENTICATED"


async def test_async_client_searches_over_graphql() -> None:
    async with AsyncStoreClient(service_url=URL, api_key=KEY) as store:
        await store.add_book(title="Async Tales", author={"name": "Ada"}, genre="fiction")
        found = await store.search_books(words="async tales")
        assert [book.title for book in found.books] == ["Async Tales"]
