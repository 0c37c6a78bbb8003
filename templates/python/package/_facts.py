"""The shapes of the facts tables in _schema.py: one entry per message field and per operation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple


class Field(NamedTuple):
    """One field of a message."""

    name: str
    """The wire name on every protocol (and the proto field name)."""
    attr: str
    """The Python name: an attribute of answers, a keyword argument of methods."""
    kind: str
    """string, bool, int32, int64, float64, map, json, enum or message."""
    ref: str | None
    """The enum or message name, for kind enum or message."""
    is_list: bool
    required: bool
    presence: bool
    """The proto field tracks presence (unset reads as None)."""
    value: str | None = None
    """A map's values where they are not strings: bool, int32, uint32, float64, or enum (of ref)."""


class GraphqlBinding(NamedTuple):
    document: str
    """The document the TypeScript client sends, byte for byte."""
    with_params: bool
    """Sent with the variables {"params": input}."""


class RestBinding(NamedTuple):
    method: str
    path: str
    """Fixed segments and {field} segments (/v1/books/{id})."""
    path_params: tuple[str, ...] = ()
    """The input fields the path's {field} segments carry."""
    in_query: bool = False
    """The other input fields travel in the query string (GET, DELETE), else in a JSON body."""
    headers: tuple[tuple[str, str], ...] = ()
    """The input fields request headers carry instead: (field, header in lower case)."""
    redirect: bool = False
    """A browser's route, answered with a redirect: the call answers its URL ({"location": url}) without sending it."""


class GrpcBinding(NamedTuple):
    path: str
    """/<package>.<Service>/<Rpc>."""
    request_type: str
    response_type: str


class Pagination(NamedTuple):
    style: str
    """page (pagination {limit, page}) or token (a cursor handed back and forth)."""
    items_attr: str
    """The answer attribute holding the items."""
    page_size: int | None
    """The page size an iterator asks for when the input names none (page style)."""
    cursor: str | None = None
    """The input field asking for the page after a cursor (token style)."""
    next_cursor_attr: str | None = None
    """The answer attribute handing back the cursor of the next page (token style)."""


class Operation(NamedTuple):
    """What every call of one operation goes by, whichever client (sync or async) makes it."""

    name: str
    pascal_name: str
    """As refusals name the operation."""
    method: str
    """The client method."""
    surface: str
    kind: str
    destructive: bool
    auth: str
    """Its auth scheme (the first of auth_any_of)."""
    auth_any_of: tuple[str, ...]
    """Every auth scheme it takes, any one of which lets a caller in, in the manifest's order."""
    protocols: tuple[str, ...]
    fixed_protocol: str | None
    """The protocol of every call whatever the client's (token routes: rest)."""
    retried: bool
    """Sent again on transient failures: reads, idempotent writes, and writes with an Idempotency-Key."""
    idempotency_key: bool
    """Each call carries an Idempotency-Key (the caller's or one made for the call), the same on every attempt."""
    fills: tuple[str, ...]
    """Input fields the client fills in with its own values where the call leaves them out."""
    since: Mapping[str, str]
    """Minimum server version per protocol that carries it."""
    version_gated: frozenset[str]
    """Protocols over which a call first needs the server's version."""
    graphql: GraphqlBinding | None
    rest: RestBinding | None
    grpc: GrpcBinding | None
    pagination: Pagination | None
    input: str
    output: str
    arguments: Mapping[str, str]
    """Wire name -> keyword argument of the method."""


class ErrorWire(NamedTuple):
    http: int
    grpc: int
