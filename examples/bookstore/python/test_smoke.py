"""The bookstore's Python SDK against a running bookstore (BOOKSTORE_URL, BOOKSTORE_GRPC, BOOKSTORE_KEY,
and readers' tokens: BOOKSTORE_EDITOR grants books:write, BOOKSTORE_BROWSER nothing)."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import date, datetime, timedelta, timezone
from typing import Literal

import pytest

from bookstore_sdk import ApiError, AsyncStoreClient, Author, Book, StoreClient

URL = os.environ["BOOKSTORE_URL"]
GRPC = os.environ["BOOKSTORE_GRPC"]
KEY = os.environ["BOOKSTORE_KEY"]
EDITOR = os.environ["BOOKSTORE_EDITOR"]
BROWSER = os.environ["BOOKSTORE_BROWSER"]
PROTOCOLS: list[Literal["graphql", "rest", "grpc"]] = ["graphql", "rest", "grpc"]
# Every byte value: its base64 has + and /, which URL-safe base64 would write otherwise.
COVER = bytes(range(256)) * 4


def store_over(protocol: Literal["graphql", "rest", "grpc"]) -> StoreClient:
    return StoreClient(service_url=URL, grpc_endpoint=GRPC, api_key=KEY, protocol=protocol)


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


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_edits_with_any_one_of_its_schemes(protocol: Literal["graphql", "rest", "grpc"]) -> None:
    """edit_book takes the staff's key or a reader's token granting books:write; a token without the
    scope is PERMISSION_DENIED, and a wrong token is refused even beside the right key."""
    with store_over(protocol) as staff:
        added = staff.add_book(title=f"Any one in Python on {protocol}", author={"name": "A"}, genre="poetry")
    with StoreClient(service_url=URL, grpc_endpoint=GRPC, access_token=EDITOR, protocol=protocol) as reader:
        assert reader.edit_book(id=added.id, title="Edited by a Python reader").title == "Edited by a Python reader"
    refusals: list[tuple[str | None, str | None, str, str]] = [
        (None, BROWSER, "PERMISSION_DENIED", "EditBook needs the scope books:write, which the bearer token does not grant"),
        (KEY, "not-a-reader-token", "UNAUTHENTICATED", "the bearer token is not valid or has expired"),
        (None, None, "UNAUTHENTICATED", "EditBook needs an API key in header x-bookstore-key or an access token (Authorization: Bearer <token>)"),
    ]
    for key, token, code, message in refusals:
        with StoreClient(service_url=URL, grpc_endpoint=GRPC, api_key=key, access_token=token, protocol=protocol) as caller:
            with pytest.raises(ApiError) as refused:
                caller.edit_book(id=added.id, title="Refused")
            assert (refused.value.code, refused.value.message) == (code, message)


async def test_async_client_searches_over_graphql() -> None:
    async with AsyncStoreClient(service_url=URL, api_key=KEY) as store:
        await store.add_book(title="Async Tales", author={"name": "Ada"}, genre="fiction")
        found = await store.search_books(words="async tales")
        assert [book.title for book in found.books] == ["Async Tales"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_carries_dates_times_durations_bytes_and_unsigned_numbers(protocol: Literal["graphql", "rest", "grpc"]) -> None:
    before = datetime.now(timezone.utc)
    with store_over(protocol) as store:
        added = store.add_book(
            title=f"Typed on {protocol}",
            author={"name": "Knuth"},
            genre="science",
            published_on=date(1968, 2, 29),
            isbn=9780201896831,
            pages=672,
            rating=4.5,
            loan_period=timedelta(days=21, hours=12, milliseconds=250),
            cover=COVER,
        )
        wanted = (date(1968, 2, 29), 9780201896831, 672, 4.5, timedelta(days=21, hours=12, milliseconds=250), COVER)
        assert (added.published_on, added.isbn, added.pages, added.rating, added.loan_period, added.cover) == wanted
        # Set by the server: an instant of this call, in UTC (within a second either side, for the clocks' resolution).
        assert added.added_at.utcoffset() == timedelta(0)
        assert before - timedelta(seconds=1) <= added.added_at <= datetime.now(timezone.utc) + timedelta(seconds=1)
        # The plain form is the JSON one, whichever protocol carried the answer.
        plain = added.to_dict()
        assert (plain["published_on"], plain["isbn"], plain["loan_period"], plain["rating"]) == ("1968-02-29", "9780201896831", "1857600.250s", 4.5)
    # The same book, read back over every protocol: equal values, the same instant.
    for reader in PROTOCOLS:
        with store_over(reader) as store:
            read: Book = store.get_book(id=added.id)
            assert read == added, reader
            assert read.added_at == added.added_at and read.to_dict() == added.to_dict(), reader


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_carries_the_edges_of_each_range(protocol: Literal["graphql", "rest", "grpc"]) -> None:
    with store_over(protocol) as store:
        added = store.add_book(
            title=f"Edges on {protocol}",
            author={"name": "Edge"},
            genre="essays",
            published_on=date(1, 1, 1),
            isbn=2**64 - 1,
            pages=2**32 - 1,
            rating=0.1,
            loan_period=timedelta(microseconds=-1),
            cover=b"\xff",
            copies_sold=-(2**63),
        )
        # A float32 reads as the shortest decimal of its 32-bit value, over gRPC as over JSON.
        wanted = (date(1, 1, 1), 2**64 - 1, 2**32 - 1, 0.1, timedelta(microseconds=-1), b"\xff", -(2**63))
        assert (added.published_on, added.isbn, added.pages, added.rating, added.loan_period, added.cover, added.copies_sold) == wanted
        # The store's int64 travel as decimal strings (api.int64_json: string): exact past 2**53.
        assert added.to_dict()["copies_sold"] == "-9223372036854775808"
        assert store.get_book(id=added.id) == added
        larger = store.add_book(title=f"Past 2**53 on {protocol}", author={"name": "Edge"}, genre="essays", copies_sold=2**63 - 1)
        assert store.get_book(id=larger.id).copies_sold == 2**63 - 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_refuses_a_value_out_of_its_range_before_sending(protocol: Literal["graphql", "rest", "grpc"]) -> None:
    with store_over(protocol) as store:

        def add(**values: object) -> Callable[[], Book]:
            return lambda: store.add_book(title="Never sent", author={"name": "Nobody"}, genre="poetry", **values)  # type: ignore[arg-type]

        attempts = {
            "pages: must be between 0 and 4294967295": add(pages=2**32),
            "isbn: must be an integer from 0 to 18446744073709551615": add(isbn=-1),
            "copies_sold: must be an integer from -9223372036854775808 to 9223372036854775807": add(copies_sold=2**63),
            "rating: must be between -3.4028234663852886e+38 and 3.4028234663852886e+38": add(rating=1e39),
            "rating: must be a number": add(rating=float("nan")),
            # A datetime is a date in Python; its time of day would be lost.
            "published_on: must be a date such as 2026-01-31": add(published_on=datetime.now(timezone.utc)),
            "loan_period: must be a duration in seconds such as 90s or 1.5s": add(loan_period=21),
            "cover: must be base64": add(cover="not base64!"),
        }
        for message, attempt in attempts.items():
            with pytest.raises(ApiError) as refused:
                attempt()
            assert (refused.value.code, refused.value.refused, refused.value.message) == ("INVALID_ARGUMENT", True, message)
        assert "Never sent" not in [book.title for book in store.iter_list_books()]


async def test_async_client_carries_the_new_types_over_grpc() -> None:
    async with AsyncStoreClient(service_url=URL, grpc_endpoint=GRPC, api_key=KEY, protocol="grpc") as store:
        added = await store.add_book(title="Async typed", author={"name": "Ada"}, genre="fiction", loan_period=timedelta(seconds=90), cover=b"png")
        read = await store.get_book(id=added.id)
        assert (read.loan_period, read.cover, read.published_on, read.isbn) == (timedelta(seconds=90), b"png", None, None)
        assert read.added_at == added.added_at


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_changes_a_book_only_while_its_etag_is_the_one_given(protocol: Literal["graphql", "rest", "grpc"]) -> None:
    # Over REST, if_match travels in the If-Match header, which the service reads it from alone.
    with store_over(protocol) as store:
        added = store.add_book(title=f"Conditional on {protocol}", author={"name": "A"}, genre="poetry")
        assert added.etag == '"1"'
        with pytest.raises(ApiError) as stale:
            store.update_book(id=added.id, in_stock=False, if_match='"7"')
        assert (stale.value.code, stale.value.message) == ("FAILED_PRECONDITION", 'the book\'s etag is "1" now, not "7"')
        updated = store.update_book(id=added.id, in_stock=False, if_match='"1"')
        assert (updated.in_stock, updated.etag) == (False, '"2"')


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_carries_maps_of_numbers_and_enum_values(protocol: Literal["graphql", "rest", "grpc"]) -> None:
    with store_over(protocol) as store:
        added = store.add_book(
            title=f"Mapped on {protocol}",
            author={"name": "A"},
            genre="poetry",
            stock={"main": 2**32 - 1, "annex": 0},
            shelves={"B2": "history"},
            translators={"fr": {"name": "Jean Giono", "born": 1895}},
            printings={"first": date(1851, 10, 18)},
        )
        assert (added.stock, added.shelves, added.printings) == ({"main": 2**32 - 1, "annex": 0}, {"B2": "history"}, {"first": date(1851, 10, 18)})
        # A map of a type answers its answer class; a map of dates, dates (their JSON form in to_dict).
        assert isinstance(added.translators["fr"], Author) and (added.translators["fr"].name, added.translators["fr"].born) == ("Jean Giono", 1895)
        assert added.to_dict()["printings"] == {"first": "1851-10-18"}
        assert store.get_book(id=added.id) == added
        # Each value is checked before anything is sent, as a single field of its type.
        for values, message in (
            ({"stock": {"main": -1}}, "stock.main: must be between 0 and 4294967295"),
            ({"shelves": {"B2": "cooking"}}, "shelves.B2: must be one of fiction, history, science, poetry, essays"),
            ({"printings": {"first": "1851-02-30"}}, "printings.first: must be a date such as 2026-01-31"),
            ({"translators": {"fr": "Jean Giono"}}, "translators.fr: must be an object"),
        ):
            with pytest.raises(ApiError) as refused:
                store.add_book(title="Never sent", author={"name": "A"}, genre="poetry", **values)  # type: ignore[arg-type]
            assert (refused.value.code, refused.value.refused, refused.value.message) == ("INVALID_ARGUMENT", True, message)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_carries_a_union_with_exactly_one_variant(protocol: Literal["graphql", "rest", "grpc"]) -> None:
    with store_over(protocol) as store:
        added = store.add_book(
            title=f"United on {protocol}",
            author={"name": "A"},
            genre="poetry",
            edition={"ebook": {"file_format": "epub"}},
            other_editions=[{"audio_minutes": 90}, {"print": {"binding": "paperback"}}],
        )
        assert added.edition is not None and added.edition.ebook is not None
        assert (added.edition.ebook.file_format, added.edition.print, added.edition.audio_minutes) == ("epub", None, None)
        # The tag names the variant on every protocol; the REST body carried it (the server requires it there).
        assert (added.edition.kind, added.edition.extra) == ("ebook", {})
        assert [(edition.kind, edition.extra) for edition in added.other_editions] == [("audio_minutes", {}), ("print", {})]
        assert store.get_book(id=added.id) == added
        # Two variants, or none: refused (before sending over gRPC, whose oneof would keep the last).
        for edition in ({"ebook": {"file_format": "pdf"}, "audio_minutes": 60}, {}):
            with pytest.raises(ApiError) as refused:
                store.add_book(title="Never sent", author={"name": "A"}, genre="poetry", edition=edition)  # type: ignore[arg-type]
            assert (refused.value.code, refused.value.message) == ("INVALID_ARGUMENT", "edition: must have exactly one of print, ebook, audio_minutes")
    assert "Never sent" not in [book.title for book in store_over("rest").iter_list_books()]
