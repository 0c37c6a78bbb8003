"""The field kinds JSON has no type of its own for (timestamp, date, duration, bytes, uint64) and the
numbers of a narrower range (uint32, float32), in the bookstore's SDK, which has fields of each: the
Python values a call takes and answers, their forms on the wire (proto3's JSON mapping, and the
well-known messages over gRPC), and the inputs refused before anything is sent."""

from __future__ import annotations

import json
import logging
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "bookstore" / "generated" / "python" / "src"))

from bookstore_sdk import ApiError, Book, StoreClient
from bookstore_sdk._grpc import fill, from_proto, message_class
from bookstore_sdk._shape import WireTypeError, from_json, parse_duration, parse_timestamp, to_wire

# A name under .localhost: loopback, so the client sends its API key in clear.
SERVICE_URL = "http://bookstore.localhost"
CET = timezone(timedelta(hours=1))
BOOK = {"id": "b1", "title": "T", "author": {"name": "A"}, "genre": "fiction", "in_stock": True, "labels": {}}


def rest_store(answer: dict[str, object], sent: list[httpx.Request]) -> StoreClient:
    def respond(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=answer)

    return StoreClient(service_url=SERVICE_URL, api_key="key", protocol="rest", http_client=httpx.Client(transport=httpx.MockTransport(respond)))


def test_inputs_travel_in_the_json_forms_and_answers_read_as_python_values() -> None:
    sent: list[httpx.Request] = []
    answer = {
        **BOOK,
        "added_at": "2026-01-31T10:30:00.123456789+01:00",
        "published_on": "2024-02-29",
        "isbn": "18446744073709551615",
        "pages": 4294967295,
        "rating": 4.300000190734863,
        "loan_period": "-0.250s",
        # URL-safe and unpadded: read as well.
        "cover": "-_8",
        # The bookstore's int64 travel as decimal strings (api.int64_json: string).
        "copies_sold": "-9223372036854775808",
    }
    with rest_store(answer, sent) as store:
        book = store.add_book(
            title="T",
            author={"name": "A"},
            genre="fiction",
            published_on=date(2024, 2, 29),
            isbn=2**64 - 1,
            pages=2**32 - 1,
            rating=4.3,
            loan_period=timedelta(days=1, milliseconds=500),
            cover=b"\xfb\xff",
            copies_sold=2**63 - 1,
        )
    assert json.loads(sent[0].content) == {
        "title": "T",
        "author": {"name": "A"},
        "genre": "fiction",
        "published_on": "2024-02-29",
        "isbn": "18446744073709551615",
        "pages": 4294967295,
        "rating": 4.3,
        "loan_period": "86400.500s",
        "cover": "+/8=",
        "copies_sold": "9223372036854775807",
    }
    # In UTC; Python holds microseconds, so the nanoseconds beyond them are dropped.
    assert book.added_at == datetime(2026, 1, 31, 9, 30, 0, 123456, tzinfo=timezone.utc) and book.added_at.tzinfo == timezone.utc
    assert (book.published_on, book.isbn, book.pages, book.rating, book.loan_period, book.cover) == (
        date(2024, 2, 29),
        2**64 - 1,
        2**32 - 1,
        4.3,
        timedelta(milliseconds=-250),
        b"\xfb\xff",
    )
    assert book.copies_sold == -(2**63)
    assert book.extra == {}
    plain = book.to_dict()
    assert plain["copies_sold"] == "-9223372036854775808"
    assert (plain["added_at"], plain["published_on"], plain["isbn"], plain["loan_period"], plain["cover"]) == (
        "2026-01-31T09:30:00.123456Z",
        "2024-02-29",
        "18446744073709551615",
        "-0.250s",
        "+/8=",
    )


def test_a_value_not_of_its_form_in_an_answer_is_kept_in_extra_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    answer = {**BOOK, "added_at": "2026-01-31T09:30:00Z", "loan_period": "soon", "isbn": 1.5, "published_on": "2026-02-30"}
    with caplog.at_level(logging.WARNING), rest_store(answer, []) as store:
        book = store.get_book(id="b1")
    assert (book.loan_period, book.isbn, book.published_on) == (None, None, None)
    assert book.extra == {"loan_period": "soon", "isbn": 1.5, "published_on": "2026-02-30"}
    assert book.added_at == datetime(2026, 1, 31, 9, 30, tzinfo=timezone.utc)
    # The first field of the answer's order that does not fit, with what it should be.
    assert any("does not fit Book (published_on: must be a date such as 2026-01-31)" in record.getMessage() for record in caplog.records)


