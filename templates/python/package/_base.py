"""What every client has besides its operations: the protocol and gRPC target it uses, sign-in for
user clients, close(), use as a context manager (with / async with), a repr() without secrets, and
the base of with_raw_response."""

from __future__ import annotations

from types import TracebackType
from typing import TypeVar

import httpx

from ._core import AsyncCore, Settings, SyncCore, _CoreBase
from .types import Protocol

_Sync = TypeVar("_Sync", bound="SyncClientBase")
_Async = TypeVar("_Async", bound="AsyncClientBase")


class _Client:
    _core: _CoreBase

    @property
    def protocol(self) -> Protocol:
        """graphql, rest or grpc (the token calls use rest whatever it is)."""
        return self._core.protocol

    @property
    def grpc_endpoint(self) -> str:
        """The gRPC target host:port this client uses when its protocol is grpc."""
        return self._core.grpc_endpoint

    def __repr__(self) -> str:
        # Never a credential in full: each shows as '***'.
        return f"{type(self).__name__}({self._core.describe()})"


class _SignsIn(_Client):
    def set_access_token(self, token: str | None) -> None:
        """Use this access token (from login, signup, ...) on the calls that follow; None signs out."""
        self._core.set_access_token(token)


class SyncClientBase(_Client):
    _core: SyncCore

    def __init__(self, settings: Settings, http_client: httpx.Client | None) -> None:
        self._core = SyncCore(settings, http_client)

    def close(self) -> None:
        """Closes the connection pool and the gRPC channel; a call in flight (from any thread) ends
        CANCELLED, and a later call is refused (make a new client)."""
        self._core.close()

    def __enter__(self: _Sync) -> _Sync:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None) -> None:
        self.close()


class AsyncClientBase(_Client):
    _core: AsyncCore

    def __init__(self, settings: Settings, http_client: httpx.AsyncClient | None) -> None:
        self._core = AsyncCore(settings, http_client)

    async def close(self) -> None:
        """Closes the connection pool and the gRPC channel; a call in flight ends CANCELLED, and a
        later call is refused (make a new client)."""
        await self._core.close()

    async def __aenter__(self: _Async) -> _Async:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None) -> None:
        await self.close()


class SyncUserClientBase(_SignsIn, SyncClientBase):
    _core: SyncCore


class AsyncUserClientBase(_SignsIn, AsyncClientBase):
    _core: AsyncCore


class SyncResource:
    """The methods of one group of operations (resources/), inherited by a sync client."""

    _core: SyncCore


class AsyncResource:
    """The methods of one group of operations (resources/), inherited by an async client."""

    _core: AsyncCore


class SyncRawResource:
    """The methods of one group answering a RawResponse (resources/), inherited by a sync client's with_raw_response."""

    def __init__(self, core: SyncCore) -> None:
        self._core = core

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._core.describe()})"


class AsyncRawResource:
    """The methods of one group answering a RawResponse (resources/), inherited by an async client's with_raw_response."""

    def __init__(self, core: AsyncCore) -> None:
        self._core = core

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._core.describe()})"