def test_timestamps_are_instants_in_utc_and_a_naive_datetime_is_refused() -> None:
    assert to_wire("Book", {"added_at": datetime(2026, 1, 31, 9, 30, 0, 120000, tzinfo=CET)}) == {"added_at": "2026-01-31T08:30:00.120Z"}
    # Its JSON form is taken too, written in UTC.
    assert to_wire("Book", {"added_at": "2026-01-31T09:30:00.5-02:00"}) == {"added_at": "2026-01-31T11:30:00.500Z"}
    with pytest.raises(WireTypeError, match=r"^added_at: must be an RFC 3339 date-time such as 2026-01-31T09:30:00Z; a datetime without a timezone \(naive\) is refused"):
        to_wire("Book", {"added_at": datetime(2026, 1, 31, 9, 30)})
    assert parse_timestamp("0001-01-01T00:00:00Z") == (-62135596800, 0)
    assert parse_timestamp("9999-12-31T23:59:59.999999999Z") == (253402300799, 999999999)
    for text in ("2026-02-30T00:00:00Z", "2026-01-31T24:00:00Z", "2026-01-31 09:30:00Z", "2026-01-31T09:30:00", "0000-12-31T23:59:59Z"):
        assert parse_timestamp(text) is None, text


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"pages": 2**32}, "pages: must be between 0 and 4294967295"),
        ({"pages": -1}, "pages: must be between 0 and 4294967295"),
        ({"pages": 1.5}, "pages: must be an integer"),
        ({"pages": True}, "pages: must be an integer"),
        ({"isbn": 2**64}, "isbn: must be an integer from 0 to 18446744073709551615"),
        ({"isbn": "01"}, "isbn: must be an integer from 0 to 18446744073709551615"),
        ({"copies_sold": 2**63}, "copies_sold: must be an integer from -9223372036854775808 to 9223372036854775807"),
        ({"copies_sold": -(2**63) - 1}, "copies_sold: must be an integer from -9223372036854775808 to 9223372036854775807"),
        ({"copies_sold": "-0"}, "copies_sold: must be an integer from -9223372036854775808 to 9223372036854775807"),
        ({"copies_sold": 1.5}, "copies_sold: must be an integer from -9223372036854775808 to 9223372036854775807"),
        ({"rating": 3.5e38}, "rating: must be between -3.4028234663852886e+38 and 3.4028234663852886e+38"),
        ({"rating": float("inf")}, "rating: must be a number"),
        ({"published_on": datetime(2026, 1, 31, tzinfo=timezone.utc)}, "published_on: must be a date such as 2026-01-31"),
        ({"published_on": "2026-1-31"}, "published_on: must be a date such as 2026-01-31"),
        ({"loan_period": 90}, "loan_period: must be a duration in seconds such as 90s or 1.5s"),
        ({"loan_period": timedelta(days=3652501)}, "loan_period: must be a duration in seconds such as 90s or 1.5s"),
        ({"cover": "a"}, "cover: must be base64"),
    ],
)
@pytest.mark.parametrize("protocol", ["graphql", "rest", "grpc"])
def test_a_value_the_wire_cannot_carry_is_refused_before_sending(protocol: str, values: dict[str, object], message: str) -> None:
    sent: list[httpx.Request] = []
    with rest_store({}, sent) as store, pytest.raises(ApiError) as refused:
        # The refusal comes before any connection: over gRPC too, with no server to reach.
        store._core.protocol = protocol  # type: ignore[assignment]
        store.add_book(title="T", author={"name": "A"}, genre="fiction", **values)  # type: ignore[arg-type]
    assert (refused.value.code, refused.value.refused, refused.value.message, refused.value.protocol) == ("INVALID_ARGUMENT", True, message, protocol)
    assert sent == []


def test_grpc_carries_timestamps_and_durations_as_their_messages() -> None:
    body = to_wire(
        "Book",
        {
            "added_at": datetime(1, 1, 1, tzinfo=timezone.utc),
            "published_on": date(2026, 1, 31),
            "isbn": 2**64 - 1,
            "pages": 7,
            "rating": 0.1,
            "loan_period": timedelta(microseconds=-1),
            "cover": b"",
            "copies_sold": -(2**63),
        },
    )
    message = message_class("bookstore.v1.Book")()
    fill("Book", message, body)
    assert (message.added_at.seconds, message.added_at.nanos) == (-62135596800, 0)  # type: ignore[attr-defined]
    assert (message.loan_period.seconds, message.loan_period.nanos) == (0, -1000)  # type: ignore[attr-defined]
    assert (message.isbn, message.published_on, message.cover, message.copies_sold) == (2**64 - 1, "2026-01-31", b"", -(2**63))  # type: ignore[attr-defined]
    book = from_proto("Book", message_class("bookstore.v1.Book").FromString(message.SerializeToString()))
    assert isinstance(book, Book)
    # A float32 reads as the shortest decimal of its 32-bit value, as it does from JSON.
    assert (book.added_at, book.loan_period, book.isbn, book.rating, book.cover, book.copies_sold) == (
        datetime(1, 1, 1, tzinfo=timezone.utc),
        timedelta(microseconds=-1),
        2**64 - 1,
        0.1,
        b"",
        -(2**63),
    )
    assert book.to_dict() == {**from_json("Book", book.to_dict()).to_dict()}
    # A Timestamp or Duration left unset reads as None, not as the epoch or 0s.
    unset = from_proto("Book", message_class("bookstore.v1.Book")())
    assert (unset.added_at, unset.loan_period, unset.published_on, unset.cover) == (None, None, None, None)  # type: ignore[attr-defined]


def test_durations_keep_their_sign_and_digits() -> None:
    assert parse_duration("-0.250s") == (0, -250000000)
    assert parse_duration("315576000000.999999999s") == (315576000000, 999999999)
    assert parse_duration("315576000001s") is None
    forms = {timedelta(0): "0s", timedelta(seconds=-90): "-90s", timedelta(microseconds=1): "0.000001s", timedelta(days=-1, microseconds=1): "-86399.999999s"}
    for value, text in forms.items():
        assert to_wire("Book", {"loan_period": value}) == {"loan_period": text}
